"""Rebuilds a CtcNet (model.py) from a shipped model folder's model.onnx, so that training can
resume from committed weights (train.py --init-onnx) without the git-ignored checkpoint.

No `onnx` Python package is needed: the file is read with a small protobuf wire-format reader
(ModelProto.graph -> GraphProto.initializer / node -> TensorProto). export.py exports in eval mode
with constant folding, so each BatchNorm is folded into the convolution before it where there is
one (sub1+bn1, sub2+bn2: a Conv with folded weight and bias); a block's BatchNorm follows a MatMul
and stays a BatchNormalization node with its four tensors. The rebuilt model puts the folded
weights into the convolutions and identity statistics (mean 0, var 1 - eps, weight 1, bias 0)
into the folded BatchNorms, so in eval mode it computes what the ONNX graph computes. Training
then continues from that function (the folded BatchNorm layers learn from identity, which is
what the running statistics of a fresh layer start near).

A block's right context (model.py) is read from its depthwise Conv's pads: kernel - 1 - pad, None
where that is the symmetric kernel // 2. load_ctcnet(..., right_context=r) rebuilds the model with
another right context, its depthwise taps moved by model.realign_taps (same frame offsets kept,
the rest zero; every other weight as shipped).

Usage as a library: model, tokens, info = load_ctcnet("models/small-am-v2")
"""
import json
import os
import struct

import numpy as np
import torch

from model import CtcNet, realign_taps

# TensorProto.DataType -> numpy
DTYPES = {1: np.float32, 6: np.int32, 7: np.int64, 10: np.float16, 11: np.float64}


def _varint(buf, i):
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def _fields(buf):
    """Yields (field number, wire type, value) of one protobuf message (value: int or bytes)."""
    i, n = 0, len(buf)
    while i < n:
        key, i = _varint(buf, i)
        field, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(buf, i)
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 2:
            ln, i = _varint(buf, i)
            v, i = buf[i:i + ln], i + ln
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"protobuf wire type {wt} not supported")
        yield field, wt, v


def _packed(wt, v, fmt):
    if wt == 2:  # packed repeated
        size = struct.calcsize(fmt)
        return list(struct.unpack("<%d%s" % (len(v) // size, fmt), v))
    return [struct.unpack("<" + fmt, v)[0]] if isinstance(v, (bytes, bytearray, memoryview)) else [v]


def _tensor(buf):
    dims, dtype, name, raw, floats, int64s = [], 1, "", None, [], []
    for f, wt, v in _fields(buf):
        if f == 1:
            dims += [v] if wt == 0 else _varints(v)
        elif f == 2:
            dtype = v
        elif f == 8:
            name = bytes(v).decode()
        elif f == 9:
            raw = bytes(v)
        elif f == 4:
            floats += _packed(wt, v, "f")
        elif f == 7:
            int64s += [v] if wt == 0 else _varints(v)
    if dtype not in DTYPES:
        raise ValueError(f"tensor {name}: data type {dtype} not supported")
    if raw is not None:
        arr = np.frombuffer(raw, dtype=DTYPES[dtype]).copy()
    elif dtype == 1:
        arr = np.array(floats, dtype=np.float32)
    else:
        arr = np.array(int64s, dtype=DTYPES[dtype])
    return name, arr.reshape(dims)


def _varints(buf):
    out, i = [], 0
    while i < len(buf):
        v, i = _varint(buf, i)
        out.append(v)
    return out


def _ints_attribute(buf):
    """(name, ints) of an AttributeProto (name: field 1, ints: field 8)."""
    name, ints = "", []
    for f, wt, v in _fields(buf):
        if f == 1:
            name = bytes(v).decode()
        elif f == 8:
            ints += [v] if wt == 0 else _varints(v)
    return name, ints


def _node(buf):
    ins, outs, op, attrs = [], [], "", {}
    for f, _, v in _fields(buf):
        if f == 1:
            ins.append(bytes(v).decode())
        elif f == 2:
            outs.append(bytes(v).decode())
        elif f == 4:
            op = bytes(v).decode()
        elif f == 5:
            name, ints = _ints_attribute(v)
            attrs[name] = ints
    return {"op": op, "inputs": ins, "outputs": outs, "ints": attrs}


def read_onnx(path):
    """(initializers {name: array}, nodes [{op, inputs, outputs}]) of an ONNX file."""
    data = memoryview(open(path, "rb").read())
    graph = next(v for f, _, v in _fields(data) if f == 7)
    inits, nodes = {}, []
    for f, _, v in _fields(graph):
        if f == 5:
            name, arr = _tensor(v)
            inits[name] = arr
        elif f == 1:
            nodes.append(_node(v))
    return inits, nodes


def onnx_state(path, vocab_size):
    """A CtcNet state dict (and its config) equivalent, in eval mode, to the ONNX graph."""
    inits, nodes = read_onnx(path)
    producer = {o: n for n in nodes for o in n["outputs"]}
    consumers = {}
    for n in nodes:
        for x in n["inputs"]:
            consumers.setdefault(x, []).append(n)
    t = lambda name: torch.from_numpy(inits[name].astype(np.float32))  # noqa: E731
    state = {}
    # the two subsampling convolutions, in graph order (BatchNorm folded in by export)
    convs = [n for n in nodes if n["op"] == "Conv" and n["inputs"][1] in inits and inits[n["inputs"][1]].shape[2] == 3]
    if len(convs) != 2:
        raise ValueError(f"{path}: expected 2 subsampling convolutions, found {len(convs)}")
    dim = inits[convs[0]["inputs"][1]].shape[0]
    for k, n in enumerate(convs, 1):
        state[f"sub{k}.weight"] = t(n["inputs"][1])
        state[f"sub{k}.bias"] = t(n["inputs"][2])
        state[f"bn{k}.weight"] = torch.ones(dim)
        state[f"bn{k}.bias"] = torch.zeros(dim)
        state[f"bn{k}.running_mean"] = torch.zeros(dim)
        state[f"bn{k}.running_var"] = torch.ones(dim) - 1e-5  # (x - 0) / sqrt(var + eps) = x
        state[f"bn{k}.num_batches_tracked"] = torch.tensor(0)
    # blocks: depthwise Conv (groups = dim) [-> Slice] -> MatMul(pointwise weight, .) -> BatchNormalization
    dws = [n for n in nodes if n["op"] == "Conv" and n["inputs"][1] in inits and inits[n["inputs"][1]].shape[1] == 1]
    kernel = inits[dws[0]["inputs"][1]].shape[2]
    rights = {kernel - 1 - dw["ints"].get("pads", [kernel // 2])[0] for dw in dws}
    if len(rights) != 1:
        raise ValueError(f"{path}: blocks differ in right context {sorted(rights)}")
    right = rights.pop()
    pointwise = []  # initializer names of the blocks' pointwise weights
    for b, dw in enumerate(dws):
        p = f"blocks.{b}."
        state[p + "dw.weight"] = t(dw["inputs"][1])
        mm = consumers[dw["outputs"][0]][0]
        if mm["op"] == "Slice":  # a bounded right context cuts the padded output to the input's length
            mm = consumers[mm["outputs"][0]][0]
        assert mm["op"] == "MatMul", mm
        pw = mm["inputs"][0]
        w = inits[pw] if pw in inits else None
        pointwise.append(pw)
        if w is None:  # a Squeeze / Slice of the stored [dim, dim, 1] weight
            src = producer[pw]
            w = inits[src["inputs"][0]]
            pointwise.append(src["inputs"][0])
        state[p + "pw.weight"] = torch.from_numpy(w.astype(np.float32).reshape(dim, dim, 1))
        bn = consumers[mm["outputs"][0]][0]
        assert bn["op"] == "BatchNormalization", bn
        for field, name in zip(("weight", "bias", "running_mean", "running_var"), bn["inputs"][1:5]):
            state[p + "bn." + field] = t(name)
        state[p + "bn.num_batches_tracked"] = torch.tensor(0)
    # output layer: MatMul(out.weight[:, :, 0], x) + out.bias. Where the vocabulary is as large as the
    # width (a Ge'ez syllabary of 256 tokens, width 256), the blocks' tensors have its shapes too: those
    # read by convolutions, batch norms and the blocks' pointwise MatMuls are not the output layer's.
    taken = set(pointwise)
    for n in nodes:
        if n["op"] in ("Conv", "BatchNormalization"):
            taken.update(n["inputs"][1:])
    out_w = [a for k, a in inits.items() if k not in taken and a.ndim in (2, 3) and a.shape[0] == vocab_size and a.shape[1] == dim]
    out_b = [a for k, a in inits.items() if k not in taken and a.size == vocab_size and a.shape[0] == vocab_size and a.dtype == np.float32]
    if len(out_w) != 1 or len(out_b) != 1:
        raise ValueError(f"{path}: output layer not found unambiguously ({len(out_w)} weights, {len(out_b)} biases)")
    state["out.weight"] = torch.from_numpy(out_w[0].astype(np.float32).reshape(vocab_size, dim, 1))
    state["out.bias"] = torch.from_numpy(out_b[0].astype(np.float32).reshape(vocab_size))
    n_mels = state["sub1.weight"].shape[1]
    config = dict(vocab_size=vocab_size, n_mels=n_mels, dim=dim, blocks=len(dws), kernel=kernel, dropout=0.0)
    if right != kernel // 2:
        config["right_context"] = right
    return state, config


KEEP = "model"  # load_ctcnet's default right_context: the shipped model's own


def load_ctcnet(model_dir, dropout=0.0, right_context=KEEP):
    """(CtcNet in eval mode, tokens, info) rebuilt from model_dir/{manifest.json, vocab.txt, model.onnx};
    with right_context (None = symmetric, or an int) other than the model's, the depthwise taps are
    realigned to it (realign_taps) and info notes the change."""
    manifest = json.load(open(os.path.join(model_dir, "manifest.json"), encoding="utf-8"))
    tokens = open(os.path.join(model_dir, manifest.get("vocabulary", "vocab.txt")), encoding="utf-8").read().split("\n")
    tokens = [x for x in tokens if x != ""]
    state, config = onnx_state(os.path.join(model_dir, manifest.get("onnx", "model.onnx")), len(tokens))
    config["dropout"] = dropout
    shipped_right = config.get("right_context")
    extra = {}
    if right_context != KEEP and right_context != shipped_right:
        for key in [k for k in state if k.endswith(".dw.weight")]:
            state[key] = realign_taps(state[key], shipped_right, right_context)
        config.pop("right_context", None)
        if right_context is not None:
            config["right_context"] = right_context
        extra["realigned_right_context"] = {"from": shipped_right, "to": right_context}
    model = CtcNet(**config)
    model.load_state_dict(state)
    model.eval()
    return model, tokens, {"model": os.path.normpath(model_dir), "name": manifest.get("name"), "language": manifest.get("language"),
                           "config": config, **extra}
