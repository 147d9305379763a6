#!/usr/bin/env python3
"""Writes test/fixtures/features/log-mel-reference.json: log-mel features of a fixed test
signal computed with numpy alone (np.fft.rfft, np.pad reflect), independently of the
TypeScript extractor in src/engines/signal/features/log-mel-features.ts, for three manifest settings.

The definition both follow (docs/model-format.md): reflect-padded centred frames (or plain
frames without `center`), periodic Hann window of win_length centred in n_fft, |rfft|^power,
triangular mel filters (htk or slaney scale, optional slaney area norm) over bins spaced
0..sr/2, natural log of max(x, log_floor), optional per-channel (x-mean)/(std_{n-1}+1e-5).

Usage: /usr/bin/python3 scripts/make-log-mel-reference.py
"""
import json
import math
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "test", "fixtures", "features", "log-mel-reference.json")
SR = 16000
SAMPLES = 4800


def test_signal():
    # Must match testSignal() in src/engines/signal/features/log-mel-features.test.ts (float64 math, float32 result).
    t = np.arange(SAMPLES, dtype=np.float64) / SR
    x = 0.5 * np.sin(2 * math.pi * 440 * t) + 0.25 * np.sin(2 * math.pi * 1234.5 * t + 0.3)
    x += 0.1 * np.sin(2 * math.pi * (200 * t + 3000 * t * t))
    x *= np.where(t < 0.15, 1.0, 0.3)
    return x.astype(np.float32)


def hz_to_mel(f, scale):
    f = np.asarray(f, dtype=np.float64)
    if scale == "htk":
        return 2595.0 * np.log10(1.0 + f / 700.0)
    f_sp = 200.0 / 3
    logstep = math.log(6.4) / 27.0
    return np.where(f < 1000, f / f_sp, 1000 / f_sp + np.log(np.maximum(f, 1e-12) / 1000) / logstep)


def mel_to_hz(m, scale):
    m = np.asarray(m, dtype=np.float64)
    if scale == "htk":
        return 700.0 * (10 ** (m / 2595.0) - 1)
    f_sp = 200.0 / 3
    min_log_mel = 1000 / f_sp
    logstep = math.log(6.4) / 27.0
    return np.where(m < min_log_mel, m * f_sp, 1000 * np.exp(logstep * (m - min_log_mel)))


def filterbank(p):
    bins = p["n_fft"] // 2 + 1
    freqs = np.linspace(0, SR // 2, bins)
    m = np.linspace(hz_to_mel(p["f_min"], p["mel_scale"]), hz_to_mel(p["f_max"], p["mel_scale"]), p["n_mels"] + 2)
    edges = mel_to_hz(m, p["mel_scale"])
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    down = (freqs[None, :] - lower) / (centre - lower)
    up = (upper - freqs[None, :]) / (upper - centre)
    fb = np.maximum(0.0, np.minimum(down, up))
    if p["mel_norm"] == "slaney":
        fb *= 2.0 / (upper - lower)
    return fb  # [n_mels, bins]


def log_mel(x, p):
    n_fft, hop, win = p["n_fft"], p["hop_length"], p["win_length"]
    x = x.astype(np.float64)
    if p["center"]:
        x = np.pad(x, (n_fft // 2, n_fft // 2), mode="reflect")
    elif len(x) < n_fft:
        x = np.pad(x, (0, n_fft - len(x)))
    frames = 1 + (len(x) - n_fft) // hop
    window = np.zeros(n_fft)
    off = (n_fft - win) // 2
    window[off : off + win] = 0.5 - 0.5 * np.cos(2 * math.pi * np.arange(win) / win)
    idx = np.arange(n_fft)[None, :] + hop * np.arange(frames)[:, None]
    spec = np.abs(np.fft.rfft(x[idx] * window[None, :], axis=1)) ** p["power"]
    mel = spec @ filterbank(p).T
    feats = np.log(np.maximum(mel, p["log_floor"]))
    if p["normalize"] == "per_utterance":
        std = feats.std(axis=0, ddof=1) if frames > 1 else np.zeros(feats.shape[1])
        feats = (feats - feats.mean(axis=0)) / (std + 1e-5)
    return feats


CASES = [
    {"name": "nfft400-htk", "sample_rate": SR, "n_fft": 400, "win_length": 400, "hop_length": 160, "n_mels": 80, "f_min": 0, "f_max": 8000,
     "mel_scale": "htk", "mel_norm": "none", "center": True, "power": 2, "log_floor": 1e-10, "normalize": "none"},
    {"name": "nfft512-slaney-normalized", "sample_rate": SR, "n_fft": 512, "win_length": 400, "hop_length": 160, "n_mels": 40, "f_min": 20,
     "f_max": 7600, "mel_scale": "slaney", "mel_norm": "slaney", "center": True, "power": 2, "log_floor": 1e-6, "normalize": "per_utterance"},
    {"name": "nfft256-magnitude-uncentred", "sample_rate": SR, "n_fft": 256, "win_length": 256, "hop_length": 128, "n_mels": 24, "f_min": 0,
     "f_max": 8000, "mel_scale": "htk", "mel_norm": "none", "center": False, "power": 1, "log_floor": 1e-5, "normalize": "none"},
]


def main():
    x = test_signal()
    out = {"samples": SAMPLES, "cases": []}
    for case in CASES:
        feats = log_mel(x, case)
        out["cases"].append({"params": case, "frames": int(feats.shape[0]), "features": [float("%.6g" % v) for v in feats.reshape(-1)]})
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print(OUT, [(c["params"]["name"], c["frames"]) for c in out["cases"]])


if __name__ == "__main__":
    main()
