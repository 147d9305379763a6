#!/usr/bin/python3
"""Exports a tiny CTC model in the layout of a public wav2vec2-style checkpoint exported to ONNX
(Hugging Face `Wav2Vec2ForCTC` + optimum/torch.onnx): raw 16 kHz waveform in (`input_values`
float32 [batch, samples], the only input), character logits out (`logits` [batch, frames,
vocab]), with `vocab.json` (token -> id, `<pad>` = the CTC blank, `|` = word delimiter) and
`preprocessor_config.json` (`do_normalize`: zero-mean unit-variance per utterance).

The network has wav2vec2's shape at toy size: the 7-layer convolutional feature encoder (kernels
10,3,3,3,3,2,2, strides 5,2,2,2,2,2,2: one frame per 320 samples, 20 ms), GroupNorm on the first
layer, GELU, a feature projection, 2 transformer encoder layers and a linear CTC head. Weights are
random (seeded): it exists to test the import path (`npm run models -- import`), not to
recognise speech. Operators bring real checkpoints exported the same way.

Usage: /usr/bin/python3 training/asr/export_wav2vec2_style.py --out test/fixtures/wav2vec2-style
"""
import argparse
import json
import os

import torch
from torch import nn

LETTERS = list("ሀለሐመሠረሰሸቀበተቸኀነኘአከኸወዐዘዠየደጀገጠጨጰጸፀፈፐ") + ["ሁ", "ሊ", "ማ", "ሬ", "ስ", "ቶ"]


class FeatureEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        spec = [(10, 5), (3, 2), (3, 2), (3, 2), (3, 2), (2, 2), (2, 2)]
        layers, cin = [], 1
        for i, (k, s) in enumerate(spec):
            layers.append(nn.Conv1d(cin, dim, k, s, bias=False))
            if i == 0:
                layers.append(nn.GroupNorm(dim, dim))
            layers.append(nn.GELU())
            cin = dim
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return self.conv(x.unsqueeze(1)).transpose(1, 2)


class TinyWav2Vec2ForCtc(nn.Module):
    def __init__(self, vocab_size, conv_dim=32, dim=48):
        super().__init__()
        self.features = FeatureEncoder(conv_dim)
        self.norm = nn.LayerNorm(conv_dim)
        self.projection = nn.Linear(conv_dim, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, 2 * dim, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.lm_head = nn.Linear(dim, vocab_size)

    def forward(self, input_values):
        h = self.projection(self.norm(self.features(input_values)))
        return self.lm_head(self.encoder(h))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=6)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    vocab = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3, "|": 4}
    for ch in LETTERS:
        vocab.setdefault(ch, len(vocab))
    model = TinyWav2Vec2ForCtc(len(vocab)).eval()
    os.makedirs(a.out, exist_ok=True)
    torch.onnx.export(model, (torch.zeros(1, 16000),), os.path.join(a.out, "model.onnx"),
                      input_names=["input_values"], output_names=["logits"],
                      dynamic_axes={"input_values": {0: "batch", 1: "samples"}, "logits": {0: "batch", 1: "frames"}},
                      opset_version=14)
    with open(os.path.join(a.out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=1)
    with open(os.path.join(a.out, "preprocessor_config.json"), "w", encoding="utf-8") as f:
        json.dump({"do_normalize": True, "feature_extractor_type": "Wav2Vec2FeatureExtractor", "feature_size": 1,
                   "padding_side": "right", "padding_value": 0.0, "return_attention_mask": False, "sampling_rate": 16000}, f, indent=1)
    print(f"{a.out}: {sum(p.numel() for p in model.parameters())} parameters, vocab {len(vocab)}")


if __name__ == "__main__":
    main()
