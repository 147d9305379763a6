#!/usr/bin/env python3
"""Prints the markdown table of shipped models for models/README.md from the measured results
(training/asr/results/<name>.json from evaluate.ts, work/runs/<name>/export.json from export.py)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
print("| model | params | ONNX MB | train min (steps) | ALFFA val CER | synth clean CER | synth aug CER | RTF (1 core) |")
print("|---|---|---|---|---|---|---|---|")
for name in ["small-am-v1", "small-om-v1", "small-ti-v1", "beta-am-v1", "beta-om-v1", "beta-ti-v1"]:
    res = os.path.join(HERE, "results", name + ".json")
    if not os.path.exists(res):
        print(f"| {name} | not shipped | | | | | | |")
        continue
    ev = json.load(open(res))
    run = ev.get("run", name)
    ex = json.load(open(os.path.join(os.path.dirname(HERE), "work", "runs", run, "export.json")))
    minutes = ex["train_minutes"] + ev.get("earlier_train_minutes", 0)
    lang = ev["language"]
    s = ev["sets"]
    f = lambda k: (f"{s[k]['cer'] * 100:.1f}%" + (f" ({s[k]['cer_ignoring_case'] * 100:.1f}% no case)" if 'cer_ignoring_case' in s[k] else "")) if k in s else "-"
    mb = os.path.getsize(os.path.join(ROOT, "models", name, "model.onnx")) / 1e6
    print(f"| `{name}` | {ex['params'] / 1e6:.2f} M | {mb:.1f} | {minutes:g} ({ex['step'] + ev.get('earlier_steps', 0)}) | {f('alffa_val')} | "
          f"{f(f'synth_{lang}_test_clean')} | {f(f'synth_{lang}_test_aug')} | {ev['rtf']:.3f} |")
