#!/usr/bin/env python3
"""Non-speech work sets with empty targets for acoustic models v3 (issue 33): `nonspeech_train`
(and `nonspeech_val`, to watch invented letters during training), features + empty text, in the
format of prepare_data.py's sets.

  generated clips: nonspeech.py (noise -70..-20 dBFS, 50/60 Hz hum, call-progress tones and DTMF,
    music, clicks/pops/keyboard, a third with a second kind underneath; drawn lengths 1.5..12 s and
    levels), numpy implementations of this folder's own, seeded (`nonspeech_val`: another seed);
  room tone from recordings: the leading and trailing pauses of ALFFA utterances (the quiet frames
    before the first and after the last sound), tiled into 1.5..8 s clips, gain -6..+24 dB; for
    `nonspeech_train` from the TRAIN speaker groups only (splits/alffa-spk-train.txt), for
    `nonspeech_val` from the val groups (never trained on either way).

--extra-music N adds N more music clips (nonspeech.py's music family: chords, arpeggio, melody,
drums, mixes) to `nonspeech_train`, clip indices past the --count ones (no clip repeated).

Usage: nice -n 19 /usr/bin/python3 training/asr/prepare_nonspeech.py --seed 33 --count 900 --room-tone 150
       (the second v3 candidate: --count 1200 --extra-music 300 --room-tone 300;
        om/ti v4: --count 1200 --extra-music 900 --room-tone 900 --train-name nonspeech_train_v4)
"""
import argparse
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))  # common.py
from common import FEATURES, LogMel, SAMPLE_RATE, use_raw_features  # noqa: E402
import nonspeech  # noqa: E402
from prepare_data import SPLITS, WORK, decode_flac  # noqa: E402

torch.set_num_threads(1)
FEAT = LogMel()


def pauses(pcm, min_s=0.2, margin_s=0.05):
    """The leading and trailing pauses of an utterance: frames (25 ms, hop 10 ms) within 8 dB of the
    utterance's quietest 5% (its noise floor), up to the first / from the last louder frame, less
    `margin_s` on the speech side. Returns a list of sample arrays at least `min_s` long."""
    hop, win = SAMPLE_RATE // 100, SAMPLE_RATE // 40
    pcm = pcm - np.mean(pcm)  # ALFFA recordings carry a DC offset of about -45 dBFS
    n = (len(pcm) - win) // hop
    if n < 10:
        return []
    rms = np.array([np.sqrt(np.mean(pcm[i * hop:i * hop + win] ** 2) + 1e-12) for i in range(n)])
    quiet = rms < np.percentile(rms, 5) * 10 ** (8 / 20)
    out = []
    lead = int(np.argmin(quiet)) if not quiet.all() else n
    tail = int(np.argmin(quiet[::-1])) if not quiet.all() else n
    margin = int(margin_s * SAMPLE_RATE)
    a = lead * hop - margin
    if a >= min_s * SAMPLE_RATE:
        out.append(pcm[:a])
    b = len(pcm) - tail * hop + margin
    if len(pcm) - b >= min_s * SAMPLE_RATE:
        out.append(pcm[b:])
    return out


def room_tone(split, count, rng):
    """`count` room-tone clips tiled from the pauses of one speaker group of `split` each."""
    groups = {}
    for uid in open(os.path.join(SPLITS, f"alffa-spk-{split}.txt")).read().split():
        groups.setdefault(uid.split("_tr")[-1][:3], []).append(uid)
    found = {}
    for g, uids in sorted(groups.items()):
        for uid in uids[:15]:
            found.setdefault(g, []).extend(pauses(decode_flac(uid)))
    found = {g: p for g, p in found.items() if p}
    print(f"room tone ({split}): {sum(len(p) for p in found.values())} pauses, "
          f"{sum(len(x) for p in found.values() for x in p) / SAMPLE_RATE:.1f} s from groups {sorted(found)}", flush=True)
    keys = sorted(found)
    items = []
    fade = SAMPLE_RATE // 100
    ramp = np.linspace(0, 1, fade, dtype=np.float32)
    for i in range(count):
        g = keys[int(rng.integers(0, len(keys)))]
        target = int(rng.uniform(1.5, 8) * SAMPLE_RATE)
        out = np.zeros(0, dtype=np.float32)
        while len(out) < target:
            piece = found[g][int(rng.integers(0, len(found[g])))].astype(np.float32)
            if len(out) >= fade and len(piece) > 2 * fade:  # 10 ms crossfade between pieces
                head = out[-fade:] * ramp[::-1] + piece[:fade] * ramp
                out = np.concatenate([out[:-fade], head, piece[fade:]])
            else:
                out = np.concatenate([out, piece])
        out = out[:target] - np.mean(out[:target])
        out = np.clip(out * 10 ** (rng.uniform(-6, 24) / 20), -1, 1).astype(np.float32)
        items.append((f"room-{split}-{g}-{i:04d}", "room-tone", out))
    return items


def generated(count, seed, prefix, extra_music=0):
    """Clips 0..count-1 of nonspeech.py (families round-robin), then `extra_music` music clips:
    the indices after `count` whose family is music."""
    music = nonspeech.FAMILIES.index("music")
    first = (count // len(nonspeech.FAMILIES) + 1) * len(nonspeech.FAMILIES) + music
    indices = list(range(count)) + [first + len(nonspeech.FAMILIES) * k for k in range(extra_music)]
    out = []
    for i in indices:
        desc, _, x = nonspeech.clip(i, seed)
        out.append((f"{prefix}-{i:05d}", desc.split("@")[0], x))
    return out


def save(name, items):
    feats, kinds, ids, secs = [], {}, [], 0.0
    for uid, kind, pcm in items:
        feats.append(torch.from_numpy(FEAT(pcm)).to(torch.float16))
        ids.append(uid)
        secs += len(pcm) / SAMPLE_RATE
        kinds[kind] = kinds.get(kind, 0) + len(pcm) / SAMPLE_RATE
    torch.save({"feats": feats, "texts": [""] * len(ids), "ids": ids, "normalize": FEATURES["normalize"]},
               os.path.join(WORK, name + ".pt"))
    print(f"{name}: {len(ids)} clips, {secs / 60:.1f} min; seconds by kind: "
          + json.dumps({k: round(v) for k, v in sorted(kinds.items())}), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--count", type=int, default=900, help="generated clips in nonspeech_train")
    ap.add_argument("--count-val", type=int, default=60, help="generated clips in nonspeech_val (seed + 1000)")
    ap.add_argument("--room-tone", type=int, default=150, help="room-tone clips in nonspeech_train")
    ap.add_argument("--room-tone-val", type=int, default=20, help="room-tone clips in nonspeech_val")
    ap.add_argument("--extra-music", type=int, default=0, help="more music clips in nonspeech_train")
    ap.add_argument("--train-name", default="nonspeech_train", help="the training set's name (nonspeech_*)")
    ap.add_argument("--raw-features", action="store_true", help="store unnormalised log-mel (prepare_data.py --raw-features)")
    a = ap.parse_args()
    if not a.train_name.startswith("nonspeech_"):
        ap.error("--train-name must start with nonspeech_ (train.py gives those sets empty targets)")
    if a.raw_features:
        use_raw_features()
    rng = np.random.default_rng(a.seed)
    save(a.train_name, generated(a.count, a.seed, "ns-train", a.extra_music) + room_tone("train", a.room_tone, rng))
    save("nonspeech_val", generated(a.count_val, a.seed + 1000, "ns-val") + room_tone("val", a.room_tone_val, rng))


if __name__ == "__main__":
    main()
