#!/usr/bin/env python3
"""small-<lang>-<new> against small-<lang>-<old> as served (evaluate.ts --decoding manifest) on the v1
synthetic test sets: prints the comparison as JSON and exits 0 only if the new model is better, i.e.
its CER over both test sets together (errors / reference characters) is lower and it is worse on
neither; with --not-worse, only that it is worse on neither set (issue 33's rule for v3: "not worse
than v2"). Greedy figures are included for the record (results/small-<lang>-<new>.json; the old
model's: -v1-greedy-v2sets.json for v1, else -<old>-greedy-beside-<new>.json, measured in the same run).

Usage: /usr/bin/python3 training/asr/compare_omti.py --lang om > training/asr/results/small-om-v2-vs-v1.json
       /usr/bin/python3 training/asr/compare_omti.py --lang om --old v2 --new v3 --not-worse > training/asr/results/small-om-v3-vs-v2.json
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
    ap.add_argument("--old", default="v1")
    ap.add_argument("--new", default="v2")
    ap.add_argument("--not-worse", action="store_true", help="the new model need only be worse on neither test set")
    a = ap.parse_args()
    old, new = a.old, a.new
    sets = [f"synth_{a.lang}_test_clean", f"synth_{a.lang}_test_aug"]
    old_served = f"small-{a.lang}-v1-served-v2sets.json" if old == "v1" else f"small-{a.lang}-{old}-served-beside-{new}.json"
    old_greedy = f"small-{a.lang}-v1-greedy-v2sets.json" if old == "v1" else f"small-{a.lang}-{old}-greedy-beside-{new}.json"
    served = {old: figures(old_served, sets), new: figures(f"small-{a.lang}-{new}-served.json", sets)}
    greedy = {old: figures(old_greedy, sets), new: figures(f"small-{a.lang}-{new}.json", sets)}
    not_worse = all(served[new][s]["cer"] <= served[old][s]["cer"] for s in sets)
    better = not_worse and (a.not_worse or served[new]["both"]["cer"] < served[old]["both"]["cer"])
    rule = (f"{new} is the default only if, as served, it is worse than {old} on neither test set" if a.not_worse else
            f"{new} is the default only if, as served, its CER over both test sets is lower than {old}'s and it is worse on neither")
    print(json.dumps({"language": a.lang, "rule": rule, "served": served, "greedy": greedy,
                      f"{new}_better": better, "default": f"small-{a.lang}-{new}" if better else f"small-{a.lang}-{old}"}, indent=2))
    sys.exit(0 if better else 1)


if __name__ == "__main__":
    main()
