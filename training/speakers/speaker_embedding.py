#!/usr/bin/python3
"""Trains the diarization speaker-embedding network (issue 29) and exports it in the layout WeSpeaker
publishes for sherpa-onnx, which the gateway serves (DIARIZATION_EMBEDDING_MODEL,
src/engines/diarization/speaker-embedding-model.ts): input `feats` float32 [N, T, 80] (Kaldi fbank,
int16 sample scale, the mean over the window removed by the gateway: metadata
`normalize_samples` 0, `feature_normalize_type` global-mean), output `embs` float32 [N, 128].

Data: speaker-fbank.ts frames (the gateway's own fbank, speech frames only). Training speakers are
every group of the `--train` frames; `--dev` frames (other speakers, through random channels) pick
the checkpoint by equal error rate on 1.5 s windows; the held-out speakers are only read by `eval`.

Network: a TDNN (x-vector shape, small): 5 frame layers (256 channels, kernels 5/3/3/1/1,
dilations 1/2/3/1/1, the last 768 wide), mean and standard deviation pooling over time, a linear
embedding of 128. Loss: additive angular margin softmax over the training speakers (scale 30,
margin rising from 0 to 0.2 over the first fifth of the run). Batches: random speakers, a random
utterance of each, a random crop of 1-2 s (one length per batch), the crop's mean removed (as the
gateway removes each window's), half of them under noise added in the power domain (5-30 dB under
the crop's median band, a random spectral tilt), one frequency and one time mask; dropout 0.2 on
the pooled statistics. The run is budgeted in minutes
(`--minutes`): the learning rate follows a cosine over the budget, so a run ends on time.

Usage:
  speaker_embedding.py train --train PREFIX --dev PREFIX --out DIR [--minutes 60] [--threads 2] [--seed 1]
  speaker_embedding.py eval --checkpoint DIR/best.pt --data PREFIX [--windows 150,300]
  speaker_embedding.py export --checkpoint DIR/best.pt --out FILE.onnx
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tiny_export import append_onnx_metadata  # noqa: E402

BINS = 80


class SpeakerNet(nn.Module):
    def __init__(self, channels=256, dim=128):
        super().__init__()
        c = channels
        spec = [(BINS, c, 5, 1), (c, c, 3, 2), (c, c, 3, 3), (c, c, 1, 1), (c, 3 * c, 1, 1)]
        layers = []
        for cin, cout, k, d in spec:
            layers += [nn.Conv1d(cin, cout, k, dilation=d, padding=d * (k - 1) // 2), nn.ReLU(), nn.BatchNorm1d(cout)]
        self.frames = nn.Sequential(*layers)
        self.dropout = nn.Dropout(0.2)
        self.embed = nn.Linear(6 * c, dim)
        self.config = {"channels": channels, "dim": dim}

    def forward(self, feats):
        h = self.frames(feats.transpose(1, 2))
        mean = h.mean(dim=2)
        std = torch.sqrt(((h - mean.unsqueeze(2)) ** 2).mean(dim=2) + 1e-5)
        return self.embed(self.dropout(torch.cat([mean, std], dim=1)))


def with_noise(x, rng):
    """Noise added in the fbank's power domain (the crop's values are log mel powers, mean removed:
    adding to them is a gain, which the mean removal takes out again): a floor `snr` dB (5-30) under
    the crop's median band power, coloured by a random tilt across the bands, fluctuating per frame."""
    power = np.exp(x - x.max())
    snr = rng.uniform(5, 30)
    tilt = rng.uniform(-1.5, 1.5) * (np.arange(BINS) / (BINS - 1) - 0.5)
    floor = np.median(power) * 10 ** (-snr / 10) * 10 ** tilt
    noise = floor[None, :] * rng.exponential(1.0, size=x.shape)
    y = np.log(power + noise).astype(np.float32)
    return y - y.mean(axis=0, keepdims=True)


class Frames:
    """speaker-fbank.ts outputs (PREFIX or PREFIX,PREFIX...: float32 [frames, 80] and the utterance tables), as one set."""

    def __init__(self, prefixes):
        self.parts, self.utterances = [], []
        for part, prefix in enumerate(prefixes.split(",")):
            meta = json.load(open(prefix + ".json"))
            assert meta["dim"] == BINS
            self.parts.append(np.memmap(prefix + ".bin", dtype=np.float32, mode="r").reshape(-1, BINS))
            self.utterances += [{**u, "part": part} for u in meta["utterances"] if u["frames"] > 0]
        self.frames = sum(len(p) for p in self.parts)
        self.groups = sorted({u["group"] for u in self.utterances})
        by = {g: [] for g in self.groups}
        for u in self.utterances:
            by[u["group"]].append(u)
        self.by_group = by

    def crop(self, u, length, rng):
        """`length` frames from utterance u (repeated when shorter), mean removed."""
        x = self.parts[u["part"]][u["start"]:u["start"] + u["frames"]]
        if u["frames"] < length:
            x = np.tile(x, (math.ceil(length / u["frames"]), 1))[:length]
        else:
            at = rng.integers(0, u["frames"] - length + 1)
            x = x[at:at + length]
        x = np.asarray(x, dtype=np.float32)
        return x - x.mean(axis=0, keepdims=True)

    def windows(self, length, per_utterance=2):
        """Non-overlapping windows of `length` frames (at most `per_utterance` from each utterance,
        a shorter utterance whole), mean removed; returns (windows, group labels)."""
        out, labels = [], []
        for u in self.utterances:
            x = np.asarray(self.parts[u["part"]][u["start"]:u["start"] + u["frames"]], dtype=np.float32)
            starts = list(range(0, max(1, u["frames"] - length + 1), length))[:per_utterance]
            for s in starts:
                w = x[s:s + length]
                if len(w) < 50:
                    continue
                out.append(w - w.mean(axis=0, keepdims=True))
                labels.append(u["group"])
        return out, labels


def embed_all(net, windows):
    net.eval()
    with torch.no_grad():
        by_len = {}
        for i, w in enumerate(windows):
            by_len.setdefault(len(w), []).append(i)
        out = [None] * len(windows)
        for length, idx in by_len.items():
            for a in range(0, len(idx), 64):
                part = idx[a:a + 64]
                e = net(torch.from_numpy(np.stack([windows[i] for i in part])))
                for i, v in zip(part, e):
                    out[i] = v
        embs = torch.stack(out)
    return torch.nn.functional.normalize(embs, dim=1)


def equal_error_rate(embs, labels, centre=False):
    """EER of cosine scores over all pairs of windows (same speaker or not); `centre`: the set's mean
    embedding removed first (as speaker_ivector.py scores i-vectors)."""
    if centre:
        embs = torch.nn.functional.normalize(embs - embs.mean(0, keepdim=True), dim=1)
    s = (embs @ embs.T).numpy()
    lab = np.array(labels)
    same = lab[:, None] == lab[None, :]
    iu = np.triu_indices(len(lab), 1)
    scores, target = s[iu], same[iu]
    order = np.argsort(-scores)
    t = target[order]
    tp = np.cumsum(t) / max(1, t.sum())
    fp = np.cumsum(~t) / max(1, (~t).sum())
    fnr = 1 - tp
    i = np.argmin(np.abs(fnr - fp))
    return float((fnr[i] + fp[i]) / 2)


def evaluate(net, frames, lengths):
    out = {}
    for length in lengths:
        windows, labels = frames.windows(length)
        embs = embed_all(net, windows)
        out[length] = {"eer": equal_error_rate(embs, labels), "eer_centred": equal_error_rate(embs, labels, True), "windows": len(windows), "speakers": len(set(labels))}
    return out


def train(a):
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    torch.set_num_threads(a.threads)
    tr, dev = Frames(a.train), Frames(a.dev)
    speakers = tr.groups
    print(f"train: {len(speakers)} speakers, {len(tr.utterances)} utterances, {tr.frames} frames; dev: {len(dev.groups)} speakers", flush=True)
    net = SpeakerNet()
    weight = nn.Parameter(torch.randn(len(speakers), net.config["dim"]) * 0.01)
    if a.init:  # continue a run: its network and speaker weights (the same training speakers)
        ck = torch.load(a.init)
        net.load_state_dict(ck["state"])
        if "speakers" in ck and ck["speakers"] == speakers:
            weight.data.copy_(ck["weight"])
    opt = torch.optim.AdamW(list(net.parameters()) + [weight], lr=a.lr, weight_decay=1e-4)
    os.makedirs(a.out, exist_ok=True)
    budget = a.minutes * 60
    started = time.time()
    step, best, seen_s, history = 0, None, 0.0, []
    next_eval = a.eval_minutes * 60

    def keep_if_best(eer):
        nonlocal best
        if best is None or eer < best:
            best = eer
            torch.save({"state": net.state_dict(), "config": net.config, "step": step, "speakers": speakers, "weight": weight.data}, os.path.join(a.out, "best.pt"))

    while True:
        frac = (time.time() - started) / budget
        if frac >= 1:
            break
        lr = a.lr * (min(1.0, (step + 1) / 200)) * 0.5 * (1 + math.cos(math.pi * frac))
        for g in opt.param_groups:
            g["lr"] = lr
        margin = 0.2 * min(1.0, frac / 0.2)
        length = int(rng.integers(100, 201))
        labels = rng.integers(0, len(speakers), a.batch)
        batch = np.stack([tr.crop(tr.by_group[speakers[s]][rng.integers(0, len(tr.by_group[speakers[s]]))], length, rng) for s in labels])
        for i in range(len(batch)):  # half the crops under extra noise
            if rng.random() < 0.5:
                batch[i] = with_noise(batch[i], rng)
        for row in batch:  # one frequency mask (up to 8 bins) and one time mask (up to 10 frames)
            f = rng.integers(0, 9)
            f0 = rng.integers(0, BINS - f + 1)
            row[:, f0:f0 + f] = 0
            t = rng.integers(0, 11)
            t0 = rng.integers(0, length - t + 1)
            row[t0:t0 + t] = 0
        net.train()
        emb = torch.nn.functional.normalize(net(torch.from_numpy(batch)), dim=1)
        cos = emb @ torch.nn.functional.normalize(weight, dim=1).T
        y = torch.from_numpy(labels)
        theta = torch.acos(cos.gather(1, y[:, None]).clamp(-1 + 1e-6, 1 - 1e-6))
        logits = cos.scatter(1, y[:, None], torch.cos(theta + margin))
        loss = nn.functional.cross_entropy(30 * logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        seen_s += a.batch * length / 100
        if step % 50 == 0:
            acc = float((cos.argmax(1) == y).float().mean())
            print(f"step {step} {time.time() - started:.0f}s lr {lr:.2e} margin {margin:.2f} loss {loss.item():.3f} acc {acc:.2f}", flush=True)
        elapsed = time.time() - started
        if elapsed >= next_eval or elapsed >= budget:
            next_eval += a.eval_minutes * 60
            r = evaluate(net, dev, [150])
            history.append({"step": step, "seconds": round(elapsed), "dev_eer_150": r[150]["eer"]})
            print(f"dev EER (1.5 s windows) {r[150]['eer']:.4f} at step {step}", flush=True)
            keep_if_best(r[150]["eer"])
    r = evaluate(net, dev, [150])
    history.append({"step": step, "seconds": round(time.time() - started), "dev_eer_150": r[150]["eer"]})
    keep_if_best(r[150]["eer"])
    summary = {"steps": step, "minutes": a.minutes, "threads": a.threads, "audio_hours_seen": round(seen_s / 3600, 1),
               "train_speakers": len(speakers), "train_utterances": len(tr.utterances), "best_dev_eer_150": best, "history": history}
    json.dump(summary, open(os.path.join(a.out, "training.json"), "w"), indent=1)
    print(json.dumps(summary), flush=True)


def load(path):
    ck = torch.load(path)
    net = SpeakerNet(**ck["config"])
    net.load_state_dict(ck["state"])
    return net.eval()


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--train", required=True)
    t.add_argument("--dev", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--minutes", type=float, default=60)
    t.add_argument("--eval-minutes", type=float, default=8)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--batch", type=int, default=96)
    t.add_argument("--lr", type=float, default=2e-3)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--init", default="", help="a checkpoint to continue from")
    e = sub.add_parser("eval")
    e.add_argument("--checkpoint", required=True)
    e.add_argument("--data", required=True)
    e.add_argument("--windows", default="150,300")
    x = sub.add_parser("export")
    x.add_argument("--checkpoint", required=True)
    x.add_argument("--out", required=True)
    x.add_argument("--comment", default="")
    a = ap.parse_args()
    if a.cmd == "train":
        train(a)
    elif a.cmd == "eval":
        torch.set_num_threads(2)
        print(json.dumps(evaluate(load(a.checkpoint), Frames(a.data), [int(w) for w in a.windows.split(",")])))
    else:
        net = load(a.checkpoint)
        torch.onnx.export(net, (torch.randn(1, 150, BINS),), a.out, opset_version=14, input_names=["feats"], output_names=["embs"],
                          dynamic_axes={"feats": {0: "N", 1: "T"}, "embs": {0: "N"}})
        append_onnx_metadata(a.out, {"framework": "wespeaker", "sample_rate": "16000", "output_dim": str(net.config["dim"]),
                                     "normalize_samples": "0", "feature_normalize_type": "global-mean",
                                     "language": "multilingual", "comment": a.comment})
        print(f"{a.out}: {sum(p.numel() for p in net.parameters())} parameters")


if __name__ == "__main__":
    main()
