#!/usr/bin/python3
"""Writes a tiny random-weight translation model in the layout transformers.js publishes NLLB-200 /
M2M100 exports on the Hugging Face hub (e.g. Xenova/nllb-200-distilled-600M):

  config.json              model_type m2m_100, d_model, layers, heads, vocab_size, special ids
  generation_config.json   decoder_start_token_id 2 (</s>), eos 2, pad 1, bos 0
  sentencepiece.bpe.model  the SentencePiece model (fairseq numbering: model id = piece id + 1)
  tokenizer.json           the same vocabulary for @huggingface/tokenizers (Unigram, Metaspace),
                           language codes as special added tokens, TemplateProcessing [src_lang, $A, </s>]
  tokenizer_config.json    tokenizer_class NllbTokenizer, additional_special_tokens
  onnx/encoder_model.onnx          input_ids, attention_mask -> last_hidden_state
  onnx/decoder_model_merged.onnx   input_ids, encoder_attention_mask, encoder_hidden_states,
                                   past_key_values.{i}.{decoder,encoder}.{key,value}, use_cache_branch
                                   -> logits, present.{i}.{decoder,encoder}.{key,value}

Language codes amh_Ethi, eng_Latn, gaz_Latn, tir_Ethi (NLLB's codes for am, en, om, ti). The network
is training/translation/mt_model.py at toy size (random weights, seeded) with a random mixing matrix
after its tied head (else a random model keeps repeating its last token) and a head bias that keeps
specials and language codes out of the argmax, as a trained model would. One difference from
Optimum's merged decoder, stated: Optimum's graph has an If node that, with use_cache_branch true,
reads the cross-attention keys/values from past_key_values.{i}.encoder.*; this graph computes them
from encoder_hidden_states on both branches (the same values, since they depend only on the
encoder output) and passes use_cache_branch through unchanged arithmetic (x + 0). Names, shapes
(heads and head_dim static, batch_size and sequence axes dynamic) and outputs are Optimum's.

The SentencePiece model is written directly as its protobuf (no sentencepiece package needed):
a unigram model, identity normalisation, dummy prefix, whitespace escaped as U+2581.

Usage: /usr/bin/python3 training/translation/export_tiny_nllb_style.py --out test/fixtures/nllb-tiny
"""
import argparse
import json
import math
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mt_model import Seq2Seq  # noqa: E402

LANGS = ["amh_Ethi", "eng_Latn", "gaz_Latn", "tir_Ethi"]
WORDS = ["▁the", "▁a", "▁is", "▁good", "▁day", "▁water", "ing", "▁ሰላም", "▁ነው", "▁ውሃ", "▁ደህና", "▁ቀን", "▁nagaa", "▁bishaan", "▁ሰላምታ"]
LETTERS = list("abcdefghijklmnopqrstuvwxyz") + list("ሰላምነውሃደህናቀንታጥሩ") + [".", ",", "?", "!", "።"]


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 2:
        return key + varint(len(payload)) + payload
    if wire == 5:
        return key + payload
    raise ValueError(wire)


def spm_model(pieces):
    """ModelProto: pieces (1: piece, 2: score float, 3: type), trainer_spec (2), normalizer_spec (3)."""
    out = bytearray()
    for piece, score, kind in pieces:
        body = field(1, 2, piece.encode("utf-8")) + field(2, 5, struct.pack("<f", score)) + field(3, 0, kind)
        out += field(1, 2, body)
    # TrainerSpec: model_type 3 = UNIGRAM (1), vocab_size 4, unk_id 40, bos_id 41, eos_id 42, pad_id 43 (-1 as int32 varint).
    trainer = field(3, 0, 1) + field(4, 0, len(pieces)) + field(40, 0, 0) + field(41, 0, 1) + field(42, 0, 2) + field(43, 0, (1 << 64) - 1)
    out += field(2, 2, trainer)
    # NormalizerSpec: name 1, add_dummy_prefix 3, remove_extra_whitespaces 4, escape_whitespaces 5.
    normalizer = field(1, 2, b"identity") + field(3, 0, 1) + field(4, 0, 1) + field(5, 0, 1)
    out += field(3, 2, normalizer)
    return bytes(out)


class Encoder(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model.encode(input_ids, attention_mask)


class MergedDecoder(torch.nn.Module):
    def __init__(self, model, mix, bias):
        super().__init__()
        self.model = model
        self.register_buffer("mix", mix)
        self.register_buffer("bias", bias)

    def forward(self, encoder_attention_mask, input_ids, encoder_hidden_states, *rest):
        layers = len(self.model.decoder)
        past, use_cache_branch = rest[:-1], rest[-1]
        self_past = [(past[4 * i], past[4 * i + 1]) for i in range(layers)]
        cross = self.model.cross_kv(encoder_hidden_states)
        logits, presents = self.model.decode(input_ids, encoder_attention_mask, cross, self_past)
        if self.mix.shape[1] > 0:
            logits = torch.matmul(logits, self.mix)
        logits = logits + self.bias + use_cache_branch.to(torch.float32) * 0.0
        out = [logits]
        for (k, v), (ck, cv) in zip(presents, cross):
            out += [k, v, ck, cv]
        return tuple(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    # Published sizes for the cost table (docs/public-models.md; never committed): --filler-vocab pads the
    # vocabulary with pieces ▁w0, ▁w1 ... to a real size (the output layer dominates a step's cost), and
    # --no-eos keeps end-of-sentence out of the argmax so every sentence runs to the output cap.
    ap.add_argument("--ffn", type=int, default=None)
    ap.add_argument("--filler-vocab", type=int, default=0)
    ap.add_argument("--no-eos", action="store_true")
    a = ap.parse_args()
    torch.manual_seed(a.seed)

    # SentencePiece pieces: <unk>, <s>, </s>, then "▁", letters and words, scored like a unigram model.
    normal = ["▁"] + LETTERS + WORDS + [f"▁w{i}" for i in range(a.filler_vocab)]
    pieces = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3)]
    pieces += [(p, -2.0 - 0.5 * len(p) if not p.startswith("▁") or len(p) == 1 else -3.0 + 0.1 * len(p), 1) for p in normal]
    # Model ids (fairseq): <s> 0, <pad> 1, </s> 2, <unk> 3, then SentencePiece id + 1, then the language codes.
    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + [(p, s) for p, s, _ in pieces[3:]]
    lang_ids = {code: len(vocab) + i for i, code in enumerate(LANGS)}
    vocab += [(code, 0.0) for code in LANGS]
    vocab_size = len(vocab)

    dim, heads, layers = a.dim, a.heads, a.layers
    model = Seq2Seq(vocab_size, dim=dim, heads=heads, hidden=a.ffn or 2 * dim, enc_layers=layers, dec_layers=layers, dropout=0.0, max_len=256, pad_id=1).eval()
    # A random mixing of the tied head's scores, so the random model does not just repeat its last token.
    mix = torch.randn(vocab_size, vocab_size) * 0.2 if vocab_size <= 4096 else torch.zeros(vocab_size, 0)
    bias = torch.zeros(vocab_size)
    bias[[0, 1, 3]] = -10.0
    bias[list(lang_ids.values())] = -10.0
    bias[2] = -10.0 if a.no_eos else 1.5  # end-of-sentence now and then, as a trained model would

    onnx_dir = os.path.join(a.out, "onnx")
    os.makedirs(onnx_dir, exist_ok=True)
    b, s = 2, 5
    ids = torch.randint(4, vocab_size - len(LANGS), (b, s))
    mask = torch.ones(b, s, dtype=torch.long)
    mask[1, 3:] = 0
    with torch.no_grad():
        memory = model.encode(ids, mask)
        torch.onnx.export(Encoder(model), (ids, mask), os.path.join(onnx_dir, "encoder_model.onnx"), opset_version=14,
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
        step = torch.full((b, 1), 5, dtype=torch.long)
        use_cache = torch.tensor([True])
        axes = {"input_ids": {0: "batch_size", 1: "decoder_sequence_length"},
                "encoder_attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
                "encoder_hidden_states": {0: "batch_size", 1: "encoder_sequence_length"},
                "logits": {0: "batch_size", 1: "decoder_sequence_length"}}
        for name in past_names:
            axes[name] = {0: "batch_size", 2: "past_decoder_sequence_length" if ".decoder." in name else "encoder_sequence_length_out"}
        for name in present_names:
            axes[name] = {0: "batch_size", 2: "past_decoder_sequence_length + 1" if ".decoder." in name else "encoder_sequence_length_out"}
        torch.onnx.export(MergedDecoder(model, mix, bias), (mask, step, memory, *past, use_cache), os.path.join(onnx_dir, "decoder_model_merged.onnx"),
                          opset_version=14, input_names=["encoder_attention_mask", "input_ids", "encoder_hidden_states", *past_names, "use_cache_branch"],
                          output_names=["logits", *present_names], dynamic_axes=axes)

    with open(os.path.join(a.out, "sentencepiece.bpe.model"), "wb") as f:
        f.write(spm_model(pieces))
    config = {
        "_name_or_path": "tiny-random-nllb", "architectures": ["M2M100ForConditionalGeneration"], "model_type": "m2m_100",
        "vocab_size": vocab_size, "d_model": dim, "encoder_layers": layers, "decoder_layers": layers,
        "encoder_attention_heads": heads, "decoder_attention_heads": heads, "encoder_ffn_dim": a.ffn or 2 * dim, "decoder_ffn_dim": a.ffn or 2 * dim,
        "max_position_embeddings": 256, "scale_embedding": True, "is_encoder_decoder": True, "use_cache": True,
        "bos_token_id": 0, "pad_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 2, "max_length": 200,
        "tokenizer_class": "NllbTokenizer", "transformers_version": "4.41.0",
    }
    generation = {"bos_token_id": 0, "decoder_start_token_id": 2, "eos_token_id": 2, "pad_token_id": 1, "max_length": 200}
    special = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
               for i, (t, _) in enumerate(vocab[:4])]
    special += [{"id": lang_ids[c], "content": c, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
                for c in LANGS]
    template = [{"SpecialToken": {"id": "eng_Latn", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "post_processor": {"type": "TemplateProcessing", "single": template,
                           "pair": template[:2] + [{"Sequence": {"id": "B", "type_id": 0}}, template[2]],
                           "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in [("</s>", 2), *lang_ids.items()]}},
        "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 3, "vocab": [[p, s] for p, s in vocab], "byte_fallback": False},
    }
    tokenizer_config = {"tokenizer_class": "NllbTokenizer", "bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>",
                        "sep_token": "</s>", "cls_token": "<s>", "src_lang": "eng_Latn", "tgt_lang": None, "legacy_behaviour": False,
                        "additional_special_tokens": LANGS, "model_max_length": 1024}
    special_map = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>", "additional_special_tokens": LANGS}
    for name, value in [("config.json", config), ("generation_config.json", generation), ("tokenizer.json", tokenizer),
                        ("tokenizer_config.json", tokenizer_config), ("special_tokens_map.json", special_map)]:
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False, indent=1)
    print(f"{a.out}: {sum(p.numel() for p in model.parameters())} parameters, vocab {vocab_size}, languages {lang_ids}")


if __name__ == "__main__":
    main()
