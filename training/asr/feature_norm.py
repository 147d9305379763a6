"""The two feature normalisations the gateway applies to raw log-mel features, batched over padded
rows [B, T, C] for training:

- per utterance (REST and the second pass of a live turn; common.LogMel's "per_utterance"): every
  channel by the mean and standard deviation (n - 1) of the row's valid frames;
- running (a live stream's partials: src/engines/signal/features/running-normalizer.ts): frame t by
  the mean and standard deviation (n - 1) of frames 0..t, with `prior_frames` frames of fixed
  statistics (the model's stream-stats.json) in the sums, so frame t never depends on later audio.

Both add EPSILON to the deviation, as the gateway does. Padding frames come back 0. Sums are in
float64, as the gateway's. Rows a training set stored raw (prepare_data.py --raw-features) go through
one of these at batch time, so one set trains a model for both paths.
"""
import json

import torch

EPSILON = 1e-5  # NORMALIZE_EPSILON in src/engines/signal/features/log-mel-features.ts


def load_stream_stats(path):
    """{mean [C], std [C], prior_frames} of a stream-stats.json (stream-statistics.ts writes them)."""
    with open(path, encoding="utf-8") as f:
        s = json.load(f)
    mean = torch.tensor(s["mean"], dtype=torch.float64)
    std = torch.tensor(s["std"], dtype=torch.float64)
    if mean.shape != std.shape:
        raise ValueError(f"{path}: mean and std have different lengths")
    return {"mean": mean, "std": std, "prior_frames": int(s["prior_frames"])}


def _valid(lengths, frames):
    return (torch.arange(frames)[None, :] < lengths[:, None]).to(torch.float64)[:, :, None]  # [B, T, 1]


def per_utterance(x, lengths):
    """[B, T, C] raw features, [B] valid lengths -> each row normalised by its own valid frames."""
    x64 = x.to(torch.float64)
    valid = _valid(lengths, x.shape[1])
    n = lengths.to(torch.float64)[:, None, None]
    mean = (x64 * valid).sum(1, keepdim=True) / n.clamp_min(1)
    var = (((x64 - mean) * valid) ** 2).sum(1, keepdim=True) / (n - 1).clamp_min(1)
    std = torch.where(n > 1, var.sqrt(), torch.zeros_like(var))
    return (((x64 - mean) / (std + EPSILON)) * valid).to(x.dtype)


def running(x, lengths, stats):
    """[B, T, C] raw features -> frame t of each row normalised by frames 0..t and the prior."""
    x64 = x.to(torch.float64)
    valid = _valid(lengths, x.shape[1])
    p = stats["prior_frames"]
    mean0, std0 = stats["mean"], stats["std"]
    if mean0.shape[0] != x.shape[2]:
        raise ValueError(f"stream statistics have {mean0.shape[0]} channels, the features {x.shape[2]}")
    s1 = p * mean0 + torch.cumsum(x64, 1)
    s2 = p * (std0 ** 2 + mean0 ** 2) + torch.cumsum(x64 * x64, 1)
    n = (p + torch.arange(1, x.shape[1] + 1, dtype=torch.float64))[None, :, None]
    mean = s1 / n
    var = ((s2 - n * mean * mean) / (n - 1).clamp_min(1)).clamp_min(0)
    std = torch.where(n > 1, var.sqrt(), torch.zeros_like(var))
    return (((x64 - mean) / (std + EPSILON)) * valid).to(x.dtype)


def normalize_rows(x, lengths, running_rows=None, stats=None):
    """(mixed, whole): `whole` is every row normalised per utterance; `mixed` is the same except the rows
    where `running_rows` ([B] bool) is set, which take the running normalisation. Each row is
    normalised once each way it is needed (a teacher reads `whole`, its student `mixed`); `mixed` is
    `whole` itself when no row runs."""
    whole = per_utterance(x, lengths)
    if running_rows is None or not bool(running_rows.any()):
        return whole, whole
    mixed = whole.clone()
    mixed[running_rows] = running(x[running_rows], lengths[running_rows], stats)
    return mixed, whole
