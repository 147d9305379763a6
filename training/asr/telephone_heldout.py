#!/usr/bin/env python3
"""The held-out ALFFA speaker groups (splits/alffa-spk-{val,test}.txt) as a G.711 call delivers
them, for held-out-decoding.ts --audio-dir (the telephone target of issue 33: within 2 CER points of
wideband on the same utterances): each recording through the channel of the robustness benchmark's
telephone condition (bench/telephone-channel.ts, computed here by speech_augment.telephone_band and
g711_round_trip, checked against it: G.711 codes bit for bit, the band to float rounding): 3.7 kHz
windowed-sinc low-pass and every second sample (8 kHz), 4th-order Butterworth high-pass at 300 Hz,
mu-law or A-law round trip; written as 8 kHz 16-bit WAV <out>/<id>.wav, levels as recorded.

Usage: nice -n 10 /usr/bin/python3 training/asr/telephone_heldout.py --law mulaw --out training/work/audio/heldout-telephone-mulaw
"""
import argparse
import os
import sys
import wave

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from prepare_data import SPLITS, decode_flac  # noqa: E402
from speech_augment import g711_round_trip, telephone_band  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--law", choices=["mulaw", "alaw"], default="mulaw")
    ap.add_argument("--out", required=True)
    ap.add_argument("--sets", default="val,test")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    n = 0
    for s in a.sets.split(","):
        for uid in open(os.path.join(SPLITS, f"alffa-spk-{s}.txt")).read().split():
            call = g711_round_trip(telephone_band(decode_flac(uid)), a.law)
            with wave.open(os.path.join(a.out, uid + ".wav"), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(8000)
                w.writeframes(np.round(call * 32768).astype(np.int16).tobytes())
            n += 1
    print(f"{n} utterances through a {a.law} call in {a.out}", flush=True)


if __name__ == "__main__":
    main()
