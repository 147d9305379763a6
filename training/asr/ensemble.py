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

`--blank-bias D` adds D to the joined output's blank logit (as export.py --blank-bias does for one
model; the manifest's `ensemble.blank_bias` records it).

`--member a|b ENSEMBLE_DIR OUT_DIR` takes one member back out (its nodes and initializers, prefix
removed, its own `logits` and `out_lengths`) as a model folder of its own, so that training can resume
from a member whose checkpoint only lives in the ensemble (train.py --init-onnx OUT_DIR).

Usage: /usr/bin/python3 training/asr/ensemble.py A_DIR B_DIR OUT_DIR --weight 0.5 --name NAME \
         --description "..." [--mean geometric|arithmetic]
       /usr/bin/python3 training/asr/ensemble.py --member b ENSEMBLE_DIR OUT_DIR
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


def member(model, prefix):
    """The member graph whose names carry `prefix` (ensemble.joined), as a model of its own."""
    graph = model.graph
    strip = lambda name: name[len(prefix):] if name.startswith(prefix) else name  # noqa: E731
    # the nodes that compute the member's own outputs, walked back from them (not the joining head)
    producer = {o: n for n in graph.node for o in n.output}
    seen, todo = set(), [prefix + "logits", prefix + "out_lengths"]
    while todo:
        name = todo.pop()
        node = producer.get(name)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        todo += [x for x in node.input if x]
    nodes = [n for n in graph.node if id(n) in seen]  # graph order
    for node in nodes:
        for i, name in enumerate(node.input):
            if name and name not in SHARED_INPUTS and not name.startswith(prefix):
                raise ValueError(f"node {node.name} reads {name}, outside member {prefix!r}")
            node.input[i] = strip(name)
        for i, name in enumerate(node.output):
            node.output[i] = strip(name)
        node.name = strip(node.name)
    inits = [t for t in graph.initializer if t.name.startswith(prefix)]
    for tensor in inits:
        tensor.name = strip(tensor.name)
    if not nodes or not inits:
        raise ValueError(f"no member {prefix!r} in this graph")
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "frames", None]),
               helper.make_tensor_value_info("out_lengths", TensorProto.INT64, ["batch"])]
    out = helper.make_model(helper.make_graph(nodes, "ctc_member", list(graph.input), outputs, inits),
                            opset_imports=model.opset_import)
    onnx.checker.check_model(out)
    return out


def write_member(ensemble_dir, letter, out_dir):
    """Member `letter` ("a" or "b") of the ensemble folder, written to out_dir as a model folder of its
    own (model.onnx, vocab.txt, manifest.json without the `ensemble` block nor the pair's confidence
    calibration, which is not copied: the folder loads in the gateway as it is); returns its name."""
    manifest = json.loads(read(ensemble_dir, "manifest.json"))
    if "ensemble" not in manifest:
        raise SystemExit(f"{ensemble_dir} is not an ensemble (no `ensemble` block in its manifest)")
    index = "ab".index(letter)
    model = member(onnx.load(os.path.join(ensemble_dir, manifest["onnx"])), letter + "_")
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "model.onnx"))
    shutil.copy(os.path.join(ensemble_dir, "vocab.txt"), out_dir)
    name = manifest["ensemble"]["members"][index]
    out = {k: v for k, v in manifest.items() if k not in ("ensemble", "confidence_calibration")}
    out.update(name=name, onnx="model.onnx", default=False,
               description=f"member {letter} ({name}) of {manifest['name']}, taken out by ensemble.py --member")
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=2)
        f.write("\n")
    return name


def extract(args):
    ensemble_dir, out_dir = args.folders
    name = write_member(ensemble_dir, args.member, out_dir)
    print(f"wrote {out_dir} ({name}, {os.path.getsize(os.path.join(out_dir, 'model.onnx'))} bytes)")


def read(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


def joined(a, b, weight, mean, blank_bias=0.0, blank_id=0, vocab_size=None):
    ga, gb = prefixed(a, "a_"), prefixed(b, "b_")
    # geometric: the weighted sum of log-posteriors; arithmetic: the log of the weighted sum of posteriors;
    # a blank bias D is added to the blank's logit last (as export.py --blank-bias bakes it into one model)
    posterior = "LogSoftmax" if mean == "geometric" else "Softmax"
    final = "unbiased" if blank_bias else "logits"
    mixed = final if mean == "geometric" else "mixed"
    head = [helper.make_node(posterior, ["a_logits"], ["a_p"], axis=-1),
            helper.make_node(posterior, ["b_logits"], ["b_p"], axis=-1),
            helper.make_node("Mul", ["a_p", "weight_a"], ["a_w"]),
            helper.make_node("Mul", ["b_p", "weight_b"], ["b_w"]),
            helper.make_node("Add", ["a_w", "b_w"], [mixed])]
    if mean == "arithmetic":
        head.append(helper.make_node("Log", ["mixed"], [final]))
    head.append(helper.make_node("Identity", ["a_out_lengths"], ["out_lengths"]))
    weights = [numpy_helper.from_array(np.array(weight, np.float32), "weight_a"),
               numpy_helper.from_array(np.array(1 - weight, np.float32), "weight_b")]
    if blank_bias:
        bias = np.zeros(vocab_size, np.float32)
        bias[blank_id] = blank_bias
        head.append(helper.make_node("Add", ["unbiased", "blank_bias"], ["logits"]))
        weights.append(numpy_helper.from_array(bias, "blank_bias"))
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "frames", None]),
               helper.make_tensor_value_info("out_lengths", TensorProto.INT64, ["batch"])]
    graph = helper.make_graph(list(ga.node) + list(gb.node) + head, "ctc_ensemble", list(a.graph.input), outputs,
                              list(ga.initializer) + list(gb.initializer) + weights)
    model = helper.make_model(graph, opset_imports=a.opset_import)
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", help="A_DIR B_DIR OUT_DIR, or with --member: ENSEMBLE_DIR OUT_DIR")
    ap.add_argument("--member", choices=["a", "b"], help="take this member out of an ensemble folder")
    ap.add_argument("--weight", type=float, default=0.5, help="A's share (B's is 1 - weight)")
    ap.add_argument("--mean", choices=["geometric", "arithmetic"], default="geometric")
    ap.add_argument("--blank-bias", type=float, default=0.0, help="added to the blank's logit of the joined output")
    ap.add_argument("--name")
    ap.add_argument("--description")
    args = ap.parse_args()
    if args.member:
        if len(args.folders) != 2:
            ap.error("--member takes ENSEMBLE_DIR OUT_DIR")
        return extract(args)
    if len(args.folders) != 3 or not args.name or not args.description:
        ap.error("joining takes A_DIR B_DIR OUT_DIR with --name and --description")
    args.a, args.b, args.out = args.folders
    vocab = read(args.a, "vocab.txt")
    if vocab != read(args.b, "vocab.txt"):
        raise SystemExit("the two models' vocabularies differ")
    ma, mb = (json.loads(read(d, "manifest.json")) for d in (args.a, args.b))
    for key in ("input", "frame_stride_samples", "blank_id", "word_delimiter"):
        if ma.get(key) != mb.get(key):
            raise SystemExit(f"the two models' manifests differ in {key}")
    model = joined(onnx.load(os.path.join(args.a, ma["onnx"])), onnx.load(os.path.join(args.b, mb["onnx"])),
                   args.weight, args.mean, args.blank_bias, ma["blank_id"], len(vocab.splitlines()))
    os.makedirs(args.out, exist_ok=True)
    onnx.save(model, os.path.join(args.out, "model.onnx"))
    shutil.copy(os.path.join(args.a, "vocab.txt"), args.out)
    manifest = dict(ma, name=args.name, description=args.description, onnx="model.onnx", default=False,
                    ensemble={"mean": args.mean, "weights": [args.weight, 1 - args.weight],
                              "members": [ma["name"], mb["name"]]})
    if args.blank_bias:
        manifest["ensemble"]["blank_bias"] = args.blank_bias
    manifest.pop("confidence_calibration", None)  # calibrated for A's posteriors alone
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(f"wrote {args.out} ({os.path.getsize(os.path.join(args.out, 'model.onnx'))} bytes)")


if __name__ == "__main__":
    main()
