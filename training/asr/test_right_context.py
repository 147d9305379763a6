"""Checks model.py's bounded right context (issue 30) on a small random CtcNet, CPU only:
  - look-ahead: with right_context r, changing input after output frame t's horizon leaves output
    frames up to t - r x blocks unchanged; the symmetric model is changed further back;
  - padding invariance: a row's logits do not depend on the padding its batch adds;
  - realign_taps keeps each tap's frame offset (v2's -6..+6 to r = 1's -11..+1 and back);
  - ONNX round trip: exported as export.py does, onnx_weights rebuilds the same config (right
    context read from the Conv pads) and the same logits; a symmetric export rebuilds without it.
Run: /usr/bin/python3 training/asr/test_right_context.py"""
import os
import tempfile

from check_setup import HERE  # noqa: F401  first: one OpenBLAS thread, the import path
import torch
from model import CtcNet, realign_taps, tap_offsets
from onnx_weights import load_ctcnet

BLOCKS, R = 3, 1


def small(right_context):
    torch.manual_seed(0)
    m = CtcNet(20, dim=16, blocks=BLOCKS, kernel=13, dropout=0.0, right_context=right_context).eval()
    for b in m.blocks:  # non-trivial statistics (identical ones export as shared initializers)
        b.bn.running_mean.uniform_(-0.1, 0.1)
        b.bn.running_var.uniform_(0.5, 2.0)
        b.bn.weight.data.uniform_(0.5, 2.0)
        b.bn.bias.data.uniform_(-0.1, 0.1)
    return m


def first_changed(m, x, lengths, from_input):
    y0, _ = m(x, lengths)
    x2 = x.clone()
    x2[:, from_input:] = torch.randn(x.shape[0], x.shape[1] - from_input, x.shape[2])
    y1, _ = m(x2, lengths)
    return int(((y0 - y1).abs().amax(-1)[0] > 0).nonzero()[0])


def export(m, x, lengths, folder):
    os.makedirs(folder)
    torch.onnx.export(m, (x, lengths), os.path.join(folder, "model.onnx"), input_names=["features", "lengths"],
                      output_names=["logits", "out_lengths"],
                      dynamic_axes={"features": {0: "batch", 1: "time"}, "lengths": {0: "batch"},
                                    "logits": {0: "batch", 1: "frames"}, "out_lengths": {0: "batch"}},
                      opset_version=13, do_constant_folding=True)
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(["<blank>", "|"] + [chr(0x1200 + i) for i in range(18)]) + "\n")
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        f.write('{"name": "test"}\n')


def main():
    torch.set_num_threads(1)
    x = torch.randn(1, 200, 80)
    lengths = torch.tensor([200])
    stream, symmetric = small(R), small(None)
    # input frame 120 is output frame 30 (4x subsampling); r x blocks frames of look-ahead
    got = first_changed(stream, x, lengths, 120)
    assert got == 30 - R * BLOCKS, got
    assert first_changed(symmetric, x, lengths, 120) < 30 - R * BLOCKS
    print(f"ok: right context {R} x {BLOCKS} blocks: output changes from frame {got} on (input changed from output frame 30)")

    batch = torch.zeros(2, 260, 80)
    batch[0, :200] = x[0]
    batch[1] = torch.randn(260, 80)
    yb, _ = stream(batch, torch.tensor([200, 260]))
    diff = float((yb[0, :50] - stream(x, lengths)[0][0]).abs().max())
    assert diff < 1e-5, diff
    print(f"ok: padding-invariant (max abs difference {diff:.1e})")

    assert tap_offsets(13, None) == list(range(-6, 7)) and tap_offsets(13, 1) == list(range(-11, 2))
    w = torch.arange(1.0, 14.0).view(1, 1, 13)  # offsets -6..+6 carry 1..13
    moved = realign_taps(w, None, 1)
    assert moved[0, 0].tolist() == [0.0] * 5 + [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], moved
    back = realign_taps(moved, 1, None)
    assert back[0, 0].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0] + [0.0] * 5, back
    print("ok: realign_taps keeps frame offsets -6..+1, zero elsewhere")

    with tempfile.TemporaryDirectory() as tmp:
        for name, m in (("stream", stream), ("symmetric", symmetric)):
            export(m, x, lengths, os.path.join(tmp, name))
            rebuilt, _, info = load_ctcnet(os.path.join(tmp, name))
            assert info["config"] == {**m.config, "dropout": 0.0}, (info["config"], m.config)
            d = float((rebuilt(batch, torch.tensor([200, 260]))[0] - m(batch, torch.tensor([200, 260]))[0]).abs().max())
            assert d < 1e-5, d
            print(f"ok: {name} model rebuilt from ONNX: config {info['config'].get('right_context')}, max abs difference {d:.1e}")


if __name__ == "__main__":
    main()
