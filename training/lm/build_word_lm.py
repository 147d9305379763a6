#!/usr/bin/python3
"""Builds an open-vocabulary word n-gram LM (HWLM v1, the file
src/engines/asr/decoding/lm/word-ngram-lm.ts loads) from the same text, normalisation and held-out
rules as build_char_lm.py, with the same smoothing code (interpolated Witten-Bell, pruned by
count, backoff weights recomputed after pruning; bigrams are pruned too).

Words are the space-separated tokens of the acoustic targets' form (build_char_lm.target_segments:
normalize_ethiopic + ALFFA homophone merge, sentences cut at ። ፧ ? !). So news words stay whole and
the ALFFA transcripts keep their morpheme splits (`የ ቆላ`). The vocabulary is the `--vocab` most
frequent words seen at least `--min-word-count` times; every other word is <unk>, a word of the
model like any other, so p(<unk> | h) is learnt from the text. The decoder spells an <unk> word
with the character LM (src/engines/asr/decoding/ctc-beam-decoder.ts, word fusion).

HWLM v1, little-endian, every section 4-byte aligned:
  header (64 bytes): 0 magic "HWLM", 4 u16 version (1), 6 u16 header bytes (64), 8 u32 order,
    12 u32 word count (3 specials + vocabulary), 16 u32 flags (0), 20 u32 FNV-1a of every byte
    after the header, 24 u32[10] entries per order (order 1 = word count)
  vocabulary: u32 offsets[words + 1] into the code units (UTF-16), then u16 code units (padded);
    ids 0 <unk>, 1 <s>, 2 </s> are empty; words 3.. sorted by UTF-16 code units (binary search)
  per order n = 1..N, entries sorted by (context..., word):
    words u32[count], probs f32[count] (ln p), and for n < N bows f32[count] (ln backoff weight),
    next u32[count + 1] (first child in order n + 1)

Usage (about 1-2 min and 2 GB on the 2-core dev machine):
  nice -n 10 /usr/bin/python3 training/lm/build_word_lm.py --order 3 --vocab 200000 \
      --min-counts 1,2,2 --repeat alffa-am-train=5 --out training/work/am-word-3gram.bin
"""
import collections
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alffa_segmenter import AlffaSegmenter  # noqa: E402
from build_char_lm import STRETCH, build, lm_arguments, lm_file, lm_inputs, write_lm  # noqa: E402

UNK, BOS, EOS, FIRST = 0, 1, 2, 3


def serialise(kept, vocab, order, B):
    words_n = len(vocab) + FIRST
    units = [np.zeros(0, dtype="<u2")] * FIRST + [np.frombuffer(w.encode("utf-16-le"), dtype="<u2") for w in vocab]
    offsets = np.zeros(words_n + 1, dtype="<u4")
    offsets[1:] = np.cumsum([len(u) for u in units])
    code_units = np.concatenate(units).astype("<u2").tobytes()
    vocabulary = offsets.tobytes() + code_units + b"\0" * ((-len(code_units)) % 4)
    return lm_file(b"HWLM", words_n, kept, order, B, "<u4", vocabulary)


def main():
    ap = lm_arguments(3, "1,2,2", min_counts_help="per order; bigrams and up are pruned below theirs")
    ap.add_argument("--vocab", type=int, default=200000, help="most frequent words kept; the rest are <unk>")
    ap.add_argument("--min-word-count", type=int, default=2)
    ap.add_argument("--segment-news", action="store_true", help="split non-ALFFA words into ALFFA-style morphemes (alffa_segmenter.py)")
    a = ap.parse_args()
    t0 = time.time()
    min_counts, repeat, kept, report_sources, excluded, held_ids = lm_inputs(a)
    by_source = {name: [seg.split() for seg in segs] for name, segs in kept.items()}
    segmenter = None
    if a.segment_news:
        # News words split into ALFFA-style morphemes (alffa_segmenter.py), learnt from the ALFFA
        # train transcripts (held-out utterances excluded) and the ENH word counts.
        news = collections.Counter(w for words in by_source.get("enh", []) for w in words)
        segmenter = AlffaSegmenter([" ".join(x) for x in by_source.get("alffa-am-train", [])], news)
        print(f"segmenter: {len(segmenter.forms):,} observed forms, prefixes {segmenter.prefixes}, suffixes {segmenter.suffixes}", flush=True)
    segments = []
    for name, words_list in by_source.items():
        for words in words_list:
            if segmenter is not None and name != "alffa-am-train":
                words = [t for w in words for t in segmenter.segment(w)]
            for _ in range(repeat.get(name, 1)):
                segments.append(words)
    counts = collections.Counter()
    for words in segments:
        counts.update(words)
    kept_words = [w for w, c in counts.most_common(a.vocab) if c >= a.min_word_count]
    vocab = sorted(kept_words, key=lambda w: w.encode("utf-16-be"))  # UTF-16 code-unit order
    ids = {w: i + FIRST for i, w in enumerate(vocab)}
    words_n = len(vocab) + FIRST
    B = max(1, (words_n - 1).bit_length())
    if B * a.order > 64:
        raise SystemExit(f"{words_n} words need {B} bits: order {a.order} does not fit a 64-bit key")
    seq = []
    tokens = oov = 0
    for words in segments:  # <s> w1 .. wn </s> per segment, as build_char_lm.py lays out letters
        seq.append(BOS)
        for w in words:
            i = ids.get(w, UNK)
            seq.append(i)
            oov += i == UNK
        tokens += len(words)
        seq.append(EOS)
    seq = np.array(seq, dtype=np.uint32)
    print(f"{len(segments):,} segments, {tokens:,} words ({oov / tokens:.1%} <unk>), {len(counts):,} types, vocabulary {len(vocab):,} ({B} bits), order {a.order}, min counts {min_counts}", flush=True)
    kept = build(seq, words_n, B, a.order, min_counts, "wb", prune_from=2)
    data = serialise(kept, vocab, a.order, B)
    write_lm(a, data, "HWLM v1 word n-gram (src/engines/asr/decoding/lm/word-ngram-lm.ts)", "word", {
        "smoothing": "interpolated Witten-Bell, backoff form, natural log; backoff weights recomputed after pruning (build_char_lm.build)",
        "normalisation": "the acoustic targets' (build_char_lm.target_segments): normalize_ethiopic + ALFFA homophone merge, sentences cut at ። ፧ ? !; words = space-separated tokens (ALFFA transcripts keep their morpheme splits)",
        "vocabulary": {"words": len(vocab), "max": a.vocab, "min_word_count": a.min_word_count, "types_seen": len(counts),
                       "unk_share_of_training_tokens": round(oov / tokens, 4)},
        "segmentation": "non-ALFFA words split ALFFA-style (alffa_segmenter.py): " + f"{len(segmenter.prefixes)} prefixes, {len(segmenter.suffixes)} suffixes, {len(segmenter.forms):,} observed forms" if segmenter else "none (news words whole)",
        "min_counts": min_counts,
        "sources": report_sources,
        "held_out": f"all {held_ids} ALFFA utterances with audio and HornMT lines 1900..2029: by id/line and any segment sharing a {STRETCH}-letter stretch with one of them ({excluded} segments excluded)",
        "report": {"segments": len(segments), "words": tokens, "counts": [int(len(k[0])) for k in kept], "bytes": len(data)},
    }, "nice -n 10 /usr/bin/python3 training/lm/build_word_lm.py", t0)


if __name__ == "__main__":
    main()
