"""Checks average_checkpoints.average: floating tensors (BatchNorm statistics included) are the mean,
integer ones the last checkpoint's, the metadata the last's with the steps averaged listed, and
checkpoints of different shapes are refused; and weight_average.mean_state's weighted form, which
interpolate.py uses (w = 0 and 1 give the two ends).
Run: /usr/bin/python3 training/asr/test_average_checkpoints.py"""
from check_setup import ROOT  # noqa: F401  first: one OpenBLAS thread, the import path
import torch
from average_checkpoints import average
from model import CtcNet
from weight_average import mean_state


def checkpoint(seed, step, config):
    torch.manual_seed(seed)
    model = CtcNet(**config)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm1d):
            m.running_mean.normal_()
            m.num_batches_tracked.fill_(step)
    return {"state": model.state_dict(), "config": config, "tokens": ["<blank>", "|", "a"], "step": step,
            "hours": step / 10}


config = {"vocab_size": 3, "n_mels": 80, "dim": 16, "blocks": 2, "kernel": 3, "dropout": 0.0}
a, b, c = checkpoint(1, 100, config), checkpoint(2, 200, config), checkpoint(3, 300, config)
avg = average([a, b, c])
assert avg["averaged"] == [100, 200, 300], avg["averaged"]
assert avg["step"] == 300 and avg["hours"] == 30
floats = 0
for name, t in avg["state"].items():
    if t.is_floating_point():
        floats += 1
        expect = (a["state"][name] + b["state"][name] + c["state"][name]) / 3
        assert torch.allclose(t, expect, atol=1e-6), name
        if not torch.equal(a["state"][name], c["state"][name]):
            assert not torch.equal(t, c["state"][name]), f"{name} was not averaged"
    else:
        assert torch.equal(t, c["state"][name]), f"{name}: integers are the last checkpoint's"
assert floats > 10 and any("running_mean" in n for n in avg["state"])
# the mean model loads and runs
model = CtcNet(**config).eval()
model.load_state_dict(avg["state"])
logits, out_lengths = model(torch.randn(1, 40, 80), torch.tensor([40]))
assert logits.shape == (1, 10, 3) and torch.isfinite(logits).all() and out_lengths.tolist() == [10]
# weighted (interpolate.py): the ends are the two states, a point between is their blend
for w in (0.0, 1.0, 0.25):
    mixed = mean_state([a["state"], b["state"]], [1 - w, w])
    for name, t in mixed.items():
        expect = (1 - w) * a["state"][name] + w * b["state"][name] if t.is_floating_point() else b["state"][name]
        assert torch.allclose(t, expect, atol=1e-6), (w, name)
for bad in (lambda: mean_state([a["state"]], [0.5]), lambda: mean_state([a["state"], b["state"]], [0.5, 0.6]),
            lambda: mean_state([a["state"], {**b["state"], "extra": torch.zeros(1)}])):
    try:
        bad()
        raise AssertionError("mean_state accepted bad weights or parameters")
    except ValueError:
        pass
try:
    average([a, checkpoint(4, 400, {**config, "dim": 32})])
    raise AssertionError("checkpoints of different shapes were averaged")
except SystemExit as e:
    assert "different shapes" in str(e)
print("average_checkpoints: ok")
