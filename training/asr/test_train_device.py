"""Checks train.py --device on a tiny random set in a scratch work folder (TRAINING_WORK_DIR), so that
a session lent a GPU can train with the same scripts:
  - --device cpu trains, logs its device, stops at --max-steps and saves a checkpoint (that its tensors
    are on the CPU can only fail after a cuda run, below);
  - --device auto picks cuda exactly when torch sees one (else cpu);
  - where torch sees a GPU: a --device cuda run of the same seed and steps logs losses within 5% of
    the cpu run's (the same batches, SpecAugment and learning rates; only float rounding differs),
    and its checkpoint loads on the CPU. Without a GPU that part is skipped and says so.
Run: /usr/bin/python3 training/asr/test_train_device.py"""
from check_setup import HERE  # noqa: F401  first: one OpenBLAS thread, the import path
import json
import os
import subprocess
import sys
import tempfile

import torch

LETTERS = "ሰላምነውአበተከዘየደገጠ"


def tiny_set(work, name, rows=24, seed=0):
    """prepare_data.py's layout: normalised log-mel rows [frames, 80] and their texts."""
    g = torch.Generator().manual_seed(seed)
    feats, texts = [], []
    for i in range(rows):
        frames = 120 + 40 * (i % 5)
        feats.append(torch.randn(frames, 80, generator=g))
        words = [LETTERS[(i + k) % len(LETTERS)] + LETTERS[(3 * i + k) % len(LETTERS)] for k in range(1 + i % 3)]
        texts.append(" ".join(words))
    torch.save({"feats": feats, "texts": texts, "ids": [f"{name}-{i}" for i in range(rows)]}, os.path.join(work, name + ".pt"))


def train(work, name, device, steps=30):
    """Runs train.py for `steps` steps; returns its log events."""
    env = dict(os.environ, TRAINING_WORK_DIR=work)
    cmd = [sys.executable, os.path.join(HERE, "train.py"), "--name", name, "--lang", "am", "--sets", "tiny_train",
           "--valid", "tiny_train", "--select", "tiny_train", "--dim", "32", "--blocks", "2", "--kernel", "5",
           "--lr", "0.003", "--warmup", "10", "--max-frames", "1200", "--minutes", "10", "--max-steps", str(steps),
           "--checkpoint-minutes", "10", "--seed", "5", "--device", device]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def losses(events):
    return [e["loss"] for e in events if e.get("event") == "step"]


def main():
    with tempfile.TemporaryDirectory() as work:
        tiny_set(work, "tiny_train")
        cpu = train(work, "on-cpu", "cpu")
        model = next(e for e in cpu if e.get("event") == "model")
        assert model["device"] == "cpu", model
        assert losses(cpu), "no step logged"
        assert max(e["step"] for e in cpu if e.get("event") == "step") <= 30
        state = torch.load(os.path.join(work, "runs", "on-cpu", "checkpoint.pt"))
        assert all(t.device.type == "cpu" for t in state["state"].values())
        auto = train(work, "auto", "auto", steps=2)
        picked = next(e for e in auto if e.get("event") == "model")["device"]
        assert picked.startswith("cuda") == torch.cuda.is_available(), picked
        if not torch.cuda.is_available():
            print("device checks passed (cpu; no GPU here, so the cuda comparison was skipped)")
            return
        gpu = train(work, "on-cuda", "cuda")
        assert next(e for e in gpu if e.get("event") == "model")["device"].startswith("cuda")
        a, b = losses(cpu), losses(gpu)
        assert len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert abs(x - y) <= 0.05 * max(abs(x), 1e-3), (a, b)
        state = torch.load(os.path.join(work, "runs", "on-cuda", "checkpoint.pt"))
        assert all(t.device.type == "cpu" for t in state["state"].values())
        print("device checks passed (cpu and cuda)")


if __name__ == "__main__":
    main()
