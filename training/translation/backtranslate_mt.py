"""Back-translation: synthetic training pairs whose target side is real monolingual Amharic or Tigrinya text.

Seeded and reproducible. Monolingual sources (licences in the model card):
  ../shared/data/text/enh/amh-news.txt      ENH Amharic newspaper articles (CC0); one article per blank-line block
  ../shared/data/text/afrisenti/tir.txt     AfriSenti Tigrinya tweets (CC BY 4.0); one tweet per line
  ../shared/data/alffa-am-train/all-train-transcripts.txt  ALFFA transcripts (MIT); off by default (--alffa 0):
      they are morpheme-segmented, unpunctuated and homophone-merged, so as a target side they would teach the
      model an orthography that none of the references use.
Held-out rule (by document, as in prepare_mt.py): every 20-letter stretch (whitespace removed) of every dev and test
sentence of the MT splits is collected; an ENH article or a tweet that shares any such stretch is dropped whole.
Selection: documents in a seeded order, at most --per-doc sentences from each, sentences of 4-40 words and at most
300 characters, mostly Ethiopic letters. Each selected sentence is translated into English with the checkpoint
(batched greedy decoding, sorted by length) and written as `en <tgt> <synthetic English> <real sentence>` (the
train.tsv columns), so the model learns en→am / en→ti on real target text. Outputs that are degenerate (loops:
fewer than half the words distinct, or under 3 words) are dropped and counted.
Usage: backtranslate_mt.py --checkpoint ckpt.pt --data /work/mt-work/data --shared /work/shared/data --out bt.tsv
"""
import argparse
import json
import os
import random
import re
import time
import unicodedata

import sentencepiece as spm
import torch

from evaluate_mt import greedy
from mt_model import Seq2Seq

SHINGLE = 20
# Many tweets are wrapped in quotes; kept, they taught run (b) to answer en->ti with quote marks only.
QUOTES = ' \'"“”‘’«»'
SENTENCE_END = re.compile(r'(?<=[።፧?!])\s+|(?<=፡፡)\s*')


def norm(text):
    return ' '.join(unicodedata.normalize('NFC', text).split())


def shingles(text):
    s = ''.join(text.split())
    return {s[i:i + SHINGLE] for i in range(max(1, len(s) - SHINGLE + 1))}


def held_out_shingles(data):
    out = set()
    for name in os.listdir(data):
        if (name.startswith('dev.') or name.startswith('test.')) and name.endswith(('.src', '.ref')):
            with open(os.path.join(data, name), encoding='utf-8') as f:
                for line in f:
                    out |= shingles(norm(line))
    return out


def ethiopic_share(text):
    letters = [c for c in text if c.isalpha()]
    return sum('\u1200' <= c <= '\u137f' for c in letters) / max(1, len(letters))


def good_sentence(s):
    words = s.split()
    return 4 <= len(words) <= 40 and len(s) <= 300 and ethiopic_share(s) >= 0.9


def enh_documents(path):
    doc = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = norm(line)
            if not line:
                if doc:
                    yield doc
                doc = []
            else:
                doc += [s for s in (norm(p) for p in SENTENCE_END.split(line)) if s]
    if doc:
        yield doc


def tweet_documents(path):
    with open(path, encoding='utf-8') as f:
        for line in f:
            text = re.sub(r'@user|https?://\S+|#\S+', ' ', line)
            yield [norm(norm(text).strip(QUOTES))]


def alffa_documents(path):
    with open(path, encoding='utf-8') as f:
        for line in f:
            parts = line.split(maxsplit=1)
            if len(parts) == 2:
                yield [norm(parts[1])]


def select(docs, count, per_doc, held, rng, stats, name):
    docs = list(docs)
    rng.shuffle(docs)
    picked, seen = [], set()
    for doc in docs:
        if len(picked) >= count:
            break
        if any(shingles(s) & held for s in doc):
            stats[f'{name}_documents_dropped_held_out'] = stats.get(f'{name}_documents_dropped_held_out', 0) + 1
            continue
        cands = [s for s in doc if good_sentence(s) and s not in seen]
        rng.shuffle(cands)
        for s in cands[:per_doc]:
            seen.add(s)
            picked.append(s)
    stats[f'{name}_documents'] = len(docs)
    return picked[:count]


def degenerate(text):
    words = text.split()
    return len(words) < 3 or len(set(words)) < 0.5 * len(words)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--checkpoint', required=True)
    ap.add_argument('--data', required=True, help='prepare_mt.py output (dev/test files, spm.model)')
    ap.add_argument('--shared', default='/work/shared/data')
    ap.add_argument('--out', required=True)
    ap.add_argument('--am', type=int, default=3000, help='ENH sentences')
    ap.add_argument('--ti', type=int, default=1500, help='AfriSenti Tigrinya tweets')
    ap.add_argument('--alffa', type=int, default=0, help='ALFFA transcripts (see the docstring)')
    ap.add_argument('--per-doc', type=int, default=3)
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--seed', type=int, default=20261128)
    ap.add_argument('--stats', default=None)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    state = torch.load(args.checkpoint, map_location='cpu')
    model = Seq2Seq(**state['config'])
    model.load_state_dict(state['model'])
    model.eval()
    sp = spm.SentencePieceProcessor(model_file=os.path.join(args.data, 'spm.model'))
    held = held_out_shingles(args.data)
    stats = {'seed': args.seed, 'checkpoint_step': state['step'], 'decoding': 'greedy', 'held_out_shingles': len(held)}
    sources = [
        ('am', 'enh', lambda: enh_documents(os.path.join(args.shared, 'text/enh/amh-news.txt')), args.am),
        ('am', 'alffa', lambda: alffa_documents(os.path.join(args.shared, 'alffa-am-train/all-train-transcripts.txt')), args.alffa),
        ('ti', 'afrisenti', lambda: tweet_documents(os.path.join(args.shared, 'text/afrisenti/tir.txt')), args.ti),
    ]
    rows = []
    for lang, name, docs, count in sources:
        if count <= 0:
            continue
        t0 = time.time()
        real = select(docs(), count, args.per_doc, held, rng, stats, name)
        hyps = greedy(model, sp, real, 'en', max_out=10**6, batch=args.batch, max_source=126, length_ratio=2.0, length_extra=5, by_length=True)
        kept = [(h, r) for h, r in zip(hyps, real) if not degenerate(h)]
        rows += [('en', lang, h, r) for h, r in kept]
        stats[name] = {'lang': lang, 'selected': len(real), 'kept': len(kept), 'dropped_degenerate': len(real) - len(kept),
                       'minutes': round((time.time() - t0) / 60, 1), 'example': {'real': real[0], 'synthetic_en': hyps[0]}}
        print(name, json.dumps(stats[name], ensure_ascii=False), flush=True)
    with open(args.out, 'w', encoding='utf-8') as f:
        for la, lb, a, b in rows:
            f.write(f'{la}\t{lb}\t{a}\t{b}\n')
    stats['pairs'] = len(rows)
    if args.stats:
        with open(args.stats, 'w') as f:
            json.dump(stats, f, indent=2, ensure_ascii=False)
    print('pairs', len(rows))


if __name__ == '__main__':
    main()
