"""Checks that onnx_weights.load_ctcnet (train.py --init-onnx) rebuilds the shipped model:
  1. the rebuilt torch model, exported again the way export.py does, has the same initializers,
     byte for byte, as the shipped model.onnx, and onnxruntime (the gateway's runtime,
     onnxruntime-node) gives bit-identical logits for both files on the same inputs;
  2. the rebuilt torch model's own logits match onnxruntime's on the shipped file (float
     rounding of two different kernels: max abs difference < 1e-3, same argmax on > 99.9% of frames).
Inputs: random log-mel-like rows of different lengths in one padded batch.
Run: /usr/bin/python3 training/asr/test_onnx_init.py [models/small-am-v2]"""
import os
import tempfile

from check_setup import MODEL, run_node  # first: one OpenBLAS thread, the import path
import numpy as np
import torch
from onnx_weights import load_ctcnet, read_onnx

# onnxruntime-node (the gateway's runtime): run one ONNX file on features.bin / lengths.bin
ORT = r"""
const fs = require('fs'); const ort = require('onnxruntime-node');
const [onnx, dir, B, T, F] = process.argv.slice(1); const b = +B, t = +T, f = +F;
(async () => {
  const s = await ort.InferenceSession.create(onnx, { intraOpNumThreads: 1, graphOptimizationLevel: 'disabled' });
  const read = (name) => { const b = fs.readFileSync(dir + name); return b.buffer.slice(b.byteOffset, b.byteOffset + b.length); };
  const x = new Float32Array(read('/features.bin'));
  const l = new BigInt64Array(read('/lengths.bin'));
  const out = await s.run({ features: new ort.Tensor('float32', x, [b, t, f]), lengths: new ort.Tensor('int64', l, [b]) });
  fs.writeFileSync(dir + '/logits.bin', Buffer.from(out.logits.data.buffer, out.logits.data.byteOffset, out.logits.data.byteLength));
  fs.writeFileSync(dir + '/out_lengths.bin', Buffer.from(out.out_lengths.data.buffer, out.out_lengths.data.byteOffset, out.out_lengths.data.byteLength));
  console.log(JSON.stringify(out.logits.dims));
})();
"""


def ort_logits(onnx_path, x, lengths, tmp):
    x.numpy().astype(np.float32).tofile(os.path.join(tmp, "features.bin"))
    lengths.numpy().astype(np.int64).tofile(os.path.join(tmp, "lengths.bin"))
    dims = run_node(ORT, onnx_path, tmp, *x.shape)
    logits = np.fromfile(os.path.join(tmp, "logits.bin"), dtype=np.float32).reshape(dims)
    out_len = np.fromfile(os.path.join(tmp, "out_lengths.bin"), dtype=np.int64)
    return logits, out_len


def main():
    torch.set_num_threads(1)
    model, tokens, info = load_ctcnet(MODEL)
    print(f"rebuilt {info['name']}: {info['config']}, {sum(p.numel() for p in model.parameters())} parameters")
    g = torch.Generator().manual_seed(7)
    lengths = torch.tensor([523, 301, 77, 12], dtype=torch.int64)
    x = torch.zeros(len(lengths), int(lengths.max()), info["config"]["n_mels"])
    for k, n in enumerate(lengths.tolist()):
        x[k, :n] = torch.randn(n, x.shape[2], generator=g) * 1.5 + torch.linspace(-1, 1, x.shape[2])
    with torch.no_grad():
        t_logits, t_len = model(x, lengths)
    shipped = os.path.join(MODEL, "model.onnx")
    with tempfile.TemporaryDirectory() as tmp:
        # 1. re-export (as export.py) and compare initializers and onnxruntime logits bit for bit
        again = os.path.join(tmp, "again.onnx")
        torch.onnx.export(model, (x, lengths), again, input_names=["features", "lengths"], output_names=["logits", "out_lengths"],
                          dynamic_axes={"features": {0: "batch", 1: "time"}, "lengths": {0: "batch"},
                                        "logits": {0: "batch", 1: "frames"}, "out_lengths": {0: "batch"}},
                          opset_version=13, do_constant_folding=True)
        a, _ = read_onnx(shipped)
        b, _ = read_onnx(again)
        sa = sorted((v.shape, v.tobytes()) for v in a.values())
        sb = sorted((v.shape, v.tobytes()) for v in b.values())
        assert len(sa) == len(sb), (len(sa), len(sb))
        differing = sum(1 for p, q in zip(sa, sb) if p != q)
        assert differing == 0, f"{differing} of {len(sa)} initializers differ from the shipped ones"
        print(f"ok: {len(sa)} initializers of the re-exported model equal the shipped ones byte for byte")
        o_logits, o_len = ort_logits(shipped, x, lengths, tmp)
        r_logits, r_len = ort_logits(again, x, lengths, tmp)
        assert np.array_equal(o_len, r_len) and np.array_equal(o_len, t_len.numpy()), (o_len, r_len, t_len)
        assert np.array_equal(o_logits, r_logits), float(np.max(np.abs(o_logits - r_logits)))
        print(f"ok: onnxruntime logits of shipped and rebuilt models are identical ({o_logits.shape})")
    # 2. torch vs onnxruntime on the valid frames
    worst, same, frames = 0.0, 0, 0
    for k, n in enumerate(o_len.tolist()):
        t = t_logits[k, :n].numpy()
        o = o_logits[k, :n]
        worst = max(worst, float(np.max(np.abs(t - o))))
        same += int((t.argmax(-1) == o.argmax(-1)).sum())
        frames += n
    print(f"torch vs onnxruntime: max abs logit difference {worst:.2e}, argmax equal on {same}/{frames} frames")
    assert worst < 1e-3 and same >= 0.999 * frames
    print("ok: rebuilt model equals the shipped ONNX")


if __name__ == "__main__":
    main()
