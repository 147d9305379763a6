#!/usr/bin/python3
"""The argument once given for no word-level Amharic LM (since issue 14 word and morpheme LMs are
built and measured in decoding: build_word_lm.py, measure_word_lm.sh, models/lm/README.md):
out-of-vocabulary rate of the speaker-held-out ALFFA transcripts
against the ENH news words (normalised as the acoustic targets), and the share of one-letter
morpheme tokens that ALFFA splits off (የ, በ, ለ ...) and news text writes attached.

Usage: /usr/bin/python3 training/lm/word_oov.py
"""
import sys, collections, re
sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from build_char_lm import target_segments, read_sources
sources, held, _ = read_sources('am')
counts = collections.Counter()
for name, path, lic, lines in sources:
    if name != 'enh': continue
    for line in lines:
        if line.strip():
            for seg in target_segments(line): counts.update(seg.split())
vocab = [w for w, _ in counts.most_common(100000)]
V = set(vocab)
ids = set(open('training/common/splits/alffa-spk-val.txt').read().split()) | set(open('training/common/splits/alffa-spk-test.txt').read().split())
toks = []
for l in open('/work/shared/data/alffa-am-train/text', encoding='utf-8'):
    p = l.split(None, 1)
    if p[0] in ids: toks += p[1].split()
oov = sum(1 for t in toks if t not in V)
print(f'ENH words: {len(counts)} types, {sum(counts.values())} tokens; held-out ALFFA tokens {len(toks)}, OOV vs top-100k ENH words {oov/len(toks):.1%}; vs all ENH words {sum(1 for t in toks if t not in counts)/len(toks):.1%}')
# joining ALFFA's split morphemes back: how many held-out tokens are single letters (prefix morphemes like የ, በ, ለ)?
print('one-letter tokens', sum(1 for t in toks if len(t)==1)/len(toks))
