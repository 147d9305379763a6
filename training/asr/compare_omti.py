#!/usr/bin/env python3
"""small-<lang>-v2 against small-<lang>-v1 as served (evaluate.ts --decoding manifest) on the v1
synthetic test sets: prints the comparison as JSON and exits 0 only if v2 is better, i.e. its CER
over both test sets together (errors / reference characters) is lower and it is worse on neither.
Greedy figures are included for the record (results/small-<lang>-v2.json, -v1-greedy-v2sets.json).

Usage: /usr/bin/python3 training/asr/compare_omti.py --lang om > training/asr/results/small-om-v2-vs-v1.json
"""
import argparse
import json
import os
import sys

R = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def figures(path, sets):
    r = json.load(open(os.path.join(R, path), encoding="utf-8"))
    out = {s: {"cer": r["sets"][s]["cer"], "errors": r["sets"][s]["errors"], "reference_chars": r["sets"][s]["reference_chars"],
               "rtf": r["sets"][s]["rtf"]} for s in sets}
    out["both"] = {"cer": round(sum(out[s]["errors"] for s in sets) / sum(out[s]["reference_chars"] for s in sets), 4)}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", required=True, choices=["om", "ti"])
    a = ap.parse_args()
    sets = [f"synth_{a.lang}_test_clean", f"synth_{a.lang}_test_aug"]
    served = {"v1": figures(f"small-{a.lang}-v1-served-v2sets.json", sets), "v2": figures(f"small-{a.lang}-v2-served.json", sets)}
    greedy = {"v1": figures(f"small-{a.lang}-v1-greedy-v2sets.json", sets), "v2": figures(f"small-{a.lang}-v2.json", sets)}
    better = served["v2"]["both"]["cer"] < served["v1"]["both"]["cer"] and all(
        served["v2"][s]["cer"] <= served["v1"][s]["cer"] for s in sets)
    print(json.dumps({"language": a.lang, "rule": "v2 is the default only if, as served, its CER over both test sets is lower "
                      "than v1's and it is worse on neither", "served": served, "greedy": greedy,
                      "v2_better": better, "default": f"small-{a.lang}-v2" if better else f"small-{a.lang}-v1"}, indent=2))
    sys.exit(0 if better else 1)


if __name__ == "__main__":
    main()
