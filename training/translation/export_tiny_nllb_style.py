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
specials and language codes out of the argmax, as a trained model would. The merged decoder's one
difference from Optimum's and the SentencePiece writer are stated in hub_export.py.

Usage: /usr/bin/python3 training/translation/export_tiny_nllb_style.py --out test/fixtures/nllb-tiny
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from hub_export import (LETTERS, WORDS, added_token, export_encoder_and_merged_decoder, model_config, spm_model,  # noqa: E402
                        tokenizer_json, unigram_pieces, write_json_files)
from mt_model import Seq2Seq  # noqa: E402
from tiny_export import export_arguments, parse_seeded  # noqa: E402

LANGS = ["amh_Ethi", "eng_Latn", "gaz_Latn", "tir_Ethi"]


def main():
    ap = export_arguments(11)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    # Published sizes for the cost table (docs/public-models.md; never committed): --filler-vocab pads the
    # vocabulary with pieces ▁w0, ▁w1 ... to a real size (the output layer dominates a step's cost), and
    # --no-eos keeps end-of-sentence out of the argmax so every sentence runs to the output cap.
    ap.add_argument("--ffn", type=int, default=None)
    ap.add_argument("--filler-vocab", type=int, default=0)
    ap.add_argument("--no-eos", action="store_true")
    a = parse_seeded(ap)

    # SentencePiece pieces: <unk>, <s>, </s>, then "▁", letters and words, scored like a unigram model.
    pieces = unigram_pieces(["▁"] + LETTERS + WORDS + [f"▁w{i}" for i in range(a.filler_vocab)])
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

    export_encoder_and_merged_decoder(model, mix, bias, torch.randint(4, vocab_size - len(LANGS), (2, 5)), os.path.join(a.out, "onnx"), heads, layers)

    with open(os.path.join(a.out, "sentencepiece.bpe.model"), "wb") as f:
        f.write(spm_model(pieces))
    config = model_config("tiny-random-nllb", "M2M100ForConditionalGeneration", "m2m_100", vocab_size, dim, layers, heads, a.ffn or 2 * dim,
                          bos_token_id=0, pad_token_id=1, eos_token_id=2, decoder_start_token_id=2, max_length=200, tokenizer_class="NllbTokenizer")
    generation = {"bos_token_id": 0, "decoder_start_token_id": 2, "eos_token_id": 2, "pad_token_id": 1, "max_length": 200}
    special = [added_token(i, t) for i, (t, _) in enumerate(vocab[:4])] + [added_token(lang_ids[c], c) for c in LANGS]
    template = [{"SpecialToken": {"id": "eng_Latn", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}]
    post_processor = {"type": "TemplateProcessing", "single": template,
                      "pair": template[:2] + [{"Sequence": {"id": "B", "type_id": 0}}, template[2]],
                      "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in [("</s>", 2), *lang_ids.items()]}}
    tokenizer = tokenizer_json(special, post_processor, vocab, unk_id=3)
    tokenizer_config = {"tokenizer_class": "NllbTokenizer", "bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>",
                        "sep_token": "</s>", "cls_token": "<s>", "src_lang": "eng_Latn", "tgt_lang": None, "legacy_behaviour": False,
                        "additional_special_tokens": LANGS, "model_max_length": 1024}
    special_map = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>", "additional_special_tokens": LANGS}
    write_json_files(a.out, [("config.json", config), ("generation_config.json", generation), ("tokenizer.json", tokenizer),
                             ("tokenizer_config.json", tokenizer_config), ("special_tokens_map.json", special_map)])
    print(f"{a.out}: {sum(p.numel() for p in model.parameters())} parameters, vocab {vocab_size}, languages {lang_ids}")


if __name__ == "__main__":
    main()
