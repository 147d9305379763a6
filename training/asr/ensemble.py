#!/usr/bin/env python3
"""Joins two CTC model folders of the same vocabulary, features and frame rate into one model folder
whose `logits` are the weighted geometric mean of their frame posteriors:

    logits = w * log_softmax(A) + (1 - w) * log_softmax(B)

(the gateway's decoders normalise logits with a softmax, so this is the renormalised product of the
two posteriors, a product of experts). `out_lengths` are A's (the two must agree: same subsampling).
Both graphs run side by side in one ONNX graph (their node and initializer names prefixed `a_` and
`b_`), so the gateway loads and serves the pair as one model: twice the model's compute, the same
decoders and LM. The manifest is A's (its features, decoding and LM weights; name and description
given here), never the default; the card is written separately.

A geometric mean keeps a frame's letter where both models agree and lets the blank win where they
disagree; the arithmetic mean of probabilities (`--mean arithmetic`) keeps either model's spike.
Measured on the val groups (training/asr/README.md, candidate 10): geometric read better.

Usage: /usr/bin/python3 training/asr/ensemble.py A_DIR B_DIR OUT_DIR --weight 0.5 --name NAME \
         --description "..." [--mean geometric|arithmetic]
"""
import argparse
import json
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHARED_INPUTS = ("features", "lengths")


def prefixed(model, prefix):
    """The model's graph with every node, value and initializer name prefixed, the shared inputs kept."""
    graph = model.graph
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name and name not in SHARED_INPUTS:
                node.input[i] = prefix + name
        for i, name in enumerate(node.output):
            node.output[i] = prefix + name
        node.name = prefix + node.name
    for tensor in graph.initializer:
        tensor.name = prefix + tensor.name
    return graph


def read(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


def joined(a, b, weight, mean):
    ga, gb = prefixed(a, "a_"), prefixed(b, "b_")
    # geometric: the weighted sum of log-posteriors; arithmetic: the log of the weighted sum of posteriors
    posterior = "LogSoftmax" if mean == "geometric" else "Softmax"
    mixed = "logits" if mean == "geometric" else "mixed"
    head = [helper.make_node(posterior, ["a_logits"], ["a_p"], axis=-1),
            helper.make_node(posterior, ["b_logits"], ["b_p"], axis=-1),
            helper.make_node("Mul", ["a_p", "weight_a"], ["a_w"]),
            helper.make_node("Mul", ["b_p", "weight_b"], ["b_w"]),
            helper.make_node("Add", ["a_w", "b_w"], [mixed])]
    if mean == "arithmetic":
        head.append(helper.make_node("Log", ["mixed"], ["logits"]))
    head.append(helper.make_node("Identity", ["a_out_lengths"], ["out_lengths"]))
    weights = [numpy_helper.from_array(np.array(weight, np.float32), "weight_a"),
               numpy_helper.from_array(np.array(1 - weight, np.float32), "weight_b")]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "frames", None]),
               helper.make_tensor_value_info("out_lengths", TensorProto.INT64, ["batch"])]
    graph = helper.make_graph(list(ga.node) + list(gb.node) + head, "ctc_ensemble", list(a.graph.input), outputs,
                              list(ga.initializer) + list(gb.initializer) + weights)
    model = helper.make_model(graph, opset_imports=a.opset_import)
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("out")
    ap.add_argument("--weight", type=float, default=0.5, help="A's share (B's is 1 - weight)")
    ap.add_argument("--mean", choices=["geometric", "arithmetic"], default="geometric")
    ap.add_argument("--name", required=True)
    ap.add_argument("--description", required=True)
    args = ap.parse_args()
    if read(args.a, "vocab.txt") != read(args.b, "vocab.txt"):
        raise SystemExit("the two models' vocabularies differ")
    ma, mb = (json.loads(read(d, "manifest.json")) for d in (args.a, args.b))
    for key in ("input", "frame_stride_samples", "blank_id", "word_delimiter"):
        if ma.get(key) != mb.get(key):
            raise SystemExit(f"the two models' manifests differ in {key}")
    model = joined(onnx.load(os.path.join(args.a, ma["onnx"])), onnx.load(os.path.join(args.b, mb["onnx"])),
                   args.weight, args.mean)
    os.makedirs(args.out, exist_ok=True)
    onnx.save(model, os.path.join(args.out, "model.onnx"))
    shutil.copy(os.path.join(args.a, "vocab.txt"), args.out)
    manifest = dict(ma, name=args.name, description=args.description, onnx="model.onnx", default=False,
                    ensemble={"mean": args.mean, "weights": [args.weight, 1 - args.weight],
                              "members": [ma["name"], mb["name"]]})
    manifest.pop("confidence_calibration", None)  # calibrated for A's posteriors alone
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(f"wrote {args.out} ({os.path.getsize(os.path.join(args.out, 'model.onnx'))} bytes)")


if __name__ == "__main__":
    main()
