"""Checks the streaming step graph (export_streaming.py) against the full model, both in
onnxruntime-node (the gateway's runtime):
  1. streams of several lengths (random features, and real log-mel of the test fixtures'
     Amharic speech, normalised per utterance) are fed in chunks of varied sizes (multiples of 4),
     several streams in one batch at different points of their turns (so frames_done differs per
     row) and a ragged last chunk (chunk_lengths < chunk): each stream's committed logits, then
     the provisional tail of its last chunk, equal the full model.onnx logits of the whole stream;
  2. after every chunk, the committed logits so far followed by that chunk's provisional tail
     equal model.onnx run on the features so far.
Both for the shipped model (argv[1]) and for small random models of model.py with a bounded
right context (0: causal, no tail; 1; 3), exported as export.py does; the driver also checks that
the graph's fixed shapes carry the block cache (kernel - 1 frames) and the delay (right context x
blocks, the length of tail_logits).
Bound for all: every logit within 1e-3 + 4e-6 x the largest |logit| of its frame in model.onnx (float32
sums of logits in the thousands, and an ensemble's log-posteriors near -2000, differ by a few dozen
units in the last place in another order) and argmax equal on > 99.9% of frames (two graphs, different float summation order).
An ensemble folder (ensemble.py) is checked the same way against its joined model.onnx.
Run: /usr/bin/python3 training/asr/test_streaming_export.py [models/small-am-v2 | models/small-am-v4-ensemble]
(exports streaming.onnx to a temporary folder first, so it tests the code, not a stale file)"""
import json
import os
import subprocess
import tempfile
import wave

from check_setup import MODEL, ROOT, run_node  # first: one OpenBLAS thread, the import path
import numpy as np
import torch
from common import FEATURES, LogMel
from ensemble import write_member
from export_streaming import export
from onnx_weights import load_ctcnet
from test_right_context import export as export_model
from test_right_context import small

RIGHT_CONTEXTS = (0, 1, 3)  # causal, the candidate's, a longer one (random models of model.py)

# onnxruntime-node driver: streams rows of feats.bin through the step graph in batches (row r
# joins at step starts[r]; chunk sizes cycle through `chunks`), and compares after every chunk
# with model.onnx on the prefix; prints one JSON line of results.
DRIVER = r"""
const fs = require('fs'); const ort = require('onnxruntime-node');
const [fullPath, stepPath, dir] = process.argv.slice(1);
const plan = JSON.parse(fs.readFileSync(dir + '/plan.json', 'utf8'));
const { rows, maxLen, nMels, lengths, starts, chunks } = plan;
const b = fs.readFileSync(dir + '/feats.bin');
const feats = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
const opts = { intraOpNumThreads: 1, graphOptimizationLevel: 'all' };
const frame = (r, t) => feats.subarray((r * maxLen + t) * nMels, (r * maxLen + t + 1) * nMels);
(async () => {
  const full = await ort.InferenceSession.create(fullPath, opts);
  const step = await ort.InferenceSession.create(stepPath, opts);
  const meta = JSON.parse(fs.readFileSync(dir + '/meta.json', 'utf8'));
  const { dim, subChannels, blocks, cacheFrames, delay } = meta;
  // the graph's fixed shapes carry the block cache and the delay (the runner reads them there)
  const shape = (list, name) => list.find((m) => m.name === name).shape;
  const blocksShape = shape(step.inputMetadata, 'cache_blocks');
  const graph = { subChannels: shape(step.inputMetadata, 'cache_sub')[1], blocks: blocksShape[1], dim: blocksShape[2], cacheFrames: blocksShape[3], delay: shape(step.outputMetadata, 'tail_logits')[1] };
  for (const key of Object.keys(graph)) if (graph[key] !== meta[key]) throw new Error(`graph shape ${JSON.stringify(graph)}, want ${JSON.stringify(meta)}`);
  const st = lengths.map(() => ({ done: 0, cf: new Float32Array(nMels), cs: new Float32Array(subChannels),
    cb: new Float32Array(blocks * dim * cacheFrames), committed: [], tail: null, finished: false }));
  let vocab = 0; let batchesMixed = 0; let ragged = 0;
  const prefix = { checks: 0, worst: 0, excess: 0, same: 0, frames: 0, scale: 0 };
  const whole = { checks: 0, worst: 0, excess: 0, same: 0, frames: 0, scale: 0 };
  const compare = (acc, got, want) => {
    if (got.length !== want.length) throw new Error(`length ${got.length / vocab} frames, want ${want.length / vocab}`);
    for (let t = 0; t < want.length / vocab; t++) {
      let ga = 0, wa = 0, frameScale = 0;
      for (let v = 0; v < vocab; v++) frameScale = Math.max(frameScale, Math.abs(want[t * vocab + v]));
      for (let v = 0; v < vocab; v++) {
        const g = got[t * vocab + v], w = want[t * vocab + v];
        acc.worst = Math.max(acc.worst, Math.abs(g - w));
        acc.excess = Math.max(acc.excess, Math.abs(g - w) - 4e-6 * frameScale);
        acc.scale = Math.max(acc.scale, Math.abs(w));
        if (g > got[t * vocab + ga]) ga = v;
        if (w > want[t * vocab + wa]) wa = v;
      }
      if (ga === wa) acc.same++;
      acc.frames++;
    }
    acc.checks++;
  };
  const fullLogits = async (r, n) => {
    const x = new Float32Array(n * nMels);
    for (let t = 0; t < n; t++) x.set(frame(r, t), t * nMels);
    const out = await full.run({ features: new ort.Tensor('float32', x, [1, n, nMels]), lengths: new ort.Tensor('int64', BigInt64Array.from([BigInt(n)]), [1]) });
    vocab = out.logits.dims[2];
    return out.logits.data;
  };
  const concat = (parts) => { const n = parts.reduce((a, p) => a + p.length, 0); const o = new Float32Array(n); let k = 0; for (const p of parts) { o.set(p, k); k += p.length; } return o; };
  const runBatch = async (rs, c) => {
    const B = rs.length;
    const x = new Float32Array(B * c * nMels);
    const valid = rs.map((r) => Math.min(c, lengths[r] - st[r].done));
    rs.forEach((r, i) => { for (let t = 0; t < valid[i]; t++) x.set(frame(r, st[r].done + t), (i * c + t) * nMels); });
    const cat = (key, size) => { const o = new Float32Array(B * size); rs.forEach((r, i) => o.set(st[r][key], i * size)); return o; };
    const out = await step.run({
      features: new ort.Tensor('float32', x, [B, c, nMels]),
      frames_done: new ort.Tensor('int64', BigInt64Array.from(rs.map((r) => BigInt(st[r].done))), [B]),
      chunk_lengths: new ort.Tensor('int64', BigInt64Array.from(valid.map((v) => BigInt(v))), [B]),
      cache_features: new ort.Tensor('float32', cat('cf', nMels), [B, nMels, 1]),
      cache_sub: new ort.Tensor('float32', cat('cs', subChannels), [B, subChannels, 1]),
      cache_blocks: new ort.Tensor('float32', cat('cb', blocks * dim * cacheFrames), [B, blocks, dim, cacheFrames]),
    });
    vocab = out.logits.dims[2];
    const per = c / 4;
    if (new Set(rs.map((r) => st[r].done)).size > 1) batchesMixed++;
    for (let i = 0; i < B; i++) {
      const s = st[rs[i]];
      const from = s.done / 4 - delay;
      const drop = Math.max(0, -from);
      s.committed.push(out.logits.data.slice((i * per + drop) * vocab, (i + 1) * per * vocab));
      const ends = Math.ceil((s.done + valid[i]) / 4);
      const tdrop = Math.max(0, delay - ends);
      s.tail = out.tail_logits.data.slice((i * delay + tdrop) * vocab, (i + 1) * delay * vocab);
      s.cf = out.next_cache_features.data.slice(i * nMels, (i + 1) * nMels);
      s.cs = out.next_cache_sub.data.slice(i * subChannels, (i + 1) * subChannels);
      const cb = blocks * dim * cacheFrames;
      s.cb = out.next_cache_blocks.data.slice(i * cb, (i + 1) * cb);
      if (valid[i] < c) ragged++;
      s.done += valid[i];
      s.finished = s.done >= lengths[rs[i]];
      compare(prefix, concat([...s.committed, s.tail]), await fullLogits(rs[i], s.done));  // 2: tail after this chunk
    }
  };
  let stepNo = 0;
  while (st.some((s) => !s.finished)) {
    const c = chunks[stepNo % chunks.length];
    const active = lengths.map((_, r) => r).filter((r) => starts[r] <= stepNo && !st[r].finished);
    const together = active.filter((r) => lengths[r] - st[r].done > c - 4);
    const short = active.filter((r) => lengths[r] - st[r].done <= c - 4);
    if (together.length > 0) await runBatch(together, c);
    for (const r of short) await runBatch([r], Math.ceil((lengths[r] - st[r].done) / 4) * 4);
    stepNo++;
  }
  for (let r = 0; r < rows; r++) compare(whole, concat([...st[r].committed, st[r].tail]), await fullLogits(r, lengths[r]));  // 1
  console.log(JSON.stringify({ steps: stepNo, prefix, whole, batchesMixed, ragged }));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def read_wav(path):
    with wave.open(path) as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768


def read_flac(path):
    run = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", "16000", "-"], capture_output=True, check=True)
    return np.frombuffer(run.stdout, dtype="<i2").astype(np.float32) / 32768


def sequences(n_mels):
    """Random features of several lengths (ragged ones included) and real speech, normalised per utterance."""
    g = np.random.default_rng(11)
    seqs = [g.standard_normal((n, n_mels)).astype(np.float32) * 1.3 + np.linspace(-1, 1, n_mels, dtype=np.float32)
            for n in (4, 37, 161, 402, 1003)]
    mel = LogMel({**FEATURES, "normalize": "per_utterance"})
    audio = os.path.join(ROOT, "test", "fixtures", "audio")
    speech = read_wav(os.path.join(audio, "speech-am.wav"))
    seqs.append(mel(speech))
    seqs.append(mel(speech[: 16000 * 3 + 4321]))  # a 3.27 s turn
    seqs.append(mel(read_flac(os.path.join(audio, "segment-types-am.flac"))[: 16000 * 12]))
    return seqs


def expected_shape(model_dir):
    """(config, the step graph's cache and tail shapes as the model's config says they must be): an
    ensemble folder's graph carries both members' caches (member a's config, every cache twice)."""
    members = 2 if "ensemble" in json.load(open(os.path.join(model_dir, "manifest.json"), encoding="utf-8")) else 1
    if members == 1:
        cfg = load_ctcnet(model_dir)[2]["config"]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            write_member(model_dir, "a", tmp)
            cfg = load_ctcnet(tmp)[2]["config"]
    right = cfg.get("right_context", cfg["kernel"] // 2)
    return cfg, {"dim": cfg["dim"], "subChannels": members * cfg["dim"], "blocks": members * cfg["blocks"],
                 "cacheFrames": cfg["kernel"] - 1, "delay": right * cfg["blocks"]}


def check(model_dir, seqs, label):
    """Streams `seqs` through model_dir's exported step graph against its model.onnx (module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        step_path = export(model_dir, os.path.join(tmp, "streaming.onnx"))
        cfg, meta = expected_shape(model_dir)
        right = cfg.get("right_context", cfg["kernel"] // 2)
        lengths = [len(s) for s in seqs]
        feats = np.zeros((len(seqs), max(lengths), cfg["n_mels"]), dtype=np.float32)
        for k, s in enumerate(seqs):
            feats[k, : len(s)] = s
        feats.tofile(os.path.join(tmp, "feats.bin"))
        plan = {"rows": len(seqs), "maxLen": max(lengths), "nMels": cfg["n_mels"], "lengths": lengths,
                "starts": [0, 1, 0, 3, 2, 0, 5, 1], "chunks": [48, 4, 20, 100, 8, 52, 200, 12]}
        json.dump(plan, open(os.path.join(tmp, "plan.json"), "w"))
        json.dump(meta, open(os.path.join(tmp, "meta.json"), "w"))
        r = run_node(DRIVER, os.path.join(model_dir, "model.onnx"), step_path, tmp)
    print(f"{label} (kernel {cfg['kernel']}, right context {right} x {cfg['blocks']} blocks: {meta['delay']} frames of tail): "
          f"{len(seqs)} streams, lengths {lengths} frames, {r['steps']} steps ({r['batchesMixed']} batches of rows at "
          f"different points, {r['ragged']} ragged last chunks)")
    w, p = r["whole"], r["prefix"]
    print(f"  whole streams (committed + last tail) vs model.onnx: max abs {w['worst']:.2e} (largest |logit| {w['scale']:.0f}), "
          f"argmax equal {w['same']}/{w['frames']}")
    print(f"  after each of {p['checks']} chunks (committed so far + tail) vs model.onnx on the prefix: max abs {p['worst']:.2e}, "
          f"argmax equal {p['same']}/{p['frames']}")
    assert w["checks"] == len(seqs) and w["frames"] == sum((n + 3) // 4 for n in lengths), r
    assert r["batchesMixed"] > 0 and r["ragged"] > 0, r
    for acc in (w, p):
        assert acc["excess"] < 1e-3 and acc["same"] > 0.999 * acc["frames"], r


def main():
    torch.set_num_threads(1)
    seqs = sequences(expected_shape(MODEL)[0]["n_mels"])
    check(MODEL, seqs, os.path.basename(os.path.normpath(MODEL)))
    # bounded right context (model.py): small random models exported as export.py does
    with tempfile.TemporaryDirectory() as tmp:
        for right in RIGHT_CONTEXTS:
            folder = os.path.join(tmp, f"right-{right}")
            net = small(right)
            export_model(net, torch.randn(2, 317, net.config["n_mels"]), torch.tensor([317, 200]), folder)
            check(folder, seqs, f"random model, right_context={right}")
    print("ok: the step graph equals the full model")


if __name__ == "__main__":
    main()
