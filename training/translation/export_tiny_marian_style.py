#!/usr/bin/python3
"""Writes a tiny random-weight multilingual Marian (opus-mt) model in the layout transformers.js
publishes on the Hugging Face hub (e.g. Xenova/opus-mt-en-mul): source.spm, target.spm, vocab.json
(piece -> id: </s> 0, <unk> 1, the pieces, the target tokens >>amh<< >>eng<< >>tir<<, <pad> last),
tokenizer.json (the same vocabulary for @huggingface/tokenizers: Unigram, Metaspace,
TemplateProcessing [$A, </s>]), tokenizer_config.json (MarianTokenizer), config.json (model_type
marian, pad = decoder start = the last id, eos 0), generation_config.json (bad_words_ids [[pad]])
and onnx/encoder_model.onnx + onnx/decoder_model_merged.onnx with Optimum's names, from the same
network and graph code as export_tiny_nllb_style.py (whose docstring states how its merged
decoder differs from Optimum's). The target token is the first source token, as opus-mt's
multilingual models take it.

Usage: /usr/bin/python3 training/translation/export_tiny_marian_style.py --out test/fixtures/marian-tiny
"""
import argparse
import json
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_tiny_nllb_style import LETTERS, WORDS, Encoder, MergedDecoder, spm_model  # noqa: E402
from mt_model import Seq2Seq  # noqa: E402

TAGS = [">>amh<<", ">>eng<<", ">>tir<<"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=13)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    dim, heads, layers = 32, 4, 2

    normal = ["▁"] + LETTERS + WORDS
    pieces = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3)]
    pieces += [(p, -2.0 - 0.5 * len(p) if not p.startswith("▁") or len(p) == 1 else -3.0 + 0.1 * len(p), 1) for p in normal]
    vocab = [("</s>", 0.0), ("<unk>", 0.0)] + [(p, s) for p, s, _ in pieces[3:]] + [(t, 0.0) for t in TAGS] + [("<pad>", 0.0)]
    ids = {p: i for i, (p, _) in enumerate(vocab)}
    vocab_size, pad = len(vocab), len(vocab) - 1

    model = Seq2Seq(vocab_size, dim=dim, heads=heads, hidden=2 * dim, enc_layers=layers, dec_layers=layers, dropout=0.0, max_len=256, pad_id=pad).eval()
    mix = torch.randn(vocab_size, vocab_size) * 0.2
    bias = torch.zeros(vocab_size)
    bias[[ids["<unk>"], pad] + [ids[t] for t in TAGS]] = -10.0
    bias[0] = 1.5

    onnx_dir = os.path.join(a.out, "onnx")
    os.makedirs(onnx_dir, exist_ok=True)
    b, s = 2, 5
    src = torch.randint(2, vocab_size - len(TAGS) - 1, (b, s))
    mask = torch.ones(b, s, dtype=torch.long)
    mask[1, 3:] = 0
    with torch.no_grad():
        memory = model.encode(src, mask)
        torch.onnx.export(Encoder(model), (src, mask), os.path.join(onnx_dir, "encoder_model.onnx"), opset_version=14,
                          input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": {0: "batch_size", 1: "encoder_sequence_length"},
                                        "attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
                                        "last_hidden_state": {0: "batch_size", 1: "encoder_sequence_length"}})
        head_dim = dim // heads
        past, past_names, present_names = [], [], []
        for i in range(layers):
            for part in ("decoder", "encoder"):
                for kind in ("key", "value"):
                    past_names.append(f"past_key_values.{i}.{part}.{kind}")
                    present_names.append(f"present.{i}.{part}.{kind}")
                    past.append(torch.zeros(b, heads, 3 if part == "decoder" else s, head_dim))
        axes = {"input_ids": {0: "batch_size", 1: "decoder_sequence_length"},
                "encoder_attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
                "encoder_hidden_states": {0: "batch_size", 1: "encoder_sequence_length"},
                "logits": {0: "batch_size", 1: "decoder_sequence_length"}}
        for name in past_names:
            axes[name] = {0: "batch_size", 2: "past_decoder_sequence_length" if ".decoder." in name else "encoder_sequence_length_out"}
        for name in present_names:
            axes[name] = {0: "batch_size", 2: "past_decoder_sequence_length + 1" if ".decoder." in name else "encoder_sequence_length_out"}
        torch.onnx.export(MergedDecoder(model, mix, bias), (mask, torch.full((b, 1), 5, dtype=torch.long), memory, *past, torch.tensor([True])),
                          os.path.join(onnx_dir, "decoder_model_merged.onnx"), opset_version=14,
                          input_names=["encoder_attention_mask", "input_ids", "encoder_hidden_states", *past_names, "use_cache_branch"],
                          output_names=["logits", *present_names], dynamic_axes=axes)

    with open(os.path.join(a.out, "source.spm"), "wb") as f:
        f.write(spm_model(pieces))
    shutil.copyfile(os.path.join(a.out, "source.spm"), os.path.join(a.out, "target.spm"))
    config = {
        "_name_or_path": "tiny-random-opus-mt-en-mul", "architectures": ["MarianMTModel"], "model_type": "marian",
        "vocab_size": vocab_size, "d_model": dim, "encoder_layers": layers, "decoder_layers": layers,
        "encoder_attention_heads": heads, "decoder_attention_heads": heads, "encoder_ffn_dim": 2 * dim, "decoder_ffn_dim": 2 * dim,
        "max_position_embeddings": 256, "scale_embedding": True, "is_encoder_decoder": True, "use_cache": True,
        "pad_token_id": pad, "eos_token_id": 0, "decoder_start_token_id": pad, "forced_eos_token_id": 0, "max_length": 512,
        "transformers_version": "4.41.0",
    }
    generation = {"bad_words_ids": [[pad]], "decoder_start_token_id": pad, "eos_token_id": 0, "forced_eos_token_id": 0,
                  "max_length": 512, "num_beams": 4, "pad_token_id": pad}
    special = [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
               for t in ["</s>", "<unk>", "<pad>"]]
    # The target tokens as special added tokens that swallow the space after them: @huggingface/tokenizers
    # then cuts ">>amh<< text" into [>>amh<<, ▁text ...] as Python's MarianTokenizer does.
    special += [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": True, "normalized": False, "special": True}
                for t in TAGS]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "special_tokens": {"</s>": {"id": "</s>", "ids": [0], "tokens": ["</s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 1, "vocab": [[p, s] for p, s in vocab], "byte_fallback": False},
    }
    tokenizer_config = {"tokenizer_class": "MarianTokenizer", "source_lang": "en", "target_lang": "mul", "eos_token": "</s>",
                        "unk_token": "<unk>", "pad_token": "<pad>", "model_max_length": 512, "separate_vocabs": False}
    for name, value in [("config.json", config), ("generation_config.json", generation), ("tokenizer.json", tokenizer),
                        ("tokenizer_config.json", tokenizer_config), ("vocab.json", {p: i for i, (p, _) in enumerate(vocab)}),
                        ("special_tokens_map.json", {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"})]:
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False, indent=1)
    print(f"{a.out}: {sum(p.numel() for p in model.parameters())} parameters, vocab {vocab_size}, tags {[ids[t] for t in TAGS]}, pad {pad}")


if __name__ == "__main__":
    main()
