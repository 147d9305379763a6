#!/usr/bin/env python3
"""Averages the weights of checkpoints of one train.py run (train.py --keep-checkpoints keeps each
periodic one as checkpoint-<step>.pt) into a checkpoint export.py reads like any other.

Rules: every checkpoint must have the same config and tokens (one run). Floating-point tensors,
BatchNorm running statistics included, are the plain mean; integer tensors (num_batches_tracked)
are the last checkpoint's. The metadata (step, hours, args...) is the last checkpoint's, with
`averaged` listing the steps that went in. Choose what to average on the val speakers only (export,
then held-out-decoding.ts --sets val), never on test.

Usage: /usr/bin/python3 training/asr/average_checkpoints.py --run small-am-v3c13 --last 3 [--out avg3]
       /usr/bin/python3 training/asr/average_checkpoints.py --run small-am-v3c13 --steps 14000,15000 --out avg
"""
import argparse
import glob
import os
import re
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))
from weight_average import mean_state  # noqa: E402

WORK = os.path.join(os.path.dirname(HERE), "work")  # training/work (git-ignored)


def kept_steps(run_dir):
    """The steps of the run's kept checkpoints, ascending."""
    steps = []
    for path in glob.glob(os.path.join(run_dir, "checkpoint-*.pt")):
        m = re.fullmatch(r"checkpoint-(\d+)\.pt", os.path.basename(path))
        if m:
            steps.append(int(m.group(1)))
    return sorted(steps)


def average(checkpoints):
    """The mean of the checkpoints' states (weight_average.mean_state), with the last one's metadata."""
    first = checkpoints[0]
    if any(ck["config"] != first["config"] or ck["tokens"] != first["tokens"] for ck in checkpoints):
        raise SystemExit("checkpoints of different shapes or vocabularies cannot be averaged")
    state = mean_state([ck["state"] for ck in checkpoints])
    return {**checkpoints[-1], "state": state, "averaged": [ck["step"] for ck in checkpoints]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True, help="work/runs/<run>/")
    ap.add_argument("--last", type=int, help="average the last N kept checkpoints")
    ap.add_argument("--steps", help="comma-separated steps of kept checkpoints to average")
    ap.add_argument("--out", help="checkpoint name written in the run folder (default avg<N>)")
    a = ap.parse_args()
    run_dir = os.path.join(WORK, "runs", a.run)
    kept = kept_steps(run_dir)
    if a.steps:
        steps = [int(s) for s in a.steps.split(",")]
        missing = [s for s in steps if s not in kept]
        if missing:
            raise SystemExit(f"no kept checkpoint of step(s) {missing}; kept: {kept}")
    elif a.last:
        if a.last > len(kept):
            raise SystemExit(f"{a.last} asked, {len(kept)} kept: {kept}")
        steps = kept[-a.last:]
    else:
        raise SystemExit("give --last N or --steps S1,S2,...")
    if len(steps) < 2:
        raise SystemExit("averaging needs at least two checkpoints")
    checkpoints = [torch.load(os.path.join(run_dir, f"checkpoint-{s}.pt"), map_location="cpu") for s in steps]
    out = a.out or f"avg{len(steps)}"
    torch.save(average(checkpoints), os.path.join(run_dir, f"{out}.pt"))
    print(f"{out}.pt: mean of steps {steps}")


if __name__ == "__main__":
    main()
