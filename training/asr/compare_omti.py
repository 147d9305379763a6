#!/usr/bin/env python3
"""small-<lang>-<new> against small-<lang>-<old> as served (evaluate.ts --decoding manifest) on the v1
synthetic test sets: prints the comparison as JSON and exits 0 only if the new model is better, i.e.
its CER over both test sets together (errors / reference characters) is lower and it is worse on
neither; with --not-worse, only that it is worse on neither set (issue 33's rule for v3: "not worse
than v2"). Greedy figures are included for the record (results/small-<lang>-<new>.json; the old
model's: -v1-greedy-v2sets.json for v1, else -<old>-greedy-beside-<new>.json, measured in the same run).

With --targets (v4 on: the new model would replace `--old`, both measured in the new one's run), the
rule is issue 33's two om/ti targets: (a) as served, worse than v2 on neither test set, and (b) at
most 1 letter a minute on the robustness benchmark's non-speech clips with the speech gate off
(results/small-<lang>-<v>-nonspeech[-beside-<new>].json). The new model is the default if it meets a
target the old one misses and misses none the old one meets; if both meet the same targets, only if
it is worse than the old one on neither test set and reads fewer non-speech letters.

Usage: /usr/bin/python3 training/asr/compare_omti.py --lang om > training/asr/results/small-om-v2-vs-v1.json
       /usr/bin/python3 training/asr/compare_omti.py --lang om --old v2 --new v3 --not-worse > training/asr/results/small-om-v3-vs-v2.json
       /usr/bin/python3 training/asr/compare_omti.py --lang ti --old v3 --new v4 --targets > training/asr/results/small-ti-v4-vs-v3.json
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


NONSPEECH_BOUND = 1.0  # letters a minute (issue 33)


def letters_per_minute(lang, version, new):
    suffix = "" if version == new else f"-beside-{new}"
    r = json.load(open(os.path.join(R, f"small-{lang}-{version}-nonspeech{suffix}.json"), encoding="utf-8"))
    return r["summary"]["nonSpeech"]["ALL"]["rest-today"]["lettersPerMinute"]


def by_targets(lang, old, new, sets, served):
    """Issue 33's om/ti targets for `old` and `new`, each measured in `new`'s run, and the default they give."""
    v2 = figures(f"small-{lang}-v2-served-beside-{new}.json", sets)
    met = {}
    for v in (old, new):
        letters = letters_per_minute(lang, v, new)
        met[v] = {"not_worse_than_v2": all(served[v][s]["cer"] <= v2[s]["cer"] for s in sets),
                  "nonspeech_letters_per_minute": letters, "nonspeech_at_most_1": letters <= NONSPEECH_BOUND}
    keys = ("not_worse_than_v2", "nonspeech_at_most_1")
    gains = [k for k in keys if met[new][k] and not met[old][k]]
    losses = [k for k in keys if met[old][k] and not met[new][k]]
    if gains or losses:
        better = bool(gains) and not losses
    else:
        better = (all(served[new][s]["cer"] <= served[old][s]["cer"] for s in sets)
                  and met[new]["nonspeech_letters_per_minute"] < met[old]["nonspeech_letters_per_minute"])
    rule = (f"issue 33's targets (as served not worse than v2 on either test set; at most {NONSPEECH_BOUND:g} letter a minute "
            f"on non-speech, gate off): {new} replaces {old} if it meets a target {old} misses and misses none {old} meets; "
            f"with the same targets met, only if worse than {old} on neither test set and with fewer non-speech letters")
    return {"v2_served": v2, "targets": met, "gains": gains, "losses": losses}, rule, better


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", required=True, choices=["om", "ti"])
    ap.add_argument("--old", default="v1")
    ap.add_argument("--new", default="v2")
    ap.add_argument("--not-worse", action="store_true", help="the new model need only be worse on neither test set")
    ap.add_argument("--targets", action="store_true", help="decide by issue 33's om/ti targets (see the module comment)")
    a = ap.parse_args()
    old, new = a.old, a.new
    sets = [f"synth_{a.lang}_test_clean", f"synth_{a.lang}_test_aug"]
    old_served = f"small-{a.lang}-v1-served-v2sets.json" if old == "v1" else f"small-{a.lang}-{old}-served-beside-{new}.json"
    old_greedy = f"small-{a.lang}-v1-greedy-v2sets.json" if old == "v1" else f"small-{a.lang}-{old}-greedy-beside-{new}.json"
    served = {old: figures(old_served, sets), new: figures(f"small-{a.lang}-{new}-served.json", sets)}
    greedy = {old: figures(old_greedy, sets), new: figures(f"small-{a.lang}-{new}.json", sets)}
    extra = {}
    if a.targets:
        extra, rule, better = by_targets(a.lang, old, new, sets, served)
    else:
        not_worse = all(served[new][s]["cer"] <= served[old][s]["cer"] for s in sets)
        better = not_worse and (a.not_worse or served[new]["both"]["cer"] < served[old]["both"]["cer"])
        rule = (f"{new} is the default only if, as served, it is worse than {old} on neither test set" if a.not_worse else
                f"{new} is the default only if, as served, its CER over both test sets is lower than {old}'s and it is worse on neither")
    print(json.dumps({"language": a.lang, "rule": rule, "served": served, "greedy": greedy, **extra,
                      f"{new}_better": better, "default": f"small-{a.lang}-{new}" if better else f"small-{a.lang}-{old}"}, indent=2))
    sys.exit(0 if better else 1)


if __name__ == "__main__":
    main()
