#!/usr/bin/env python3
"""Chooses a blank-bias calibration for a CTC acoustic model (export.py --blank-bias): D added to the
blank's logit on every frame, so the blank wins the frames where the model was unsure. On non-speech
that removes invented letters; on speech, past some D, it deletes letters. For each D of the grid this
prints, greedy (as train.py validates): CER on the val speaker groups (alffa_spk_val; --val and --lang
for another set and language, e.g. synth_om_val, om) and invented
letters a minute on nonspeech_val (prepare_nonspeech.py; its own seed, room tone of the val groups).
Chosen: the D with the fewest letters a minute among those whose val CER is at most the unbiased
model's plus --tolerance points (ties: the smaller D). Only val sets are read: test groups and the
robustness benchmark's clips stay for the report. The logits are computed once per utterance, the
bias added after (the same as baking it into the output layer). With --stream-stats (work sets stored
raw) every figure is the mean of the per-utterance (REST) and the running (live stream) normalisation,
both also listed.

An ensemble folder (--model models/small-am-v5-ensemble) is scored as its model.onnx joins its members;
its chosen D goes to ensemble.py --blank-bias.

Usage: /usr/bin/python3 training/asr/blank_bias.py --run small-am-stream-v3 [--checkpoint best] | --model models/NAME
         [--grid 0,0.5,1,1.5,2,2.5,3] [--tolerance 0.25] [--stream-stats FILE] [--val SET --lang om|ti] [--out FILE.json]"""
import argparse
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from common import cer, from_units  # noqa: E402
from model import CtcNet  # noqa: E402
import feature_norm  # noqa: E402
import train as T  # noqa: E402


class EnsembleNet(torch.nn.Module):
    """An ensemble folder's members (ensemble.py) joined as its model.onnx joins them: the weighted
    geometric mean of their posteriors, w * log_softmax(A) + (1 - w) * log_softmax(B), plus any blank
    bias already in the manifest."""

    def __init__(self, members, weights, blank_bias):
        super().__init__()
        self.members = torch.nn.ModuleList(members)
        self.weights, self.blank_bias = weights, blank_bias

    def forward(self, feats, lengths):
        outs = [m(feats, lengths) for m in self.members]
        logits = sum(w * torch.log_softmax(lg, -1) for w, (lg, _) in zip(self.weights, outs))
        logits[..., 0] += self.blank_bias
        return logits, outs[0][1]


def load_model(a):
    if a.model:
        from onnx_weights import load_ctcnet
        manifest = json.load(open(os.path.join(a.model, "manifest.json"), encoding="utf-8"))
        if "ensemble" in manifest:  # members taken out (ensemble.write_member), joined again here
            import tempfile
            from ensemble import write_member
            e = manifest["ensemble"]
            if e.get("mean", "geometric") != "geometric":
                raise SystemExit("blank_bias.py joins geometric-mean ensembles only")
            with tempfile.TemporaryDirectory() as tmp:
                members = []
                for letter in "ab":
                    write_member(a.model, letter, os.path.join(tmp, letter))
                    member, tokens, _ = load_ctcnet(os.path.join(tmp, letter))
                    members.append(member.eval())
            return EnsembleNet(members, e["weights"], e.get("blank_bias", 0.0)).eval(), tokens, "syllable"
        model, tokens, _ = load_ctcnet(a.model)
        return model, tokens, "syllable"
    ck = torch.load(os.path.join(T.WORK, "runs", a.run, a.checkpoint + ".pt"))
    model = CtcNet(**ck["config"])
    model.load_state_dict(ck["state"])
    return model.eval(), ck["tokens"], ck.get("units", "syllable")


def decode(logits, bias, tokens, units):
    hyps = []
    for lg in logits:
        shifted = lg.clone()
        shifted[:, 0] += bias
        hyps.append(from_units(T.greedy(shifted, shifted.shape[0], tokens), units))
    return hyps


def choose(rows, tolerance):
    """rows: [{bias, val_cer, letters_per_min}] with bias 0 first. The fewest letters a minute among
    rows within `tolerance` (CER points) of the unbiased val CER; ties go to the smaller bias."""
    limit = rows[0]["val_cer"] + tolerance / 100
    ok = [r for r in rows if r["val_cer"] <= limit + 1e-12]
    return min(ok, key=lambda r: (r["letters_per_min"], r["bias"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run")
    ap.add_argument("--checkpoint", default="best")
    ap.add_argument("--model")
    ap.add_argument("--grid", default="0,0.25,0.5,0.75,1,1.25,1.5,2,2.5,3")
    ap.add_argument("--tolerance", type=float, default=0.25, help="CER points the calibration may cost on val")
    ap.add_argument("--stream-stats", help="also score the val sets running-normalised with this stream-stats.json; "
                    "the figures chosen on are then the means of both normalisations")
    ap.add_argument("--val", default="alffa_spk_val", help="the validation speech set (synth_<lang>_val for om and ti)")
    ap.add_argument("--lang", default="am", choices=["am", "om", "ti"], help="scoring form of the CER")
    ap.add_argument("--out")
    a = ap.parse_args()
    if bool(a.run) == bool(a.model):
        raise SystemExit("give --run or --model")
    torch.set_num_threads(1)
    grid = [float(x) for x in a.grid.split(",")]
    if grid[0] != 0:
        grid = [0.0] + grid
    model, tokens, units = load_model(a)
    val, nonspeech = T.load(a.val), T.load("nonspeech_val")
    texts = [T.target_text(t, False) for t in val["texts"]]
    norms = {"per_utterance": None}
    if a.stream_stats:  # also as the live stream normalises (raw work sets only)
        norms["running"] = feature_norm.load_stream_stats(a.stream_stats)
    logits = {k: (T.frame_logits(model, val["feats"], T.eval_norm(val, st)),
                  T.frame_logits(model, nonspeech["feats"], T.eval_norm(nonspeech, st))) for k, st in norms.items()}
    rows = []
    for b in grid:
        parts = {k: (cer(texts, decode(v, b, tokens, units), a.lang), T.letters_per_minute(nonspeech, decode(n, b, tokens, units)))
                 for k, (v, n) in logits.items()}
        row = {"bias": b, "val_cer": round(sum(c for c, _ in parts.values()) / len(parts), 5),
               "letters_per_min": round(sum(x for _, x in parts.values()) / len(parts), 3)}
        if len(parts) > 1:
            row["by_normalisation"] = {k: {"val_cer": round(c, 5), "letters_per_min": round(x, 3)} for k, (c, x) in parts.items()}
        rows.append(row)
        print(json.dumps(row), flush=True)
    chosen = choose(rows, a.tolerance)
    result = {"model": a.model or f"run {a.run} ({a.checkpoint})", "tolerance_points": a.tolerance,
              "normalisations": list(norms), "val_utterances": len(texts), "nonspeech_val_clips": len(nonspeech["feats"]),
              "rows": rows, "chosen": chosen}
    print(json.dumps({"chosen": chosen}))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
