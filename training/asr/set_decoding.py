#!/usr/bin/env python3
"""Writes the decoding weights tuned by held-out-decoding.ts --tune (on the val speaker groups
only) into a model's manifest.json: beam search by default with that beam width, the character
LM with its alpha (LM weight) and beta (per-character bonus); --default-model adds
`"default": true`, which makes the model its language's default in the registry
(src/engines/asr/models/model-registry.ts).

Usage: /usr/bin/python3 training/asr/set_decoding.py --model models/small-am-v2 \
         --from training/asr/results/small-am-v2-spk-heldout.json --lm ../lm/am-char-7gram.bin [--default-model]
"""
import argparse
import json
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--from", dest="source", required=True)
    ap.add_argument("--lm", required=True, help="LM file relative to the model folder")
    ap.add_argument("--default-model", action="store_true")
    a = ap.parse_args()
    tuned = json.load(open(a.source, encoding="utf-8"))
    w = tuned["weights"]
    if not str(w.get("tuned_on", "")).startswith("val"):
        raise SystemExit(f"{a.source}: weights not tuned on the val groups ({w.get('tuned_on')})")
    path = os.path.join(a.model, "manifest.json")
    man = json.load(open(path, encoding="utf-8"))
    if not os.path.exists(os.path.join(a.model, a.lm)):
        raise SystemExit(f"{a.lm}: not found from {a.model}")
    man["decoding"] = {"default": "beam", "beam_width": int(w["beam"])}
    man["lm"] = {"file": a.lm, "unit": "char", "order": int(tuned["lm"]["order"]), "alpha": w["alpha"], "beta": w["beta"]}
    if a.default_model:
        man["default"] = True
    with open(path, "w", encoding="utf-8") as f:
        json.dump(man, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(json.dumps({"model": man["name"], "decoding": man["decoding"], "lm": man["lm"], "default": man.get("default", False)}, ensure_ascii=False))


if __name__ == "__main__":
    main()
