#!/usr/bin/env python3
"""Copies a few held-out clips into test/fixtures/heldout/ for the shipped-model regression test
(test/models/shipped-models.test.ts): the first clips of 1.5-5 s of each held-out set named
below, as 16 kHz 16-bit WAV, listed in heldout.tsv (file, language, set, reference).
None of these clips, nor their sentences, was trained on.

Usage: /usr/bin/python3 models/training/make_fixtures.py
"""
import os
import shutil
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
OUT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "test", "fixtures", "heldout")
PICK = [("alffa_val", "am", 5), ("synth_am_test_clean", "am", 4), ("synth_om_test_clean", "om", 5), ("synth_ti_test_clean", "ti", 5)]


def seconds(path):
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def main():
    os.makedirs(OUT, exist_ok=True)
    rows = []
    for name, lang, count in PICK:
        taken = 0
        for line in open(os.path.join(WORK, name + ".tsv"), encoding="utf-8"):
            uid, ref = line.rstrip("\n").split("\t")
            src = os.path.join(WORK, "audio", name, uid + ".wav")
            if not 1.5 <= seconds(src) <= 5.0:
                continue
            file = f"{name}-{uid}.wav"
            shutil.copyfile(src, os.path.join(OUT, file))
            rows.append(f"{file}\t{lang}\t{name}\t{ref}")
            taken += 1
            if taken == count:
                break
    with open(os.path.join(OUT, "heldout.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    print(f"{len(rows)} clips in {OUT}")


if __name__ == "__main__":
    main()
