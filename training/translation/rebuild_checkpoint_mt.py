"""Rebuilds a PyTorch checkpoint (train_mt.py format) from an exported model folder (export_mt.py layout).

The exported graphs hold every parameter: large ones as float16 in `weights.bin` behind `<name>__f16`
initializers and a Cast node, small ones (biases, LayerNorm) as float32 initializers named after the
parameter. Linear weights are exported transposed under anonymous names (`onnx::MatMul_N`); they are
matched to their module through the bias their MatMul output is added to (`MatMul(x, W^T) + b`). The tied
output projection (`embed.weight^T`) is checked against the embedding and skipped. Weights come back with
float16 precision (the original float32 checkpoint is gone), the optimizer state is not recoverable, so
continued training starts a fresh optimizer (train_mt.py --init).
Usage: rebuild_checkpoint_mt.py --model models/translate-am-en-ti-v1 --out /work/mt-work/shipped.pt
"""
import argparse
import json
import os

import numpy as np
import onnx
from onnx import numpy_helper
import torch

from mt_model import Seq2Seq

GRAPHS = ('encoder_model.onnx', 'decoder_model.onnx', 'decoder_with_past_model.onnx')


def graph_params(path):
    """{parameter name: float32 array} for one exported graph."""
    model = onnx.load(path, load_external_data=True)  # resolves weights.bin next to the graph
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i).astype(np.float32) for i in graph.initializer}
    cast_src = {n.output[0]: n.input[0] for n in graph.node if n.op_type == 'Cast' and n.input[0] in inits}
    value = lambda name: inits[cast_src.get(name, name)] if cast_src.get(name, name) in inits else None
    consumers = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    out = {}
    for name, arr in inits.items():
        if name.startswith('model.'):
            out[name[len('model.'):].removesuffix('__f16')] = arr
    for node in graph.node:
        if node.op_type != 'MatMul' or value(node.input[1]) is None:
            continue
        weight = value(node.input[1])
        bias_name = None
        for add in consumers.get(node.output[0], []):
            if add.op_type == 'Add':
                other = [n for n in add.input if n != node.output[0]]
                if other and other[0].startswith('model.') and other[0].endswith('.bias'):
                    bias_name = other[0]
        if bias_name is None:
            if weight.shape[1] == inits['model.embed.weight__f16'].shape[0]:
                assert np.array_equal(weight.T, inits['model.embed.weight__f16']), 'output projection is not the tied embedding'
                continue
            raise ValueError(f'no bias found for {node.input[1]} in {path}')
        out[bias_name[len('model.'):-len('.bias')] + '.weight'] = weight.T.copy()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--model', required=True)
    ap.add_argument('--out', required=True)
    args = ap.parse_args()
    manifest = json.load(open(os.path.join(args.model, 'manifest.json')))
    targs = manifest['training']['args']
    config = dict(vocab=None, dim=targs['dim'], heads=targs['heads'], hidden=targs['hidden'], enc_layers=targs['enc_layers'],
                  dec_layers=targs['dec_layers'], dropout=targs['dropout'], max_len=512, pad_id=0)
    params = {}
    for g in GRAPHS:
        for name, arr in graph_params(os.path.join(args.model, g)).items():
            if name in params:
                assert np.array_equal(params[name], arr), f'{name} differs between graphs'
            params[name] = arr
    config['vocab'] = params['embed.weight'].shape[0]
    model = Seq2Seq(**config)
    expected = model.state_dict()
    missing = sorted(set(expected) - set(params))
    extra = sorted(set(params) - set(expected))
    assert not missing and not extra, f'missing {missing} extra {extra}'
    for name, arr in params.items():
        assert tuple(expected[name].shape) == arr.shape, (name, expected[name].shape, arr.shape)
    model.load_state_dict({n: torch.from_numpy(a) for n, a in params.items()})
    state = {'config': model.config, 'model': model.state_dict(), 'optimizer': None, 'step': manifest['training']['checkpoint_step'],
             'args': {**targs, 'rebuilt_from': os.path.normpath(args.model)}, 'history': [
                 {'stage': 'from-scratch', 'steps': manifest['training']['checkpoint_step'], 'minutes': targs.get('minutes'), 'data': 'parallel'}]}
    torch.save(state, args.out)
    print(f'rebuilt {len(params)} tensors, {sum(a.size for a in params.values())} parameters, step {state["step"]} -> {args.out}')


if __name__ == '__main__':
    main()
