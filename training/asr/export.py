#!/usr/bin/env python3
"""Exports a checkpoint from train.py into a model folder the gateway loads
(docs/model-format.md): model.onnx, vocab.txt, manifest.json. The model card (README.md) is
written by write_card.py from the evaluation results.

ONNX contract: input `features` float32 [batch, time, 80] log-mel (the gateway computes them
from the manifest's `input` block, the same definition as common.LogMel) and `lengths` int64
[batch] (valid frames); outputs `logits` float32 [batch, frames, vocab] and `out_lengths` int64
[batch]; batch and time axes dynamic; rows are padding-invariant (the model masks every layer).
A checkpoint's config carries the blocks' right context where it is bounded (train.py
--right-context; model.py): the graph then cuts each depthwise Conv's output (a Slice), and
onnx_weights.py reads the right context back from the Conv pads.

--blank-bias D adds D to the CTC blank's output bias before export (a calibration of the acoustic
model: the blank then wins frames where the model was unsure, so non-speech yields fewer invented
letters; chosen on held-out val speakers with blank_bias.py). The card and export.json say so.

Usage: /usr/bin/python3 training/asr/export.py --run small-am-v1 --out models/small-am-v1 \
         --description "..."
"""
import argparse
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: BLAS threads too
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))  # common.py
from common import FEATURES  # noqa: E402
from model import CtcNet  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(os.path.dirname(HERE), "work")  # training/work (git-ignored)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True, help="work/runs/<run>/checkpoint.pt")
    ap.add_argument("--checkpoint", default="checkpoint")
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--description", required=True)
    ap.add_argument("--blank-bias", type=float, default=0.0, help="added to the blank's output bias (blank_bias.py)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    ck = torch.load(os.path.join(WORK, "runs", a.run, a.checkpoint + ".pt"))
    cfg = dict(ck["config"])
    model = CtcNet(**cfg)
    model.load_state_dict(ck["state"])
    model.eval()
    with torch.no_grad():
        model.out.bias[0] += a.blank_bias  # blank_id 0
    os.makedirs(a.out, exist_ok=True)
    x = torch.randn(2, 317, cfg["n_mels"])
    lengths = torch.tensor([317, 200], dtype=torch.int64)
    torch.onnx.export(
        model, (x, lengths), os.path.join(a.out, "model.onnx"),
        input_names=["features", "lengths"], output_names=["logits", "out_lengths"],
        dynamic_axes={"features": {0: "batch", 1: "time"}, "lengths": {0: "batch"},
                      "logits": {0: "batch", 1: "frames"}, "out_lengths": {0: "batch"}},
        opset_version=13, do_constant_folding=True)
    tokens = ck["tokens"]
    with open(os.path.join(a.out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(tokens) + "\n")
    lang = ck["lang"]
    punct = lang == "ti" and not ck["strip_punct"]
    manifest = {
        "schema_version": 1,
        "name": a.name or os.path.basename(os.path.normpath(a.out)),
        "language": lang,
        "description": a.description,
        "onnx": "model.onnx",
        "input": FEATURES,
        "io": {"audio": "features", "lengths": "lengths", "logits": "logits", "out_lengths": "out_lengths"},
        "frame_stride_samples": FEATURES["hop_length"] * 4,
        "vocabulary": "vocab.txt",
        "blank_id": 0,
        "word_delimiter": "|",
        "output": {"script": "latin" if lang == "om" else "ethiopic",
                   "casing": "true_case" if lang == "om" else "none",
                   "punctuation": punct},
        "decoding": {"default": "greedy", "beam_width": 8},
    }
    with open(os.path.join(a.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
        f.write("\n")
    info = {"run": a.run, "checkpoint": a.checkpoint, "step": ck["step"], "epoch": ck["epoch"],
            "train_minutes": round(ck["train_minutes"], 1), "params": ck["params"], "hours": round(ck["hours"], 2),
            "args": ck["args"], "config": cfg, "vocab_size": len(tokens), "units": ck.get("units", "syllable"),
            "blank_bias": a.blank_bias, **({"averaged": ck["averaged"]} if "averaged" in ck else {})}
    with open(os.path.join(WORK, "runs", a.run, "export.json"), "w") as f:
        json.dump(info, f, indent=2)
    size = os.path.getsize(os.path.join(a.out, "model.onnx"))
    print(json.dumps({"out": a.out, "onnx_bytes": size, "right_context": cfg.get("right_context"), "blank_bias": a.blank_bias,
                      **{k: info[k] for k in ("step", "train_minutes", "params", "vocab_size")}}))


if __name__ == "__main__":
    main()
