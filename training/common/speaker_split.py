#!/usr/bin/env python3
"""Speaker-group split of the ALFFA Amharic recordings (alffa-am-train/, 1,000 utterances).

The speaker group of an utterance is the three digits after `_tr` in its id
(`tr_<n>_tr<GGG><UUU>`). Whole groups are held out, never split, so every figure on the
validation and test sets is a figure on speakers the model never heard.

Rule (deterministic; rerun to check):
  - candidates: groups with 40..60 utterances (the 120-utterance groups 098/099/100 and 110,
    which hold most of the audio, stay in training; 1-12-utterance groups too);
  - groups 091 and 021 are the only candidates that small-am-v1 never trained on (v1 held out
    the 100 highest ids: all of 021 and 091, 2 of 051): 091 goes to validation, 021 to test, so
    each held-out set has a part on which v1 can be measured honestly;
  - random.Random(14).sample of the remaining candidates (sorted) draws 3 groups: the first two
    join validation, the third joins test.
  validation (`alffa_spk_val`): tune decoding (LM weight, beam) and pick checkpoints on it only;
  test (`alffa_spk_test`): report untuned figures; never tune on it.

Usage: /usr/bin/python3 training/common/speaker_split.py [--data /work/shared/data]
Writes training/common/splits/alffa-spk-{train,val,test}.txt (one utterance id a line) and
alffa-spk-split.json (groups, counts, rule).
"""
import argparse
import collections
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "splits")
SEED = 14
V1_UNSEEN_VAL = "091"
V1_UNSEEN_TEST = "021"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("DATA_DIR", "/work/shared/data"))
    a = ap.parse_args()
    ids = []
    with open(os.path.join(a.data, "alffa-am-train/text"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                ids.append(line.split(None, 1)[0])
    # ids look like tr_10000_tr097082: the group is the 3 digits after the second "_tr".
    groups = collections.Counter(uid.split("_")[2][2:5] for uid in ids)
    candidates = sorted(g for g, n in groups.items() if 40 <= n <= 60 and g not in (V1_UNSEEN_VAL, V1_UNSEEN_TEST))
    drawn = random.Random(SEED).sample(candidates, 3)
    val_groups = sorted([V1_UNSEEN_VAL, drawn[0], drawn[1]])
    test_groups = sorted([V1_UNSEEN_TEST, drawn[2]])
    num = lambda uid: int(uid.split("_")[1])  # noqa: E731
    sets = {"train": [], "val": [], "test": []}
    for uid in sorted(ids, key=num):
        g = uid.split("_")[2][2:5]
        sets["val" if g in val_groups else "test" if g in test_groups else "train"].append(uid)
    os.makedirs(OUT, exist_ok=True)
    for name, lst in sets.items():
        with open(os.path.join(OUT, f"alffa-spk-{name}.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(lst) + "\n")
    summary = {
        "rule": __doc__.split("Rule (deterministic; rerun to check):", 1)[1].split("Usage:", 1)[0].strip(),
        "seed": SEED,
        "group_of_id": "the 3 digits after '_tr' in tr_<n>_tr<GGG><UUU>",
        "groups": dict(sorted(groups.items())),
        "candidates": candidates,
        "val_groups": val_groups,
        "test_groups": test_groups,
        "utterances": {k: len(v) for k, v in sets.items()},
        "small_am_v1_unseen": {"val": [u for u in sets["val"] if u.split("_")[2][2:5] == V1_UNSEEN_VAL].__len__(),
                               "test": [u for u in sets["test"] if u.split("_")[2][2:5] == V1_UNSEEN_TEST].__len__()},
        "command": "/usr/bin/python3 training/common/speaker_split.py",
    }
    with open(os.path.join(OUT, "alffa-spk-split.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: summary[k] for k in ("val_groups", "test_groups", "utterances", "small_am_v1_unseen")}))


if __name__ == "__main__":
    main()
