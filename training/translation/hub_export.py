"""What the tiny translation exports in the Hugging Face hub layouts share (export_tiny_nllb_style.py,
export_tiny_marian_style.py), and the encoder graph export_mt.py exports too: the toy vocabulary, a
SentencePiece model written directly as its protobuf (no sentencepiece package needed: a unigram
model, identity normalisation, dummy prefix, whitespace escaped as U+2581), the ONNX encoder and
Optimum-named merged decoder of a training/translation/mt_model.py network, and the JSON files
(config.json, tokenizer.json for @huggingface/tokenizers) in transformers.js's layout.

The merged decoder differs from Optimum's in one stated way: Optimum's graph has an If node that,
with use_cache_branch true, reads the cross-attention keys/values from past_key_values.{i}.encoder.*;
this graph computes them from encoder_hidden_states on both branches (the same values, since they
depend only on the encoder output) and passes use_cache_branch through unchanged arithmetic (x + 0).
Names, shapes (heads and head_dim static, batch_size and sequence axes dynamic) and outputs are
Optimum's.
"""
import json
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tiny_export import field  # noqa: E402

WORDS = ["▁the", "▁a", "▁is", "▁good", "▁day", "▁water", "ing", "▁ሰላም", "▁ነው", "▁ውሃ", "▁ደህና", "▁ቀን", "▁nagaa", "▁bishaan", "▁ሰላምታ"]
LETTERS = list("abcdefghijklmnopqrstuvwxyz") + list("ሰላምነውሃደህናቀንታጥሩ") + [".", ",", "?", "!", "።"]
METASPACE = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}


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


def unigram_pieces(normal):
    """SentencePiece pieces (piece, score, type): <unk>, <s>, </s>, then `normal` scored like a unigram model."""
    pieces = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3)]
    pieces += [(p, -2.0 - 0.5 * len(p) if not p.startswith("▁") or len(p) == 1 else -3.0 + 0.1 * len(p), 1) for p in normal]
    return pieces


class EncoderGraph(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model.encode(input_ids, attention_mask)


class MergedDecoder(torch.nn.Module):
    """The decoder with Optimum's merged inputs; `mix` (an empty second axis: none) mixes the tied head's scores, `bias` is added."""

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


def export_encoder_and_merged_decoder(model, mix, bias, src, onnx_dir, heads, layers):
    """Writes onnx_dir/encoder_model.onnx and onnx_dir/decoder_model_merged.onnx, traced on the source ids
    `src` [batch, 5] (the second row padded after 3) with Optimum's input, output and axis names."""
    os.makedirs(onnx_dir, exist_ok=True)
    b, s = src.shape
    mask = torch.ones(b, s, dtype=torch.long)
    mask[1, 3:] = 0
    with torch.no_grad():
        memory = model.encode(src, mask)
        torch.onnx.export(EncoderGraph(model), (src, mask), os.path.join(onnx_dir, "encoder_model.onnx"), opset_version=14,
                          input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": {0: "batch_size", 1: "encoder_sequence_length"},
                                        "attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
                                        "last_hidden_state": {0: "batch_size", 1: "encoder_sequence_length"}})
        head_dim = memory.shape[-1] // heads
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


def model_config(name, architecture, model_type, vocab_size, dim, layers, heads, ffn, **ids):
    """config.json: the network's sizes (transformers' names) between the model's identity and its special ids."""
    return {
        "_name_or_path": name, "architectures": [architecture], "model_type": model_type,
        "vocab_size": vocab_size, "d_model": dim, "encoder_layers": layers, "decoder_layers": layers,
        "encoder_attention_heads": heads, "decoder_attention_heads": heads, "encoder_ffn_dim": ffn, "decoder_ffn_dim": ffn,
        "max_position_embeddings": 256, "scale_embedding": True, "is_encoder_decoder": True, "use_cache": True,
        **ids, "transformers_version": "4.41.0",
    }


def added_token(token_id, content, rstrip=False):
    """A special added token of tokenizer.json; `rstrip` swallows the space after it."""
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": rstrip, "normalized": False, "special": True}


def tokenizer_json(added_tokens, post_processor, vocab, unk_id):
    """tokenizer.json for @huggingface/tokenizers: Metaspace pre-tokenizer and decoder, a Unigram model over `vocab` [(piece, score)]."""
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added_tokens,
        "normalizer": None,
        "pre_tokenizer": METASPACE,
        "post_processor": post_processor,
        "decoder": METASPACE,
        "model": {"type": "Unigram", "unk_id": unk_id, "vocab": [[p, s] for p, s in vocab], "byte_fallback": False},
    }


def write_json_files(out, files):
    """Writes each (name, value) of `files` as out/name, UTF-8, indented by one."""
    for name, value in files:
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False, indent=1)
