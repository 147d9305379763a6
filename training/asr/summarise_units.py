#!/usr/bin/env python3
"""Puts the output-unit measurement (measure_units.sh) in one JSON: per unit kind, the training
record (steps, utterances kept, target length in units, vocabulary, the checkpoint picked on the
val groups) from work/runs/units-*/ and the gateway-runtime figures (greedy CER on the held-out
speaker groups, RTF) from results/units-*.json.

Usage: /usr/bin/python3 training/asr/summarise_units.py > training/asr/results/units-summary.json
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
out = {"what": "Ethiopic syllables vs consonant + vowel-order units (common.decompose), same recipe, data, seed and time box",
       "command": "sh training/asr/measure_units.sh", "runs": {}}
for u in ("syllable", "decomposed"):
    log = [json.loads(l) for l in open(os.path.join(os.path.dirname(HERE), "work", "runs", f"units-{u}", "log.jsonl"))]
    exp = json.load(open(os.path.join(os.path.dirname(HERE), "work", "runs", f"units-{u}", "export.json")))
    ev = json.load(open(os.path.join(HERE, "results", f"units-{u}.json")))
    data = next(e for e in log if e["event"] == "data")
    done = next(e for e in log if e["event"] == "done")
    valid = []
    for e in log:
        if e["event"] in ("valid", "final") and e["set"] == "alffa_spk_val" and not any(v["step"] == e["step"] for v in valid):
            valid.append({"step": e["step"], "cer": e["cer"], "train_minutes": e["t_min"]})
    out["runs"][u] = {
        "vocab_size": exp["vocab_size"], "params": exp["params"], "train_minutes": done["train_minutes"], "steps": done["steps"],
        "epochs": done["epochs"], "utterances_kept": data["utterances"], "utterances_dropped_too_long_targets": data["dropped"],
        "target_units_total": data["target_units"], "best_step": done["best_step"],
        "val_greedy_cer_python_by_checkpoint": valid,
        "gateway_greedy": {s: {"cer": r["cer"], "errors": r["errors"], "reference_chars": r["reference_chars"], "rtf": r["rtf"]}
                           for s, r in ev["sets"].items()},
        "rtf": ev["rtf"],
    }
s, d = out["runs"]["syllable"], out["runs"]["decomposed"]
out["difference_points_val"] = round(100 * (d["gateway_greedy"]["alffa_spk_val"]["cer"] - s["gateway_greedy"]["alffa_spk_val"]["cer"]), 2)
# The two runs got different numbers of steps in the same minutes (machine load, output layer
# size): also compare each syllable checkpoint with the decomposed checkpoint nearest in steps.
out["step_matched_val_greedy_cer_python"] = [
    {"syllable": v, "decomposed": min(d["val_greedy_cer_python_by_checkpoint"], key=lambda x: abs(x["step"] - v["step"]))}
    for v in s["val_greedy_cer_python_by_checkpoint"]]
print(json.dumps(out, ensure_ascii=False, indent=2))
