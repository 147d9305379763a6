"""The weighted mean of model state dicts of one architecture: checkpoint averaging (ASR
average_checkpoints.py, translation average_mt.py) and weight-space interpolation (interpolate.py).

Rules: every state must have the same parameter names. Floating-point tensors (BatchNorm running
statistics included) are the weighted mean, summed in float64 and cast back to the last state's
dtype; other tensors (num_batches_tracked) are copied from the last state. Weights default to equal
and must sum to 1."""
import torch


def mean_state(states, weights=None):
    """sum_i weights[i] * states[i] over floating tensors; the last state's other tensors."""
    if len(states) < 1:
        raise ValueError("no states to average")
    weights = [1 / len(states)] * len(states) if weights is None else list(weights)
    if len(weights) != len(states) or abs(sum(weights) - 1) > 1e-9:
        raise ValueError("one weight per state, summing to 1")
    last = states[-1]
    if any(s.keys() != last.keys() for s in states):
        raise ValueError("states with different parameters cannot be averaged")
    out = {}
    for name, tensor in last.items():
        if tensor.is_floating_point():
            out[name] = sum(w * s[name].double() for w, s in zip(weights, states)).to(tensor.dtype)
        else:
            out[name] = tensor.clone()
    return out
