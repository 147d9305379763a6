#!/usr/bin/python3
"""Builds a character n-gram LM (HNLM v1, the file src/engines/asr/decoding/lm/char-ngram-lm.ts loads)
from large text with numpy: the build-time counterpart of `npm run lm -- build` for corpora too
large for its in-memory maps (15 M letters of ENH news at order 7-8).

Same model as src/engines/asr/decoding/lm/char-ngram-builder.ts: interpolated Witten-Bell,
  p(w | h) = (c(hw) + T(h) p(w | h')) / (c(h) + T(h)),  the unigram level interpolated with a
  uniform distribution; n-grams of order n seen fewer than min_counts[n] times pruned; backoff
  weights recomputed from the kept entries so that every distribution sums to 1:
  bow(h) = (1 - sum_kept p(w | h)) / (1 - sum_kept p_bo(w | h')).
Checked: on a small corpus that both normalisations leave unchanged, the Witten-Bell file is
byte-identical to `npm run lm -- build` (same order, min counts, sources). `--smoothing kn`
(interpolated Kneser-Ney) is an option; it did not decode better (models/small-am-v1/README.md).
N-grams are packed into uint64 keys (B bits per symbol, oldest symbol highest), so numeric key
order is the trie order of the file.

Text normalisation is the acoustic targets' (common.py, as prepare_data.py makes them):
normalize_ethiopic(line, keep_punct=False) words, split into runs at dropped words (digits,
Ge'ez numerals, Latin), joined by single spaces, ALFFA homophone merge (ሐ/ኀ→ሀ, ሠ→ሰ, ዐ→አ,
ፀ→ጸ). News paragraphs are first cut into sentences at ። ፧ ? ! (ALFFA utterances are sentences).

Sources (am): ENH news (text/enh/amh-news.txt, CC0), the ALFFA train transcript list
(alffa-am-train/all-train-transcripts.txt, MIT), HornMT lines 0..1899 (CC BY 4.0), AfriSenti
(CC BY 4.0). Held out, so that no evaluation text is in the LM:
  - every ALFFA utterance with audio (the 1,000 ids of alffa-am-train/text, which hold the
    speaker-held-out val/test groups): by id, and any sentence of any source that shares a
    20-letter stretch (scoring form: no spaces, homophones merged) with one of them;
  - HornMT lines 1900..2029 (the synthetic test sets' text), by line and by the same 20-letter rule.

Usage (about 2-4 min and 3 GB on the 2-core dev machine for order 7):
  nice -n 5 /usr/bin/python3 training/lm/build_char_lm.py --order 7 \
      --min-counts 1,1,1,2,2,3,3 --out models/lm/am-char-7gram.bin
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import time
import unicodedata

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))  # common.py
from common import homophone_merge, normalize_ethiopic  # noqa: E402

DATA = os.environ.get("DATA_DIR", "/work/shared/data")
HORNMT_HELD_OUT_FROM = 1900
STRETCH = 20
UNK, BOS, EOS, FIRST = 0, 1, 2, 3
SENTENCE_SPLIT = re.compile(r"[።፧?!፨]+|::|፡፡")


def target_segments(line):
    """The acoustic targets' form of one line of text: a list of normalised segments."""
    out = []
    for sentence in SENTENCE_SPLIT.split(line):
        words, cur = normalize_ethiopic(sentence, False), []
        for w in words + [None]:
            if w is None:
                if cur:
                    out.append(homophone_merge(" ".join(cur)))
                cur = []
            else:
                cur.append(w)
    return out


def scoring(text):
    return homophone_merge(re.sub(r"\s+", "", unicodedata.normalize("NFC", text)))


def stretches(form):
    return {form[i:i + STRETCH] for i in range(max(1, len(form) - STRETCH + 1))}


def read_sources(lang):
    if lang != "am":
        raise SystemExit("only am is wired here (om/ti: npm run lm -- build)")
    held_ids, held_text = set(), []
    for line in open(os.path.join(DATA, "alffa-am-train/text"), encoding="utf-8"):
        p = line.split(None, 1)
        if len(p) == 2:
            held_ids.add(p[0])
            held_text.append(p[1])
    horn = [l.rstrip("\n") for l in open(os.path.join(DATA, "text/hornmt/amh.txt"), encoding="utf-8")]
    held_text += horn[HORNMT_HELD_OUT_FROM:]
    held = set()
    for t in held_text:
        f = scoring(" ".join(w for w in normalize_ethiopic(t, False) if w))
        if len(f) >= 8:
            held |= stretches(f)
    alffa = []
    for line in open(os.path.join(DATA, "alffa-am-train/all-train-transcripts.txt"), encoding="utf-8"):
        p = line.split(None, 1)
        if len(p) == 2 and p[0].startswith("tr_"):
            if p[0] not in held_ids:
                alffa.append(p[1])
        elif line.strip():
            alffa.append(line.strip())
    sources = [
        ("enh", "text/enh/amh-news.txt", "ENH Amharic news corpus (geezorg/enh-corpus), CC0 1.0",
         open(os.path.join(DATA, "text/enh/amh-news.txt"), encoding="utf-8").read().split("\n")),
        ("alffa-am-train", "alffa-am-train/all-train-transcripts.txt", "ALFFA_PUBLIC Amharic (getalp), MIT", alffa),
        ("hornmt", "text/hornmt/amh.txt", "HornMT (Lesan AI), CC BY 4.0", horn[:HORNMT_HELD_OUT_FROM]),
        ("afrisenti", "text/afrisenti/amh.txt", "AfriSenti SemEval-2023, CC BY 4.0",
         open(os.path.join(DATA, "text/afrisenti/amh.txt"), encoding="utf-8").read().split("\n")),
    ]
    return sources, held, len(held_ids)


def pack(seq, B, order):
    """keys[n-1][i] = the n-gram ending at i, for positions where it stays inside one sentence."""
    n_pos = len(seq)
    bos_pos = np.flatnonzero(seq == BOS)
    seg_start = bos_pos[np.searchsorted(bos_pos, np.arange(n_pos), side="right") - 1]
    predicted = seq != BOS
    out = []
    k = seq.astype(np.uint64)
    for n in range(1, order + 1):
        if n > 1:
            nk = np.zeros(n_pos, dtype=np.uint64)
            nk[1:] = (k[:-1] << np.uint64(B)) | seq[1:].astype(np.uint64)
            k = nk
        valid = predicted & (np.arange(n_pos) - (n - 1) >= seg_start)
        keys, counts = np.unique(k[valid], return_counts=True)
        out.append((keys, counts))
        print(f"  order {n}: {len(keys):,} distinct", flush=True)
    return out


def adjusted_counts(grams, B, order):
    """Kneser-Ney counts: the raw count at the highest order and for n-grams that start with <s>;
    elsewhere the number of distinct symbols seen before the n-gram (continuation count)."""
    out = []
    for n in range(1, order + 1):
        keys, counts = grams[n - 1]
        if n == order:
            out.append(counts.astype(np.float64))
            continue
        suffix = grams[n][0] & np.uint64((1 << (B * n)) - 1)
        s_keys, s_counts = np.unique(suffix, return_counts=True)
        idx = np.minimum(np.searchsorted(s_keys, keys), len(s_keys) - 1)
        cont = np.where(s_keys[idx] == keys, s_counts[idx], 0).astype(np.float64)
        starts_bos = (keys >> np.uint64(B * (n - 1))) == BOS
        out.append(np.where(starts_bos, counts, cont))
    return out


def build(seq, symbols, B, order, min_counts, smoothing="wb", prune_from=3):
    """Interpolated model of `seq`, pruned by count from order `prune_from` up (3: characters keep
    every bigram; the word LM prunes bigrams too)."""
    mask = lambda n: np.uint64((1 << (B * n)) - 1)  # noqa: E731
    Bu = np.uint64(B)
    grams = pack(seq, B, order)
    adjusted = adjusted_counts(grams, B, order) if smoothing == "kn" else [g[1].astype(np.float64) for g in grams]

    def discount(a):
        n1, n2 = np.count_nonzero(a == 1), np.count_nonzero(a == 2)
        return n1 / (n1 + 2 * n2) if n1 + n2 > 0 else 0.5

    # Interpolated probabilities of every seen n-gram.
    uni_keys = np.arange(symbols, dtype=np.uint64)
    uni_counts = np.zeros(symbols, dtype=np.int64)
    uni_counts[grams[0][0].astype(np.int64)] = grams[0][1]
    uni_a = np.zeros(symbols)
    uni_a[grams[0][0].astype(np.int64)] = adjusted[0]
    c, t = uni_a.sum(), np.count_nonzero(uni_a)
    uniform = 1.0 / (symbols - 1)
    if smoothing == "kn":
        d = discount(adjusted[0])
        p1 = np.maximum(uni_a - d, 0) / c + d * t / c * uniform
    else:
        p1 = (uni_a + t * uniform) / (c + t)
    p1[BOS] = 0.0
    interp = [(uni_keys, p1, uni_counts)]
    for n in range(2, order + 1):
        keys, counts = grams[n - 1]
        a = adjusted[n - 1]
        lower_keys, lower_p, _ = interp[n - 2]
        lower = keys & mask(n - 1)
        idx = np.searchsorted(lower_keys, lower)
        assert np.all(lower_keys[idx] == lower), "lower-order n-gram missing"
        ctx = keys >> Bu
        starts = np.flatnonzero(np.concatenate(([True], ctx[1:] != ctx[:-1])))
        tot = np.add.reduceat(a, starts)
        types = np.diff(np.append(starts, len(keys)))
        rep = np.repeat(np.arange(len(starts)), types)
        if smoothing == "kn":
            d = discount(a)
            p = np.maximum(a - d, 0) / tot[rep] + d * types[rep] / tot[rep] * lower_p[idx]
        else:
            p = (a + types[rep] * lower_p[idx]) / (tot[rep] + types[rep])
        interp.append((keys, p, counts))
    # Pruning and backoff weights.
    kept = []  # (keys, probs, bows)
    for n in range(1, order + 1):
        keys, p, counts = interp[n - 1]
        if n >= prune_from:
            keep = counts >= min_counts[n - 1]
            keys, p = keys[keep], p[keep]
        kept.append([keys, p, np.ones(len(keys))])
        if n == 1:
            continue
        # p_bo(w | h') of each kept entry's suffix in the final (pruned) model.
        pbo = final_prob(kept, keys & mask(n - 1), n - 1, B)
        ctx = keys >> Bu
        pkeys = kept[n - 2][0]
        starts = np.flatnonzero(np.concatenate(([True], ctx[1:] != ctx[:-1])))
        sum_p = np.add.reduceat(p, starts)
        sum_l = np.add.reduceat(pbo, starts)
        pidx = np.searchsorted(pkeys, ctx[starts])
        assert np.all(pkeys[pidx] == ctx[starts]), "kept n-gram without a kept context"
        bows = np.ones(len(pkeys))
        bows[pidx] = np.maximum(1 - sum_p, 1e-12) / np.maximum(1 - sum_l, 1e-12)
        bows[(pkeys & mask(1)) == EOS] = 1.0  # nothing follows </s>
        kept[n - 2][2] = bows
        print(f"  order {n}: kept {len(keys):,}", flush=True)
    return kept


def final_prob(kept, keys, m, B):
    """Pruned-model probability of the last symbol of each order-m key given the rest."""
    mkeys, mp, _ = kept[m - 1]
    if m == 1:
        return mp[keys.astype(np.int64)]
    idx = np.minimum(np.searchsorted(mkeys, keys), len(mkeys) - 1)
    found = mkeys[idx] == keys
    out = np.where(found, mp[idx], 0.0)
    miss = ~found
    if miss.any():
        k = keys[miss]
        ckeys, _, cbows = kept[m - 2]
        ctx = k >> np.uint64(B)
        cidx = np.minimum(np.searchsorted(ckeys, ctx), len(ckeys) - 1)
        w = np.where(ckeys[cidx] == ctx, cbows[cidx], 1.0)
        out[miss] = w * final_prob(kept, k & np.uint64((1 << (B * (m - 1))) - 1), m - 1, B)
    return out


def lm_file(magic, size, kept, order, B, word_dtype, vocabulary):
    """An HNLM or HWLM file (the layouts of char-ngram-lm.ts and word-ngram-lm.ts): the 64-byte
    header (`size` symbols or words), the `vocabulary` section's bytes, then one trie level per
    order: words as `word_dtype` (padded to 4 bytes), ln probs, and below the top bows and child
    offsets; the checksum of all after the header goes in last."""
    header = bytearray(64)
    header[0:4] = magic
    struct.pack_into("<HHIII", header, 4, 1, 64, order, size, 0)
    for n in range(order):
        struct.pack_into("<I", header, 24 + 4 * n, len(kept[n][0]))
    parts = [vocabulary]
    lnp = lambda p: np.where(p > 0, np.log(np.maximum(p, 1e-300)), -99.0).astype("<f4")  # noqa: E731
    for n in range(order):
        keys, p, bows = kept[n]
        words = (keys & np.uint64((1 << B) - 1)).astype(word_dtype).tobytes()
        parts.append(words + b"\0" * ((-len(words)) % 4))
        parts.append(lnp(p).tobytes())
        if n < order - 1:
            parts.append(np.log(bows).astype("<f4").tobytes())
            child_ctx = kept[n + 1][0] >> np.uint64(B)
            nxt = np.searchsorted(child_ctx, keys, side="left").astype("<u4")
            parts.append(np.append(nxt, np.uint32(len(child_ctx))).astype("<u4").tobytes())
    body = b"".join(parts)
    struct.pack_into("<I", header, 20, fnv1a(body))
    return bytes(header) + body


def serialise(kept, alphabet, order, B):
    alphabet_bytes = np.array([0, 0, 0] + alphabet, dtype="<u4").tobytes()
    return lm_file(b"HNLM", len(alphabet) + FIRST, kept, order, B, "<u2", alphabet_bytes)


def fnv1a(body):
    """FNV-1a over the body, computed by node (seconds in Python for tens of MB)."""
    js = ("const b=require('fs').readFileSync(0);let h=0x811c9dc5;"
          "for(let i=0;i<b.length;i++){h^=b[i];h=Math.imul(h,0x01000193);}process.stdout.write(String(h>>>0));")
    return int(subprocess.run(["node", "-e", js], input=body, capture_output=True, check=True).stdout)


ATTRIBUTION = "Built from the ENH Amharic news corpus (geezorg, CC0 1.0), ALFFA_PUBLIC Amharic transcripts (MIT), HornMT (Lesan AI, CC BY 4.0) and AfriSenti SemEval-2023 (CC BY 4.0). Redistribution must keep this attribution."


def min_counts_for(text, order):
    """--min-counts "a,b,...": one per order, the last repeated, never lower than the order below."""
    counts = [int(x) for x in text.split(",")]
    counts += [counts[-1]] * (order - len(counts))
    for n in range(1, order):
        counts[n] = max(counts[n], counts[n - 1])
    return counts


def repeats_for(text):
    """--repeat "name=k,...": how many times each source's segments count."""
    return {k: int(v) for k, v in (x.split("=") for x in text.split(",") if x)}


def write_lm(a, data, fmt, unit, fields, command, t0):
    """Writes the LM file `data` to a.out and the .bin.json beside it: what every LM records
    (file, format, language, unit, order), `fields`, then how it was built (`command`: the
    command line before the arguments)."""
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "wb") as f:
        f.write(data)
    meta = {
        "file": os.path.basename(a.out),
        "format": fmt,
        "language": a.lang,
        "unit": unit,
        "order": a.order,
        **fields,
        "command": command + " " + " ".join(sys.argv[1:]),
        "build_seconds": round(time.time() - t0, 1),
        "attribution": ATTRIBUTION,
    }
    write_meta(a.out, meta)


def write_meta(out, meta):
    """The .bin.json beside an LM file, and its report line."""
    with open(out + ".json", "w", encoding="utf-8") as f:
        f.write(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(meta["report"]), f"{meta['build_seconds']} s", flush=True)


def kept_segments(lang, use, repeat):
    """The segments of each used source (in source order) that pass the held-out rule: none shares
    a 20-letter stretch of scoring text with a held-out sentence. Returns (segments by source,
    report entries, segments excluded, number of held-out ids). Shared with build_word_lm.py."""
    sources, held, held_ids = read_sources(lang)
    by_source, report_sources, excluded = {}, [], 0
    for name, path, licence, lines in sources:
        if name not in use:
            continue
        kept = by_source.setdefault(name, [])
        for line in lines:
            if not line.strip():
                continue
            for seg in target_segments(line):
                f = scoring(seg)
                if len(f) >= STRETCH and any(f[i:i + STRETCH] in held for i in range(len(f) - STRETCH + 1)):
                    excluded += 1
                    continue
                if len(f) < STRETCH and f in held:
                    excluded += 1
                    continue
                kept.append(seg)
        report_sources.append({"name": name, "file": f"<data>/{path}", "licence": licence, "segments": len(kept), "repeat": repeat.get(name, 1)})
        print(f"{name}: {len(kept):,} segments", flush=True)
    return by_source, report_sources, excluded, held_ids


def lm_arguments(order, min_counts, min_counts_help=None, repeat_help="name=k,...: count a source's segments k times"):
    """The options both LM builders take (--lang, --order, --min-counts, --sources, --repeat, --out); each adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", default="am")
    ap.add_argument("--order", type=int, default=order)
    ap.add_argument("--min-counts", default=min_counts, help=min_counts_help)
    ap.add_argument("--sources", default="enh,alffa-am-train,hornmt,afrisenti")
    ap.add_argument("--repeat", default="", help=repeat_help)
    ap.add_argument("--out", required=True)
    return ap


def lm_inputs(a):
    """For parsed LM options `a`: the minimum count per order, the repeats per source, and kept_segments' four results."""
    repeat = repeats_for(a.repeat)
    return (min_counts_for(a.min_counts, a.order), repeat, *kept_segments(a.lang, set(a.sources.split(",")), repeat))


def main():
    ap = lm_arguments(7, "1,1,1,2,2,3,3", repeat_help="name=k,...: count a source's segments k times (weights the in-domain ALFFA style)")
    ap.add_argument("--min-char-count", type=int, default=2)
    ap.add_argument("--smoothing", choices=["wb", "kn"], default="wb",
                    help="wb: interpolated Witten-Bell (as char-ngram-builder.ts); kn: interpolated Kneser-Ney, one discount per order")
    ap.add_argument("--no-spaces", action="store_true",
                    help="drop spaces: the LM models the letter sequence only (the scoring ignores spaces, and ALFFA's morpheme splits differ from news spacing); the decoder then leaves word delimiters to the acoustic model")
    a = ap.parse_args()
    t0 = time.time()
    min_counts, repeat, by_source, report_sources, excluded, held_ids = lm_inputs(a)
    segments = []
    for name, kept in by_source.items():
        for seg in kept:
            for _ in range(repeat.get(name, 1)):
                segments.append(seg.replace(" ", "") if a.no_spaces else seg)
    text = "\n".join(segments)
    chars = {}
    for ch in text:
        chars[ch] = chars.get(ch, 0) + 1
    chars.pop("\n", None)
    alphabet = sorted(ord(c) for c, k in chars.items() if k >= a.min_char_count)
    symbols = len(alphabet) + FIRST
    B = max(1, (symbols - 1).bit_length())
    if B * a.order > 64:
        raise SystemExit(f"{symbols} symbols need {B} bits: order {a.order} does not fit a 64-bit key")
    lut = np.zeros(0x10000, dtype=np.uint16)
    for i, cp in enumerate(alphabet):
        lut[cp] = i + FIRST
    codes = np.frombuffer(text.encode("utf-16-le"), dtype="<u2")
    ids = lut[codes]
    ids[codes == 10] = EOS  # newline ends a segment
    seq = np.concatenate(([BOS], np.insert(ids, np.flatnonzero(ids == EOS) + 1, BOS), [EOS])).astype(np.uint16)
    n_chars = int(np.count_nonzero(seq >= FIRST) + np.count_nonzero(seq == UNK))
    print(f"{len(segments):,} segments, {n_chars:,} characters, {symbols} symbols ({B} bits), order {a.order}, min counts {min_counts}", flush=True)
    kept = build(seq, symbols, B, a.order, min_counts, a.smoothing)
    data = serialise(kept, alphabet, a.order, B)
    write_lm(a, data, "HNLM v1 character n-gram (src/engines/asr/decoding/lm/char-ngram-lm.ts)", "char", {
        "smoothing": ("interpolated Witten-Bell" if a.smoothing == "wb" else "interpolated Kneser-Ney (one discount per order, n1/(n1+2 n2))") + ", backoff form, natural log; backoff weights recomputed after pruning",
        "normalisation": "the acoustic targets' (training/common/common.py normalize_ethiopic + homophone_merge; sentences cut at ። ፧ ? !; runs split at words with digits/Latin); no punctuation, ALFFA homophone merge",
        "spaces": "dropped (word delimiters are LM-transparent)" if a.no_spaces else "kept",
        "min_counts": min_counts,
        "min_char_count": a.min_char_count,
        "sources": report_sources,
        "held_out": f"all {held_ids} ALFFA utterances with audio (alffa-am-train/text, incl. the speaker-held-out val/test groups) and HornMT lines 1900..2029: by id/line and any segment sharing a {STRETCH}-letter stretch with one of them ({excluded} segments excluded)",
        "report": {"segments": len(segments), "characters": n_chars, "symbols": symbols,
                   "counts": [int(len(k[0])) for k in kept], "bytes": len(data)},
    }, "nice -n 5 /usr/bin/python3 training/lm/build_char_lm.py", t0)


if __name__ == "__main__":
    main()
