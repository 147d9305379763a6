#!/usr/bin/env python3
"""Builds `en_so_train`, the English side of multitask training (issue 33: more speaker variety for
the shared encoder, through its own English output layer; train.py --aux-sets).

Source: ../shared/data/speechocean762-spk, the utterances of the UPSTREAM TRAIN speakers only
(utt2split `train`: 125 speakers, 4 utterances each; the upstream test speakers are the
diarization benchmark's held-out English voices and stay unseen). Every utterance clean plus
--copies - 1 perturbed copies (speech_augment.perturbed_copy: speed, VTLP, tempo, reverberation,
noise, telephone band, Opus), the features exactly as prepare_data.py makes them (common.LogMel,
stored float16 with the same normalisation flag). Targets: the upstream transcript in lower case
(letters, space, apostrophe). librispeech-spk has no transcripts, so it is not used.

Usage: nice -n 10 /usr/bin/python3 training/asr/prepare_english.py [--copies 6] [--seed 7]
"""
import argparse
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from common import FEATURES, LogMel  # noqa: E402
from prepare_data import decode_audio  # noqa: E402
from speech_augment import perturbed_copy  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(os.path.dirname(HERE), "work")
DATA = os.environ.get("SHARED_DATA", "/work/shared/data")
SO = os.path.join(DATA, "speechocean762-spk")
ALLOWED = set("abcdefghijklmnopqrstuvwxyz' ")

torch.set_num_threads(1)


def table(name):
    out = {}
    with open(os.path.join(SO, name), encoding="utf-8") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(" ")
            if key:
                out[key] = value.strip()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=6, help="clean + perturbed copies of every utterance")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--name", default="en_so_train")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    split, text, wav, spk = table("utt2split"), table("text"), table("wav.scp"), table("utt2spk")
    ids = sorted(u for u, s in split.items() if s == "train")
    feat = LogMel()
    feats, texts, out_ids, secs = [], [], [], 0.0
    for uid in ids:
        target = " ".join(text[uid].lower().split())
        target = "".join(ch for ch in target if ch in ALLOWED)
        if not target:
            continue
        pcm = decode_audio(os.path.join(SO, wav[uid]))
        for k in range(a.copies):
            f = feat(pcm) if k == 0 else perturbed_copy(pcm, k, rng)
            feats.append(torch.from_numpy(f).to(torch.float16))
            texts.append(target)
            out_ids.append(f"{uid}-{k}")
            secs += f.shape[0] / 100
    os.makedirs(WORK, exist_ok=True)
    torch.save({"feats": feats, "texts": texts, "ids": out_ids, "normalize": FEATURES["normalize"]},
               os.path.join(WORK, a.name + ".pt"))
    print(json.dumps({"set": a.name, "utterances": len(feats), "speakers": len({spk[u] for u in ids}),
                      "source_utterances": len(ids), "hours": round(secs / 3600, 2)}))


if __name__ == "__main__":
    main()
