#!/usr/bin/env python3
"""feature_norm.py against the definitions it batches: the per-utterance normalisation of
common.LogMel, and the gateway's running normaliser (src/engines/signal/features/running-normalizer.ts,
transcribed below frame by frame). Also: padding never changes a row, a running row's prefix is the
running normalisation of the prefix (nothing reads ahead), and normalize_rows mixes both per row.

Usage: /usr/bin/python3 training/asr/test_feature_norm.py"""
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from common import FEATURES, LogMel  # noqa: E402
import feature_norm  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def running_reference(feat, mean0, std0, prior):
    """running-normalizer.ts, one frame at a time."""
    channels = feat.shape[1]
    s1 = [prior * mean0[c] for c in range(channels)]
    s2 = [prior * (std0[c] ** 2 + mean0[c] ** 2) for c in range(channels)]
    n = prior
    out = np.zeros_like(feat, dtype=np.float64)
    for t in range(feat.shape[0]):
        n += 1
        for c in range(channels):
            x = float(feat[t, c])
            s1[c] += x
            s2[c] += x * x
            m = s1[c] / n
            sd = math.sqrt(max(0.0, (s2[c] - n * m * m) / (n - 1))) if n > 1 else 0.0
            out[t, c] = (x - m) / (sd + feature_norm.EPSILON)
    return out


def main():
    rng = np.random.default_rng(5)
    stats = feature_norm.load_stream_stats(os.path.join(ROOT, "models", "small-am-stream-v3", "stream-stats.json"))
    pcm = [(rng.standard_normal(int(16000 * s)) * 0.1).astype(np.float32) for s in (1.3, 0.4, 2.1)]
    raw = [LogMel({**FEATURES, "normalize": "none"})(p) for p in pcm]
    ref_utt = [LogMel({**FEATURES, "normalize": "per_utterance"})(p) for p in pcm]
    lengths = torch.tensor([r.shape[0] for r in raw])
    x = torch.zeros(len(raw), int(lengths.max()), raw[0].shape[1])
    for k, r in enumerate(raw):
        x[k, :r.shape[0]] = torch.from_numpy(r)

    got = feature_norm.per_utterance(x, lengths)
    for k, r in enumerate(ref_utt):
        err = float((got[k, :r.shape[0]] - torch.from_numpy(r)).abs().max())
        assert err < 1e-4, f"per utterance, row {k}: max abs {err}"
        assert not bool(got[k, r.shape[0]:].any()), "padding must stay 0"

    small = {"mean": stats["mean"][:6], "std": stats["std"][:6], "prior_frames": stats["prior_frames"]}
    for prior in (stats["prior_frames"], 0):
        s = dict(small, prior_frames=prior)
        got = feature_norm.running(x[:, :, :6], lengths, s)
        for k, r in enumerate(raw):
            want = running_reference(r[:, :6], small["mean"].tolist(), small["std"].tolist(), prior)
            err = float((got[k, :r.shape[0]] - torch.from_numpy(want)).abs().max())
            assert err < 1e-4, f"running (prior {prior}), row {k}: max abs {err}"

    full = feature_norm.running(x, lengths, stats)
    for k in range(len(raw)):
        n = int(lengths[k])
        alone = feature_norm.running(x[k:k + 1, :n], lengths[k:k + 1], stats)[0]
        assert torch.equal(alone, full[k, :n]), f"running, row {k}: padding or batching changed it"
        cut = n // 2
        prefix = feature_norm.running(x[k:k + 1, :cut], torch.tensor([cut]), stats)[0]
        assert torch.equal(prefix, full[k, :cut]), f"running, row {k}: a frame read later audio"

    whole_ref = feature_norm.per_utterance(x, lengths)
    mixed, whole = feature_norm.normalize_rows(x, lengths, torch.tensor([True, False, True]), stats)
    assert torch.equal(mixed[0], full[0]) and torch.equal(mixed[2], full[2])
    assert torch.equal(mixed[1], whole_ref[1]) and torch.equal(whole, whole_ref), "the teacher's rows stay per utterance"
    mixed, whole = feature_norm.normalize_rows(x, lengths)
    assert torch.equal(mixed, whole_ref) and torch.equal(whole, whole_ref)
    print("test_feature_norm: ok")


if __name__ == "__main__":
    main()
