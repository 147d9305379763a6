"""Checks the interference copies of candidate 16 (prepare_data.py --noisy-copies, speech_augment.noisy_copy):
  1. at_snr mixes at the stated SNR (speech power over added power), for every interference kind;
  2. every kind comes out, near its share (35 / 25 / 20 / 20% of 400 draws), as n finite samples with power
     (but for a few call tones whose cadence is off for the whole piece: that copy stays clean);
  3. babble is made of the pool's utterances only (a pool of one silent utterance gives silence);
  4. noisy_copy's features have the clean utterance's frame count and are finite, also for a silent pool.
Run: /usr/bin/python3 training/asr/test_noisy_copy.py (a few seconds)"""
from check_setup import ROOT  # noqa: F401 (first: one OpenBLAS thread, the import path)
import numpy as np
from common import SAMPLE_RATE
from speech_augment import NOISY_KINDS, at_snr, interference, noisy_copy

rng = np.random.default_rng(16)
n = 3 * SAMPLE_RATE
speech = np.sin(np.arange(n) * 2 * np.pi * 220 / SAMPLE_RATE) * np.hanning(n)
pool = [rng.standard_normal(SAMPLE_RATE * k).astype(np.float32) * 0.1 for k in (1, 2, 3)]

counts = {k: 0 for k in NOISY_KINDS}
silent_other = 0
for _ in range(400):
    noise, kind = interference(n, rng, pool)
    counts[kind] += 1
    assert noise.shape == (n,) and np.all(np.isfinite(noise)), kind
    if np.mean(noise ** 2) == 0:  # a call tone whose cadence is off for the whole piece: the copy stays clean
        silent_other += 1
        assert kind == "other", kind
        assert np.array_equal(at_snr(speech, noise, 5.0), speech)
        continue
    for snr in (0.0, 5.0, 15.0):
        mixed = at_snr(speech, noise, snr)
        got = 10 * np.log10(np.mean(speech ** 2) / np.mean((mixed - speech) ** 2))
        assert abs(got - snr) < 1e-3, (kind, snr, got)  # the 1e-12 guards against silence
for kind, share in zip(NOISY_KINDS, (0.35, 0.25, 0.2, 0.2)):
    assert abs(counts[kind] / 400 - share) < 0.08, counts
assert silent_other < 0.05 * 400, silent_other

silent = [np.zeros(SAMPLE_RATE, dtype=np.float32)]
babble_seen = 0
while babble_seen < 5:
    noise, kind = interference(n, rng, silent)
    if kind == "babble":
        babble_seen += 1
        assert np.max(np.abs(noise)) == 0, "babble from a silent pool must be silent"

for pool_ in (pool, silent):
    for _ in range(20):
        feats, kind = noisy_copy(speech.astype(np.float32), rng, pool_)
        assert np.all(np.isfinite(feats)), kind
        assert feats.shape[1] == 80
        assert 0.85 * (n / 160) <= feats.shape[0] <= 1.15 * (n / 160) + 2, feats.shape  # tempo 0.9..1.1
print(f"ok: interference kinds {counts} ({silent_other} silent tones); SNR within 0.001 dB for every kind; babble only from the pool; features finite")
