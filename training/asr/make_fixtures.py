#!/usr/bin/env python3
"""Copies a few held-out clips into test/fixtures/heldout/ for the shipped-model regression test
(test/models/shipped-models.test.ts): the first clips of 1.5-5 s of each held-out set named
below, as 16 kHz 16-bit WAV, listed in heldout.tsv (file, language, set, reference).
None of these clips, nor their sentences, was trained on.

Real Amharic (`alffa_spk_heldout`): the first 3 clips of 1.5-5 s (by id) of speaker groups 021
(test) and 091 (validation) of the speaker split (training/common/splits/, speaker_split.py):
speakers that neither small-am-v1 nor any model trained on that split heard.
Real Amharic (`alffa_spk_heldout_v2`): the first 2 clips of 1.5-4 s of each of the other held-out
groups, 041 and 131 (validation) and 231 (test): held out of small-am-v2 (and every model trained
on the speaker split), but heard by the v1 models, which trained on every id but the 100 highest.
Decoded from
<data>/alffa-am-train/flac with ffmpeg (FFMPEG, else the @ffmpeg-installer binary).

Usage: /usr/bin/python3 training/asr/make_fixtures.py [--only alffa_spk_heldout]
  (--only: rewrite only those sets' clips and rows, keep the others in heldout.tsv)
"""
import argparse
import glob
import os
import shutil
import subprocess
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(os.path.dirname(HERE), "work")  # training/work (git-ignored)
OUT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "test", "fixtures", "heldout")
DATA = os.environ.get("DATA_DIR", "/work/shared/data")
# set name -> ((speaker group, split), ...), clips per group, longest clip (s)
ALFFA_SETS = {
    "alffa_spk_heldout": ((("021", "test"), ("091", "val")), 3, 5.0),
    "alffa_spk_heldout_v2": ((("041", "val"), ("131", "val"), ("231", "test")), 2, 4.0),
}
PICK = [("alffa_spk_heldout", "am", 3), ("alffa_spk_heldout_v2", "am", 2), ("synth_am_test_clean", "am", 4), ("synth_om_test_clean", "om", 5), ("synth_ti_test_clean", "ti", 5)]


def seconds(path):
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def ffmpeg():
    if os.environ.get("FFMPEG"):
        return os.environ["FFMPEG"]
    root = os.path.dirname(os.path.dirname(HERE))
    return subprocess.run(["node", "-e", "process.stdout.write(require('@ffmpeg-installer/ffmpeg').path)"],
                          cwd=root, capture_output=True, check=True, text=True).stdout


def alffa_clips(name):
    """The first clips of 1.5 s up to the set's longest of each of its held-out speaker groups."""
    groups, count, longest = ALFFA_SETS[name]
    texts = dict(l.rstrip("\n").split(None, 1) for l in open(os.path.join(DATA, "alffa-am-train/text"), encoding="utf-8") if l.strip())
    rows, tool = [], ffmpeg()
    for group, split in groups:
        taken = 0
        for uid in open(os.path.join(os.path.dirname(HERE), "common", "splits", f"alffa-spk-{split}.txt"), encoding="utf-8").read().split():
            if uid.split("_")[2][2:5] != group:
                continue
            file = f"{name}-{uid}.wav"
            dst = os.path.join(OUT, file)
            subprocess.run([tool, "-v", "error", "-y", "-i", os.path.join(DATA, "alffa-am-train/flac", uid + ".flac"),
                            "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", dst], check=True)
            if not 1.5 <= seconds(dst) <= longest:
                os.remove(dst)
                continue
            rows.append(f"{file}\tam\t{name}\t{' '.join(texts[uid].split())}")
            taken += 1
            if taken == count:
                break
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    only = set(x for x in ap.parse_args().only.split(",") if x)
    os.makedirs(OUT, exist_ok=True)
    rows, alffa = [], {}  # alffa: set name -> rows (written first, in ALFFA_SETS order)
    if only:
        for line in open(os.path.join(OUT, "heldout.tsv"), encoding="utf-8").read().splitlines():
            if line and line.split("\t")[2] not in only:
                if line.split("\t")[2] in ALFFA_SETS:
                    alffa.setdefault(line.split("\t")[2], []).append(line)
                else:
                    rows.append(line)
        for name in only:
            for old in glob.glob(os.path.join(OUT, f"{name}-*.wav")):
                os.remove(old)
    for name, lang, count in PICK:
        if only and name not in only:
            continue
        if name in ALFFA_SETS:
            alffa[name] = alffa_clips(name)
            continue
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
    rows = [r for name in ALFFA_SETS for r in alffa.get(name, [])] + rows
    with open(os.path.join(OUT, "heldout.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    print(f"{len(rows)} clips in {OUT}")


if __name__ == "__main__":
    main()
