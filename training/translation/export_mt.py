"""Exports a translation checkpoint to the model folder the gateway serves (docs/translation-models.md).

Three ONNX graphs in the Hugging Face Optimum "split" seq2seq layout (encoder_model.onnx, decoder_model.onnx
for the first step, decoder_with_past_model.onnx for every later step), weights stored once as float16 in a
shared external-data file `weights.bin` (Cast nodes restore float32 when onnxruntime loads the graph), the
SentencePiece model, and manifest.json.
Usage: export_mt.py --checkpoint /work/mtrun/final.pt --data /work/mtdata --out models/translate-am-en-ti-v1
"""
import argparse
import hashlib
import json
import os
import shutil
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
import torch

from hub_export import EncoderGraph
from mt_model import Seq2Seq

OPSET = 14
ALIGN = 4096
MIN_ELEMENTS_TO_SHARE = 1024


class FirstStepGraph(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, encoder_attention_mask, encoder_hidden_states):
        cross = self.model.cross_kv(encoder_hidden_states)
        logits, presents = self.model.decode(input_ids, encoder_attention_mask, cross)
        out = [logits]
        for (k, v), (ck, cv) in zip(presents, cross):
            out += [k, v, ck, cv]
        return tuple(out)


class StepGraph(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, encoder_attention_mask, *past):
        layers = len(self.model.decoder)
        self_past = [(past[4 * i], past[4 * i + 1]) for i in range(layers)]
        cross = [(past[4 * i + 2], past[4 * i + 3]) for i in range(layers)]
        logits, presents = self.model.decode(input_ids, encoder_attention_mask, cross, self_past)
        out = [logits]
        for k, v in presents:
            out += [k, v]
        return tuple(out)


def share_weights(paths, out_dir, weights_name='weights.bin'):
    """Moves every large float initializer into one float16 file, each distinct tensor stored once."""
    blob = bytearray()
    offsets = {}
    for path in paths:
        model = onnx.load(path)
        graph = model.graph
        casts, keep = [], []
        for init in graph.initializer:
            arr = numpy_helper.to_array(init)
            if init.data_type != TensorProto.FLOAT or arr.size < MIN_ELEMENTS_TO_SHARE:
                keep.append(init)
                continue
            half = arr.astype(np.float16)
            raw = half.tobytes()
            digest = hashlib.sha256(raw + str(half.shape).encode()).hexdigest()[:16]
            if digest not in offsets:
                pad = (-len(blob)) % ALIGN
                blob.extend(b'\0' * pad)
                offsets[digest] = (len(blob), len(raw))
                blob.extend(raw)
            offset, length = offsets[digest]
            stored = TensorProto()
            stored.name = f'{init.name}__f16'
            stored.data_type = TensorProto.FLOAT16
            stored.dims.extend(half.shape)
            stored.data_location = TensorProto.EXTERNAL
            for key, value in (('location', weights_name), ('offset', str(offset)), ('length', str(length))):
                entry = stored.external_data.add()
                entry.key, entry.value = key, value
            keep.append(stored)
            casts.append(helper.make_node('Cast', [stored.name], [init.name], to=TensorProto.FLOAT, name=f'{init.name}__cast'))
        del graph.initializer[:]
        graph.initializer.extend(keep)
        nodes = casts + list(graph.node)
        del graph.node[:]
        graph.node.extend(nodes)
        with open(os.path.join(out_dir, os.path.basename(path)), 'wb') as f:
            f.write(model.SerializeToString())
    with open(os.path.join(out_dir, weights_name), 'wb') as f:
        f.write(blob)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--checkpoint', required=True)
    ap.add_argument('--data', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--name', default='translate-am-en-ti-v1')
    args = ap.parse_args()
    state = torch.load(args.checkpoint, map_location='cpu')
    cfg = state['config']
    model = Seq2Seq(**cfg)
    model.load_state_dict(state['model'])
    model.eval()
    layers, heads, head_dim, dim = cfg['dec_layers'], cfg['heads'], cfg['dim'] // cfg['heads'], cfg['dim']

    os.makedirs(args.out, exist_ok=True)
    tmp = tempfile.mkdtemp()
    b, s = 2, 7
    ids = torch.randint(4, cfg['vocab'], (b, s))
    mask = torch.ones(b, s, dtype=torch.long)
    mask[1, 5:] = 0
    with torch.no_grad():
        memory = model.encode(ids, mask)
        torch.onnx.export(EncoderGraph(model), (ids, mask), os.path.join(tmp, 'encoder_model.onnx'), opset_version=OPSET,
                          input_names=['input_ids', 'attention_mask'], output_names=['last_hidden_state'],
                          dynamic_axes={'input_ids': {0: 'batch', 1: 'src'}, 'attention_mask': {0: 'batch', 1: 'src'},
                                        'last_hidden_state': {0: 'batch', 1: 'src'}})
        first_in = torch.full((b, 1), 2, dtype=torch.long)
        present_names = []
        for i in range(layers):
            present_names += [f'present.{i}.decoder.key', f'present.{i}.decoder.value', f'present.{i}.encoder.key', f'present.{i}.encoder.value']
        axes = {'input_ids': {0: 'batch', 1: 'tgt'}, 'encoder_attention_mask': {0: 'batch', 1: 'src'},
                'encoder_hidden_states': {0: 'batch', 1: 'src'}, 'logits': {0: 'batch', 1: 'tgt'}}
        for name in present_names:
            axes[name] = {0: 'batch', 2: 'src' if '.encoder.' in name else 'tgt'}
        torch.onnx.export(FirstStepGraph(model), (first_in, mask, memory), os.path.join(tmp, 'decoder_model.onnx'), opset_version=OPSET,
                          input_names=['input_ids', 'encoder_attention_mask', 'encoder_hidden_states'], output_names=['logits'] + present_names,
                          dynamic_axes=axes)
        first = FirstStepGraph(model)(first_in, mask, memory)
        past = list(first[1:])
        past_names = [n.replace('present.', 'past_key_values.') for n in present_names]
        step_out = []
        for i in range(layers):
            step_out += [f'present.{i}.decoder.key', f'present.{i}.decoder.value']
        axes = {'input_ids': {0: 'batch'}, 'encoder_attention_mask': {0: 'batch', 1: 'src'}, 'logits': {0: 'batch'}}
        for name in past_names:
            axes[name] = {0: 'batch', 2: 'src' if '.encoder.' in name else 'past'}
        for name in step_out:
            axes[name] = {0: 'batch', 2: 'past_plus_one'}
        step_in = torch.full((b, 1), 9, dtype=torch.long)
        torch.onnx.export(StepGraph(model), (step_in, mask, *past), os.path.join(tmp, 'decoder_with_past_model.onnx'), opset_version=OPSET,
                          input_names=['input_ids', 'encoder_attention_mask'] + past_names, output_names=['logits'] + step_out, dynamic_axes=axes)
    share_weights([os.path.join(tmp, n) for n in ('encoder_model.onnx', 'decoder_model.onnx', 'decoder_with_past_model.onnx')], args.out)
    shutil.rmtree(tmp)
    shutil.copy(os.path.join(args.data, 'spm.model'), os.path.join(args.out, 'spm.model'))

    manifest_path = os.path.join(args.out, 'manifest.json')
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
    manifest.update({
        'kind': 'translation',
        'name': args.name,
        'languages': ['am', 'en', 'ti'],
        'tokenizer': {'type': 'sentencepiece', 'model': 'spm.model'},
        'target_tags': {'am': '<2am>', 'en': '<2en>', 'ti': '<2ti>'},
        'target_tag_position': 'source',
        'onnx': {'encoder': 'encoder_model.onnx', 'decoder': 'decoder_model.onnx', 'decoder_with_past': 'decoder_with_past_model.onnx'},
        'special_ids': {'pad': 0, 'unk': 1, 'bos': 2, 'eos': 3, 'decoder_start': 2},
        'layers': layers, 'heads': heads, 'head_dim': head_dim, 'hidden_size': dim,
        'decoding': manifest.get('decoding', {'beam_size': 4, 'length_penalty': 1.0, 'max_input_tokens': 200, 'max_output_tokens': 256, 'max_output_ratio': 2.5}),
        'training': {'checkpoint_step': state['step'], 'args': state.get('args', {}), 'parameters': sum(p.numel() for p in model.parameters()),
                     **({'history': state['history']} if state.get('history') else {})},
        'licence': manifest.get('licence', 'See README.md: weights derived from MarsPanther (MIT; research-only note for commercial use), '
                                           'Travis Foundation Tigrinya corpus (CC BY-SA 4.0), HornMT (CC BY 4.0), and back-translated '
                                           'ENH Amharic news (CC0) and AfriSenti Tigrinya tweets (CC BY 4.0).'),
        'card': 'README.md',
    })
    with open(manifest_path, 'w') as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write('\n')
    print('exported', args.out, sorted(os.listdir(args.out)))


if __name__ == '__main__':
    main()
