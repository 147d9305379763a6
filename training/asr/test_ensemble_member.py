"""Checks ensemble.py --member (taking a member back out of a shipped ensemble, so that training can
resume from it: train.py --init-onnx):
  1. member a of small-am-v3-ensemble has small-am-v2's initializers byte for byte;
  2. onnxruntime-node (the gateway's runtime) on the ensemble gives w * log_softmax(A) +
     (1 - w) * log_softmax(B) of the two members taken out, on the same inputs (float rounding only),
     and the same out_lengths;
  3. onnx_weights.load_ctcnet rebuilds member b (what --init-onnx reads);
  4. joining the two members again (ensemble.py A B OUT, the manifest's weight and mean) writes the
     shipped model.onnx byte for byte, and with --blank-bias D its logits are those plus D on the blank.
Run: /usr/bin/python3 training/asr/test_ensemble_member.py [models/small-am-v3-ensemble|models/small-am-v4-ensemble]"""
import json
import os
import subprocess
import sys
import tempfile

from check_setup import ROOT  # first: one OpenBLAS thread, the import path
import numpy as np
import torch
from onnx_weights import load_ctcnet, read_onnx
from test_onnx_init import ort_logits

ENSEMBLE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "models", "small-am-v3-ensemble")
ENSEMBLE_PY = [sys.executable, os.path.join(ROOT, "training", "asr", "ensemble.py")]


def log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def main():
    manifest = json.load(open(os.path.join(ENSEMBLE, "manifest.json"), encoding="utf-8"))
    w = manifest["ensemble"]["weights"][0]
    assert manifest["ensemble"]["mean"] == "geometric", "this check is written for the geometric mean"
    g = torch.Generator().manual_seed(5)
    lengths = torch.tensor([411, 160, 33], dtype=torch.int64)
    x = torch.zeros(len(lengths), int(lengths.max()), manifest["input"]["n_mels"])
    for k, n in enumerate(lengths.tolist()):
        x[k, :n] = torch.randn(n, x.shape[2], generator=g) * 1.5 + torch.linspace(-1, 1, x.shape[2])
    with tempfile.TemporaryDirectory() as tmp:
        folders = {}
        for m in "ab":
            folders[m] = os.path.join(tmp, m)
            subprocess.run(ENSEMBLE_PY + ["--member", m, ENSEMBLE, folders[m]], check=True, capture_output=True)
            # the member folder loads in the gateway as it is: every file its manifest names is there
            named = json.load(open(os.path.join(folders[m], "manifest.json"), encoding="utf-8"))
            for key in ("onnx", "confidence_calibration"):
                assert key not in named or os.path.exists(os.path.join(folders[m], named[key])), f"member {m}: {key} names a missing file"
        # 1. member a is small-am-v2 as shipped
        first = json.load(open(os.path.join(folders["a"], "manifest.json"), encoding="utf-8"))["name"]
        shipped, _ = read_onnx(os.path.join(ROOT, "models", first, "model.onnx"))
        taken, _ = read_onnx(os.path.join(folders["a"], "model.onnx"))
        assert sorted((v.shape, v.tobytes()) for v in shipped.values()) == sorted((v.shape, v.tobytes()) for v in taken.values()), \
            f"member a's initializers differ from models/{first}'s"
        print(f"ok: member a has models/{first}'s {len(shipped)} initializers byte for byte")
        # 2. the ensemble's logits are the members' weighted log-posteriors
        e_logits, e_len = ort_logits(os.path.join(ENSEMBLE, "model.onnx"), x, lengths, tmp)
        a_logits, a_len = ort_logits(os.path.join(folders["a"], "model.onnx"), x, lengths, tmp)
        b_logits, b_len = ort_logits(os.path.join(folders["b"], "model.onnx"), x, lengths, tmp)
        assert np.array_equal(e_len, a_len) and np.array_equal(e_len, b_len), (e_len, a_len, b_len)
        mixed = w * log_softmax(a_logits) + (1 - w) * log_softmax(b_logits)
        worst = max(float(np.max(np.abs(e_logits[k, :n] - mixed[k, :n]))) for k, n in enumerate(e_len.tolist()))
        print(f"ensemble vs its members joined again: max abs difference {worst:.2e}")
        assert worst < 1e-4, worst
        assert float(np.max(np.abs(a_logits - b_logits))) > 0.1, "the two members are the same model"
        # 3. member b rebuilds as a CtcNet
        model, tokens, info = load_ctcnet(folders["b"])
        print(f"ok: member b rebuilt ({info['config']}, {sum(p.numel() for p in model.parameters())} parameters)")
        # 4. the members joined again
        join = ENSEMBLE_PY + [folders["a"], folders["b"]]
        args = ["--weight", str(w), "--mean", manifest["ensemble"]["mean"], "--name", "n", "--description", "d"]
        again = os.path.join(tmp, "again")
        subprocess.run(join + [again] + args + ["--blank-bias", str(manifest["ensemble"].get("blank_bias", 0))],
                       check=True, capture_output=True)
        with open(os.path.join(again, "model.onnx"), "rb") as f, open(os.path.join(ENSEMBLE, "model.onnx"), "rb") as g:
            assert f.read() == g.read(), "the members joined again differ from the shipped ensemble"
        print("ok: the members joined again give the shipped model.onnx byte for byte")
        biased = os.path.join(tmp, "biased")
        subprocess.run(join + [biased] + args + ["--blank-bias", "1.5"], check=True, capture_output=True)
        bias_logits, _ = ort_logits(os.path.join(biased, "model.onnx"), x, lengths, tmp)
        shift = bias_logits - mixed
        blank = manifest["blank_id"]
        assert np.allclose(shift[..., blank], 1.5, atol=1e-4) and np.allclose(np.delete(shift, blank, -1), 0, atol=1e-4)
        print("ok: --blank-bias 1.5 adds 1.5 to the blank's logit only")


if __name__ == "__main__":
    main()
