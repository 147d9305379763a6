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

`--layout transformers-js` writes the folder exactly as transformers.js / Optimum publish a
Wav2Vec2ForCTC model on the Hugging Face hub (e.g. Xenova/wav2vec2-base-960h): `onnx/model.onnx`,
`config.json` (model_type wav2vec2, vocab_size, pad_token_id, conv_stride ...), `vocab.json`,
`preprocessor_config.json`, `tokenizer.json` (CTC decoder), `tokenizer_config.json` and
`special_tokens_map.json`; the special tokens <s>, </s>, <unk> get a -8 bias on the CTC head so the
random model, like a trained one, rarely emits them. test/fixtures/wav2vec2-hf was made with
`--layout transformers-js --seed 7 --out test/fixtures/wav2vec2-hf`.
"""
import json
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tiny_export import export_arguments, parse_seeded  # noqa: E402

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
    def __init__(self, vocab_size, conv_dim=32, dim=48, layers=2, heads=4, ffn=None):
        super().__init__()
        self.features = FeatureEncoder(conv_dim)
        self.norm = nn.LayerNorm(conv_dim)
        self.projection = nn.Linear(conv_dim, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, ffn or 2 * dim, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.lm_head = nn.Linear(dim, vocab_size)

    def forward(self, input_values):
        h = self.projection(self.norm(self.features(input_values)))
        return self.lm_head(self.encoder(h))


def write_hub_files(out, vocab, model):
    """config.json and the tokenizer files of a transformers.js Wav2Vec2ForCTC export."""
    layer = model.encoder.layers[0]
    config = {
        "_name_or_path": "tiny-random-wav2vec2-ctc", "architectures": ["Wav2Vec2ForCTC"], "model_type": "wav2vec2",
        "vocab_size": len(vocab), "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
        "conv_dim": [model.norm.normalized_shape[0]] * 7, "conv_kernel": [10, 3, 3, 3, 3, 2, 2], "conv_stride": [5, 2, 2, 2, 2, 2, 2], "conv_bias": False,
        "feat_extract_norm": "group", "feat_extract_activation": "gelu", "do_stable_layer_norm": False,
        "hidden_size": layer.linear1.in_features, "intermediate_size": layer.linear1.out_features,
        "num_attention_heads": layer.self_attn.num_heads, "num_hidden_layers": len(model.encoder.layers), "hidden_act": "gelu",
        "ctc_loss_reduction": "sum", "transformers_version": "4.41.0",
    }
    specials = ["<pad>", "<s>", "</s>", "<unk>"]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[t], "content": t, "single_word": False, "lstrip": True, "rstrip": True,
                          "normalized": False, "special": True} for t in specials],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None,
        "decoder": {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True},
        "model": {"vocab": vocab},
    }
    tokenizer_config = {"tokenizer_class": "Wav2Vec2CTCTokenizer", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
                        "pad_token": "<pad>", "word_delimiter_token": "|", "do_lower_case": False, "replace_word_delimiter_char": " "}
    special_map = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}
    for name, value in [("config.json", config), ("tokenizer.json", tokenizer), ("tokenizer_config.json", tokenizer_config),
                        ("special_tokens_map.json", special_map)]:
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False, indent=1)


def main():
    ap = export_arguments(6)
    ap.add_argument("--layout", choices=["flat", "transformers-js"], default="flat")
    # Published sizes for the cost table (docs/public-models.md), e.g. wav2vec2-base:
    # --conv-dim 512 --dim 768 --layers 12 --heads 12 --ffn 3072 (random weights, never committed).
    ap.add_argument("--conv-dim", type=int, default=32)
    ap.add_argument("--dim", type=int, default=48)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=None)
    # nn.TransformerEncoder copies one layer: without this, torch.onnx stores its weights once and
    # the file (and resident memory) is far below a real model of that size.
    ap.add_argument("--distinct-layers", action="store_true")
    a = parse_seeded(ap)
    vocab = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3, "|": 4}
    for ch in LETTERS:
        vocab.setdefault(ch, len(vocab))
    model = TinyWav2Vec2ForCtc(len(vocab), a.conv_dim, a.dim, a.layers, a.heads, a.ffn).eval()
    if a.distinct_layers:
        with torch.no_grad():
            for p in model.encoder.parameters():
                p.add_(torch.randn_like(p) * 0.02)
    hub = a.layout == "transformers-js"
    if hub:
        with torch.no_grad():
            model.lm_head.bias[1:4] -= 8.0
    os.makedirs(os.path.join(a.out, "onnx") if hub else a.out, exist_ok=True)
    onnx_path = os.path.join(a.out, "onnx", "model.onnx") if hub else os.path.join(a.out, "model.onnx")
    torch.onnx.export(model, (torch.zeros(1, 16000),), onnx_path,
                      input_names=["input_values"], output_names=["logits"],
                      dynamic_axes={"input_values": {0: "batch", 1: "samples"}, "logits": {0: "batch", 1: "frames"}},
                      opset_version=14)
    with open(os.path.join(a.out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=1)
    with open(os.path.join(a.out, "preprocessor_config.json"), "w", encoding="utf-8") as f:
        json.dump({"do_normalize": True, "feature_extractor_type": "Wav2Vec2FeatureExtractor", "feature_size": 1,
                   "padding_side": "right", "padding_value": 0.0, "return_attention_mask": False, "sampling_rate": 16000}, f, indent=1)
    if hub:
        write_hub_files(a.out, vocab, model)
    print(f"{a.out}: {sum(p.numel() for p in model.parameters())} parameters, vocab {len(vocab)}")


if __name__ == "__main__":
    main()
