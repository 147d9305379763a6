#!/usr/bin/python3
"""Writes a tiny random-weight multilingual Marian (opus-mt) model in the layout transformers.js
publishes on the Hugging Face hub (e.g. Xenova/opus-mt-en-mul): source.spm, target.spm, vocab.json
(piece -> id: </s> 0, <unk> 1, the pieces, the target tokens >>amh<< >>eng<< >>tir<<, <pad> last),
tokenizer.json (the same vocabulary for @huggingface/tokenizers: Unigram, Metaspace,
TemplateProcessing [$A, </s>]), tokenizer_config.json (MarianTokenizer), config.json (model_type
marian, pad = decoder start = the last id, eos 0), generation_config.json (bad_words_ids [[pad]])
and onnx/encoder_model.onnx + onnx/decoder_model_merged.onnx with Optimum's names, from the same
network and graph code as export_tiny_nllb_style.py (hub_export.py, which states how its merged
decoder differs from Optimum's). The target token is the first source token, as opus-mt's
multilingual models take it.

Usage: /usr/bin/python3 training/translation/export_tiny_marian_style.py --out test/fixtures/marian-tiny
"""
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from hub_export import (LETTERS, WORDS, added_token, export_encoder_and_merged_decoder, model_config, spm_model,  # noqa: E402
                        tokenizer_json, unigram_pieces, write_json_files)
from mt_model import Seq2Seq  # noqa: E402
from tiny_export import export_arguments, parse_seeded  # noqa: E402

TAGS = [">>amh<<", ">>eng<<", ">>tir<<"]


def main():
    ap = export_arguments(13)
    a = parse_seeded(ap)
    dim, heads, layers = 32, 4, 2

    pieces = unigram_pieces(["▁"] + LETTERS + WORDS)
    vocab = [("</s>", 0.0), ("<unk>", 0.0)] + [(p, s) for p, s, _ in pieces[3:]] + [(t, 0.0) for t in TAGS] + [("<pad>", 0.0)]
    ids = {p: i for i, (p, _) in enumerate(vocab)}
    vocab_size, pad = len(vocab), len(vocab) - 1

    model = Seq2Seq(vocab_size, dim=dim, heads=heads, hidden=2 * dim, enc_layers=layers, dec_layers=layers, dropout=0.0, max_len=256, pad_id=pad).eval()
    mix = torch.randn(vocab_size, vocab_size) * 0.2
    bias = torch.zeros(vocab_size)
    bias[[ids["<unk>"], pad] + [ids[t] for t in TAGS]] = -10.0
    bias[0] = 1.5

    export_encoder_and_merged_decoder(model, mix, bias, torch.randint(2, vocab_size - len(TAGS) - 1, (2, 5)), os.path.join(a.out, "onnx"), heads, layers)

    with open(os.path.join(a.out, "source.spm"), "wb") as f:
        f.write(spm_model(pieces))
    shutil.copyfile(os.path.join(a.out, "source.spm"), os.path.join(a.out, "target.spm"))
    config = model_config("tiny-random-opus-mt-en-mul", "MarianMTModel", "marian", vocab_size, dim, layers, heads, 2 * dim,
                          pad_token_id=pad, eos_token_id=0, decoder_start_token_id=pad, forced_eos_token_id=0, max_length=512)
    generation = {"bad_words_ids": [[pad]], "decoder_start_token_id": pad, "eos_token_id": 0, "forced_eos_token_id": 0,
                  "max_length": 512, "num_beams": 4, "pad_token_id": pad}
    special = [added_token(ids[t], t) for t in ["</s>", "<unk>", "<pad>"]]
    # The target tokens as special added tokens that swallow the space after them: @huggingface/tokenizers
    # then cuts ">>amh<< text" into [>>amh<<, ▁text ...] as Python's MarianTokenizer does.
    special += [added_token(ids[t], t, rstrip=True) for t in TAGS]
    post_processor = {"type": "TemplateProcessing",
                      "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                      "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                      "special_tokens": {"</s>": {"id": "</s>", "ids": [0], "tokens": ["</s>"]}}}
    tokenizer = tokenizer_json(special, post_processor, vocab, unk_id=1)
    tokenizer_config = {"tokenizer_class": "MarianTokenizer", "source_lang": "en", "target_lang": "mul", "eos_token": "</s>",
                        "unk_token": "<unk>", "pad_token": "<pad>", "model_max_length": 512, "separate_vocabs": False}
    write_json_files(a.out, [("config.json", config), ("generation_config.json", generation), ("tokenizer.json", tokenizer),
                             ("tokenizer_config.json", tokenizer_config), ("vocab.json", {p: i for i, (p, _) in enumerate(vocab)}),
                             ("special_tokens_map.json", {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"})])
    print(f"{a.out}: {sum(p.numel() for p in model.parameters())} parameters, vocab {vocab_size}, tags {[ids[t] for t in TAGS]}, pad {pad}")


if __name__ == "__main__":
    main()
