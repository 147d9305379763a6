#!/usr/bin/env python3
"""Weight-space interpolation between a shipped model and a model fine-tuned from it (WiSE-FT,
Wortsman et al. 2022): theta(w) = (1 - w) * shipped + w * fine-tuned, every float tensor (BatchNorm
running statistics included; both come from the same weights, train.py --init-onnx). Fine-tuning
for robustness (non-speech with empty targets, telephone calls) can cost the shipped model some
accuracy on clean speech; a point between the two can keep most of both.

Each w of --weights is scored on the validation sets only: greedy CER on --select (all of it) and
invented letters per minute on --nonspeech (train.py's evaluate). The pick: the largest w whose
greedy CER on --select is at most --tolerance (CER points) above the shipped model's (w = 0), so
the most of the fine-tuning that the validation speakers say costs nothing; the test groups are
never looked at. Writes work/runs/<out>/best.pt in train.py's checkpoint format (export.py reads
it) with an "interpolation" record, and prints every w's figures.

Usage: nice -n 19 /usr/bin/python3 training/asr/interpolate.py --shipped models/small-am-v2 \
         --run small-am-v3 --out small-am-v3-wise --weights 0,0.3,0.5,0.6,0.7,0.8,0.9,1
"""
import argparse
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from onnx_weights import load_ctcnet  # noqa: E402
from train import WORK, eval_norm, evaluate, load, target_text  # noqa: E402
from weight_average import mean_state  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shipped", required=True, help="model folder the run was fine-tuned from (--init-onnx)")
    ap.add_argument("--run", required=True, help="work/runs/<run>/<checkpoint>.pt")
    ap.add_argument("--checkpoint", default="best")
    ap.add_argument("--out", required=True, help="work/runs/<out>/best.pt")
    ap.add_argument("--weights", default="0,0.3,0.5,0.6,0.7,0.8,0.9,1")
    ap.add_argument("--select", default="alffa_spk_val")
    ap.add_argument("--nonspeech", default="nonspeech_val")
    ap.add_argument("--tolerance", type=float, default=0.3, help="CER points over the shipped model on --select")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    weights = [float(x) for x in a.weights.split(",")]
    if 0.0 not in weights:
        raise SystemExit("--weights must include 0 (the shipped model, the reference)")
    shipped, tokens, _ = load_ctcnet(a.shipped)
    ck = torch.load(os.path.join(WORK, "runs", a.run, a.checkpoint + ".pt"))
    if ck["tokens"] != tokens:
        raise SystemExit("vocabularies differ")
    base = shipped.state_dict()
    tuned = ck["state"]
    sel = load(a.select)
    sel = {"feats": sel["feats"], "texts": [target_text(t, ck["strip_punct"]) for t in sel["texts"]], "nonspeech": False,
           "norm": eval_norm(sel)}
    ns = load(a.nonspeech)
    ns = {"feats": ns["feats"], "texts": ns["texts"], "nonspeech": True, "norm": eval_norm(ns)}
    rows = []
    for w in weights:
        state = mean_state([base, tuned], [1 - w, w])
        shipped.load_state_dict(state)
        c, _ = evaluate(shipped, sel, tokens, ck["lang"], limit=100000, units=ck.get("units", "syllable"), train_mode=shipped.eval)
        lpm, _ = evaluate(shipped, ns, tokens, ck["lang"], limit=100000, units=ck.get("units", "syllable"), train_mode=shipped.eval)
        rows.append({"w": w, "cer": round(c, 4), "letters_per_min": round(lpm, 2), "state": state})
        print(json.dumps({"w": w, a.select + "_greedy_cer": round(c, 4), a.nonspeech + "_letters_per_min": round(lpm, 2)}), flush=True)
    ref = next(r["cer"] for r in rows if r["w"] == 0.0)
    ok = [r for r in rows if r["cer"] <= ref + a.tolerance / 100 + 1e-9]
    pick = max(ok, key=lambda r: r["w"])
    out = dict(ck)
    out["state"] = pick["state"]
    out["interpolation"] = {"shipped": a.shipped, "run": a.run, "checkpoint": a.checkpoint, "w": pick["w"], "tolerance": a.tolerance,
                            "select": a.select, "nonspeech": a.nonspeech,
                            "grid": [{k: r[k] for k in ("w", "cer", "letters_per_min")} for r in rows]}
    os.makedirs(os.path.join(WORK, "runs", a.out), exist_ok=True)
    torch.save(out, os.path.join(WORK, "runs", a.out, "best.pt"))
    with open(os.path.join(WORK, "runs", a.out, "log.jsonl"), "w") as f:
        f.write(json.dumps({"event": "interpolation", **out["interpolation"]}) + "\n")
    print(json.dumps({"pick": pick["w"], "cer": pick["cer"], "letters_per_min": pick["letters_per_min"], "shipped_cer": ref}), flush=True)


if __name__ == "__main__":
    main()
