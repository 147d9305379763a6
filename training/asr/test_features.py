"""Checks that common.LogMel equals the gateway's log-mel definition: the reference values in
test/fixtures/features/log-mel-reference.json (numpy; the TypeScript extractor is tested
against the same file). Run: /usr/bin/python3 training/asr/test_features.py"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))  # common.py
from common import FEATURES, LogMel  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ref = json.load(open(os.path.join(ROOT, "test", "fixtures", "features", "log-mel-reference.json")))
n = ref["samples"]
t = np.arange(n, dtype=np.float64) / 16000
x = 0.5 * np.sin(2 * math.pi * 440 * t) + 0.25 * np.sin(2 * math.pi * 1234.5 * t + 0.3)
x += 0.1 * np.sin(2 * math.pi * (200 * t + 3000 * t * t))
x *= np.where(t < 0.15, 1.0, 0.3)
x = x.astype(np.float32)
worst = 0.0
for case in ref["cases"]:
    p = dict(FEATURES)
    p.update({k: v for k, v in case["params"].items() if k != "name"})
    got = LogMel(p)(x)
    want = np.asarray(case["features"], dtype=np.float64).reshape(case["frames"], -1)
    assert got.shape == want.shape, (case["params"]["name"], got.shape, want.shape)
    err = float(np.max(np.abs(got - want)))
    worst = max(worst, err)
    print(f"{case['params']['name']}: frames={got.shape[0]} max_abs_err={err:.2e}")
    assert err < 1e-3, case["params"]["name"]
print(f"ok: python features match the gateway reference (worst {worst:.2e})")
