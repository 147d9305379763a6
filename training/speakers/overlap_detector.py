"""Fits the overlapped-speech detector (src/engines/diarization/overlap-detector.ts).

    /usr/bin/python3 training/speakers/overlap_detector.py TRAIN_PREFIX DEV_PREFIX OUT.json [--hidden 16] [--epochs 8]

TRAIN_PREFIX / DEV_PREFIX are what training/speakers/overlap-frames.ts writes (train: ALFFA groups
no evaluation set uses, each also at 0.9x and 1.1x speed; dev: the development groups). The
network is a bidirectional GRU (one layer, `--hidden` units each way) over the file's frames
(FRAME_FEATURES per 20 ms frame, standardised), then a linear layer and a sigmoid per frame:
P(two or more people speak). Trained on chunks of 400 frames (a new chunk every 200), loss on
speech frames only (one speaker: negative, two or more: positive); the epoch with the lowest
loss on the dev conversations (whole files, as the gateway runs it) is kept. Prints frame
precision and recall on the dev frames and writes the model JSON: the tensors under PyTorch's
own state_dict names (weight_ih_l0, ..., out.weight), so a detector trained elsewhere in the same
shape loads too. `threshold` and `min_frames` are placeholders here, set afterwards from the DER on
the development conversations (bench/diarization.ts --tune-overlap).
"""
import argparse
import copy
import json

import numpy as np
import torch


def load(prefix):
    meta = json.load(open(prefix + ".json"))
    feats = np.fromfile(prefix + ".bin", dtype=np.float32).reshape(-1, meta["frameFeatures"])
    labels = np.fromfile(prefix + ".labels", dtype=np.uint8)
    return [(feats[c["start"] : c["start"] + c["frames"]], labels[c["start"] : c["start"] + c["frames"]]) for c in meta["conversations"]], meta


class Detector(torch.nn.Module):
    def __init__(self, inputs, hidden):
        super().__init__()
        self.gru = torch.nn.GRU(inputs, hidden, batch_first=True, bidirectional=True)
        self.out = torch.nn.Linear(2 * hidden, 1)

    def forward(self, x):
        return self.out(self.gru(x)[0]).squeeze(-1)


def masked_loss(logits, labels):
    mask = (labels != 255).float()
    target = (labels == 2).float()
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, target, reduction="none")
    return (loss * mask).sum() / mask.sum().clamp(min=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("train")
    ap.add_argument("dev")
    ap.add_argument("out")
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    train, meta = load(args.train)
    dev, _ = load(args.dev)
    every = np.concatenate([x for x, _ in train])
    mean = every.mean(0)
    std = every.std(0) + 1e-6
    xs, ys = [], []
    for x, y in train:
        z = (x - mean) / std
        for i in range(0, max(1, len(z) - 400), 200):
            xs.append(z[i : i + 400])
            ys.append(y[i : i + 400])
    xs = [x for x in xs if len(x) == 400]
    ys = [y for y in ys if len(y) == 400]
    xt = torch.tensor(np.array(xs))
    yt = torch.tensor(np.array(ys).astype(np.int64))
    dev_x = [torch.tensor((x - mean) / std)[None] for x, _ in dev]
    dev_y = [torch.tensor(y.astype(np.int64))[None] for _, y in dev]
    speech = np.concatenate([y for _, y in dev]) != 255
    truth = np.concatenate([y for _, y in dev])[speech] >= 2
    print(f"train {len(xt)} chunks of 400 frames, dev {len(dev)} files, {truth.mean():.3f} of dev speech frames overlapped")
    model = Detector(xt.shape[2], args.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    best = (float("inf"), None, -1)
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(len(xt))
        total = 0.0
        for i in range(0, len(perm), 32):
            b = perm[i : i + 32]
            opt.zero_grad()
            loss = masked_loss(model(xt[b]), yt[b])
            loss.backward()
            opt.step()
            total += loss.item() * len(b)
        model.eval()
        with torch.no_grad():
            dev_loss = sum(masked_loss(model(x), y).item() * (y != 255).sum().item() for x, y in zip(dev_x, dev_y)) / (speech.sum())
        print(f"epoch {epoch + 1}: train loss {total / len(xt):.4f}, dev loss {dev_loss:.4f}", flush=True)
        if dev_loss < best[0]:
            best = (dev_loss, copy.deepcopy(model.state_dict()), epoch + 1)
    model.load_state_dict(best[1])
    print(f"kept epoch {best[2]} (dev loss {best[0]:.4f})")
    with torch.no_grad():
        p = np.concatenate([torch.sigmoid(model(x))[0].numpy() for x in dev_x])[speech]
    for th in (0.3, 0.5, 0.7, 0.8, 0.9):
        on = p > th
        tp = float((on & truth).sum())
        print(f"threshold {th}: precision {tp / max(1, on.sum()):.3f} recall {tp / max(1, truth.sum()):.3f} (dev speech frames, unsmoothed)")
    r = lambda v: float(f"{v:.6g}")  # noqa: E731
    tensors = {k: v.detach().numpy().astype(float) for k, v in model.state_dict().items()}
    names = [f"c{c + 1}" for c in range(meta["frameFeatures"] - 3)] + ["energy", "periodicity0", "periodicity1"]
    out = {
        "name": "overlap-detector-v1",
        "threshold": 0.5,
        "min_frames": 5,
        "features": names,
        "mean": [r(v) for v in mean],
        "std": [r(v) for v in std],
        "hidden": args.hidden,
    }
    for key, value in tensors.items():
        name = key.removeprefix("gru.")
        out[name] = [[r(v) for v in row] for row in value] if value.ndim == 2 else [r(v) for v in value]
    json.dump(out, open(args.out, "w"))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
