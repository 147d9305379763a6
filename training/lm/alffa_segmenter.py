#!/usr/bin/python3
"""ALFFA-style morpheme splits for news words, learnt from the ALFFA train transcripts.

ALFFA's transcripts (the acoustic targets) split many words into morphemes (`የ ቆላ`, `በ ተመለከተ`,
`መረጋጋቱ ን`), news text writes them whole. A word LM over news words then sees other tokens than
the decoder emits. This learns the splits from the transcripts themselves:
  - a run of 2-3 adjacent ALFFA tokens whose concatenation is a news word (seen >= `min_news`
    times) is an observed split of that word; an ALFFA token that is a news word is an observed
    unsplit occurrence;
  - a word observed in ALFFA >= 2 times gets its most frequent form;
  - any other word: prefixes (1-3 letters) and suffixes (1-2 letters) are split off when ALFFA
    splits them off at least `min_rate` of the time among observed words that start (end) with
    them (>= `min_seen` observations), the rest keeping >= 2 letters; prefixes first, longest
    first, repeatedly (`የሚ`, then `ያ`...), then one suffix.
Input text must be in the targets' form (build_char_lm.target_segments). The held-out ALFFA
utterances are not in the transcripts it learns from (read_sources excludes them).

Usage (diagnostic: held-out token coverage before and after):
  /usr/bin/python3 training/lm/alffa_segmenter.py
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class AlffaSegmenter:
    def __init__(self, alffa_segments, news_counts, min_news=3, min_rate=0.5, min_seen=20):
        self.news = news_counts
        forms = collections.defaultdict(collections.Counter)  # word -> Counter(tuple of tokens)
        for seg in alffa_segments:
            toks = seg.split()
            i = 0
            while i < len(toks):
                for n in (3, 2, 1):
                    if i + n > len(toks):
                        continue
                    w = "".join(toks[i:i + n])
                    if n == 1 or news_counts.get(w, 0) >= min_news:
                        forms[w][tuple(toks[i:i + n])] += 1
                        i += n
                        break
        self.forms = {w: c.most_common(1)[0][0] for w, c in forms.items() if sum(c.values()) >= 2}
        pre_n, pre_split = collections.Counter(), collections.Counter()
        suf_n, suf_split = collections.Counter(), collections.Counter()
        for w, c in forms.items():
            if self.news.get(w, 0) < min_news:
                continue
            for form, k in c.items():
                first, last = len(form[0]), len(w) - len(form[-1])
                for L in (1, 2, 3):
                    if len(w) > L + 1:
                        pre_n[w[:L]] += k
                        if len(form) > 1 and first == L:
                            pre_split[w[:L]] += k
                for L in (1, 2):
                    if len(w) > L + 1:
                        suf_n[w[-L:]] += k
                        if len(form) > 1 and len(w) - last == L:
                            suf_split[w[-L:]] += k
        rate = lambda s, n: {a for a in n if n[a] >= min_seen and s[a] / n[a] >= min_rate}  # noqa: E731
        self.prefixes = sorted(rate(pre_split, pre_n), key=lambda a: (-len(a), a))
        self.suffixes = sorted(rate(suf_split, suf_n), key=lambda a: (-len(a), a))
        self.cache = {}

    def segment(self, word):
        """The ALFFA-style tokens of one news word."""
        got = self.cache.get(word)
        if got is not None:
            return got
        if word in self.forms:
            out = list(self.forms[word])
        else:
            head, rest = [], word
            while True:
                p = next((p for p in self.prefixes if rest.startswith(p) and len(rest) - len(p) >= 2), None)
                if p is None:
                    break
                head.append(p)
                rest = rest[len(p):]
            tail = []
            s = next((s for s in self.suffixes if rest.endswith(s) and len(rest) - len(s) >= 2), None)
            if s is not None:
                tail, rest = [s], rest[:-len(s)]
            out = head + [rest] + tail
        self.cache[word] = out
        return out


def main():
    from build_char_lm import STRETCH, read_sources, scoring, target_segments
    sources, held, _ = read_sources("am")
    news, alffa = collections.Counter(), []
    for name, _, _, lines in sources:
        for line in lines:
            if not line.strip():
                continue
            for seg in target_segments(line):
                f = scoring(seg)  # the held-out rule of build_char_lm.py / build_word_lm.py
                if (len(f) >= STRETCH and any(f[i:i + STRETCH] in held for i in range(len(f) - STRETCH + 1))) or (len(f) < STRETCH and f in held):
                    continue
                if name == "alffa-am-train":
                    alffa.append(seg)
                elif name == "enh":
                    news.update(seg.split())
    seg = AlffaSegmenter(alffa, news)
    print(f"{len(seg.forms):,} words with an observed ALFFA form; prefixes {seg.prefixes[:40]}; suffixes {seg.suffixes[:40]}")
    here = os.path.dirname(os.path.abspath(__file__))
    ids = set(open(os.path.join(os.path.dirname(here), "common/splits/alffa-spk-val.txt")).read().split()) | set(open(os.path.join(os.path.dirname(here), "common/splits/alffa-spk-test.txt")).read().split())
    toks = []
    for line in open(os.path.join(os.environ.get("DATA_DIR", "/work/shared/data"), "alffa-am-train/text"), encoding="utf-8"):
        p = line.split(None, 1)
        if p[0] in ids:
            toks += [t for seg in target_segments(p[1]) for t in seg.split()]
    resegmented = collections.Counter()
    for w, c in news.items():
        for t in seg.segment(w):
            resegmented[t] += c
    for name, counts in (("news words", news), ("news words, ALFFA-segmented", resegmented)):
        top = {w for w, _ in counts.most_common(200000)}
        print(f"{name}: {len(counts):,} types; held-out ALFFA tokens outside the top 200k: {sum(t not in top for t in toks) / len(toks):.1%} (of {len(toks):,})")


if __name__ == "__main__":
    main()
