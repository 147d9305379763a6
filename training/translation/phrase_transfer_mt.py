"""Phrase-transfer tables between Amharic / Tigrinya and English (am-en, en-am, ti-en, en-ti).

Why: the shipped network (translate-am-en-ti-v1) reads these directions at held-out chrF 4-15, fluent-looking
English that is mostly unrelated to the source, and Amharic / Tigrinya fragments that loop. A gloss (each source
word or short phrase replaced by its most frequent translation in the training pairs, in the source's order) keeps
the source's content and cannot loop; on the held-out splits it reads about twice the network's chrF
(docs/translation-models.md, *Phrase transfer*).

How (deterministic; every step on prepare_mt.py's train.tsv, so dev and test documents are never seen):
1. words: runs of letters, marks and digits (Unicode L*, M*, N*) with inner apostrophes, as the gateway reads
   them, lowercased for alignment;
2. IBM Model 1 (NLTK's IBMModel1) in both directions, each sentence's Viterbi links, symmetrised by
   grow-diag-final-and (NLTK's gdfa); written to DIR/links.<a>-<b> (Pharaoh layout) and reused when present;
3. counted in both directions from the same links: each word's translation (the target span its links cover
   when no other word links inside it, else the words it links to; at most 4 words), and consistent phrase pairs of 2-3 source
   and at most 6 target words (NLTK's phrase_extraction);
4. each source phrase keeps its most frequent target (ties: the fewest words, then the first in code-point order;
   never a target with digits for a source without them, nor one that repeats a word back to back); single words seen
   once are kept, phrases of two or more words need --min-phrase-count occurrences of the pair. An English target
   keeps its most frequent spelling away from sentence starts (so "Ethiopia" and "the", not "The").
The tables are written gzipped in the layout of a Moses phrase table (`source ||| target ||| p(target|source)`),
one line per source phrase, which the gateway reads (src/engines/translation/word-transfer.ts; manifest `word_transfer`).

Usage (W/data: prepare_mt.py's output; /usr/bin/python3 with python3-nltk):
  python3 phrase_transfer_mt.py --data W/data --out DIR [--iterations 5] [--min-phrase-count 2] [--install MODEL]
--install MODEL copies the tables into the model folder and adds their directions to its manifest's `word_transfer`
(am-en and ti-en with `unknown_words: romanize`, en-am and en-ti with `keep`). Scores: `npx tsx bench/word-transfer.ts`.
"""
import argparse
import gzip
import json
import os
import time
from collections import Counter, defaultdict

from nltk.translate import AlignedSent, IBMModel1
from nltk.translate.gdfa import grow_diag_final_and
from nltk.translate.phrase_based import phrase_extraction

from word_transfer_mt import install_tables, words

PAIRS = (('am', 'en'), ('ti', 'en'))
MAX_SOURCE_WORDS = 3
MAX_TARGET_WORDS = 6
MAX_WORD_TARGET_WORDS = 4  # one Amharic or Tigrinya word is at most about four English ones ("for the Ethiopians")
MAX_SENTENCE_WORDS = 80


def viterbi_links(sources, targets, iterations, flip):
    """IBM Model 1 p(target | source) and each pair's best source word per target word, as 'i-j' (source-target
    of the pair as given when flip is False, with the roles swapped back when True)."""
    bitext = [AlignedSent(t, s) for s, t in zip(sources, targets)]
    IBMModel1(bitext, iterations)  # aligns every sentence of the bitext when it finishes
    links = []
    for sent in bitext:
        pairs = [(i, j) for j, i in sent.alignment if i is not None]
        links.append(' '.join(f'{j}-{i}' if flip else f'{i}-{j}' for i, j in sorted(pairs)))
    return links


def repeats_a_word(phrase):
    words_ = phrase.split(' ')
    return any(a == b for a, b in zip(words_, words_[1:]))


def best_targets(counts, surfaces, min_phrase_count):
    """source phrase -> (target surface, p(target|source)) for the most frequent target; ties go to the fewest words,
    then to the first in code-point order."""
    table = {}
    for source, targets in counts.items():
        total = sum(targets.values())
        if not any(c.isdigit() for c in source):
            # Alignment noise pairs rare words with numbers; a word without digits never becomes one.
            targets = {t: n for t, n in targets.items() if not any(c.isdigit() for c in t)}
        # Links that skip words give targets such as "road road road": never one that repeats a word back to back.
        targets = {t: n for t, n in targets.items() if not repeats_a_word(t)}
        if not targets:
            continue
        target, n = min(targets.items(), key=lambda kv: (-kv[1], kv[0].count(' '), kv[0]))
        if ' ' in source and n < min_phrase_count:
            continue
        spelled = surfaces.get(target)
        surface = min(spelled.items(), key=lambda kv: (-kv[1], kv[0]))[0] if spelled else target
        table[source] = (surface, n / total)
    return table


def symmetrised_links(low, iterations, links_file):
    """Each pair's grow-diag-final-and links [(i, j)], read from links_file (Pharaoh 'i-j' lines) when it holds
    one line per pair, else computed and written there."""
    if os.path.exists(links_file):
        with open(links_file, encoding='utf-8') as f:
            lines = f.read().split('\n')[:-1]
        if len(lines) == len(low):
            return [[tuple(map(int, x.split('-'))) for x in line.split()] for line in lines]
    forward = viterbi_links([a for a, _ in low], [b for _, b in low], iterations, flip=False)
    backward = viterbi_links([b for _, b in low], [a for a, _ in low], iterations, flip=True)
    links = [grow_diag_final_and(len(a), len(b), f, r) for (a, b), f, r in zip(low, forward, backward)]
    with open(links_file, 'w', encoding='utf-8') as f:
        for pair_links in links:
            f.write(' '.join(f'{i}-{j}' for i, j in sorted(pair_links)) + '\n')
    return links


def word_targets(links, reverse):
    """Per source word index, the target span its links cover when no other source word links inside it, else
    the target words it links to (so that every linked word gets a translation, consistent or not); at most
    MAX_WORD_TARGET_WORDS words (longer ones are alignment noise around rare words)."""
    pairs = [(j, i) for i, j in links] if reverse else list(links)
    by_source = defaultdict(list)
    for i, j in pairs:
        by_source[i].append(j)
    out = {}
    for i, js in by_source.items():
        lo, hi = min(js), max(js)
        if hi - lo < MAX_WORD_TARGET_WORDS and all(i2 == i for i2, j in pairs if lo <= j <= hi):
            out[i] = (lo, hi + 1)
        elif len(set(js)) <= MAX_WORD_TARGET_WORDS:
            out[i] = sorted(set(js))
    return out


def build(rows, la, lb, iterations, min_phrase_count, links_file):
    low = [([w.lower() for w in a], [w.lower() for w in b]) for a, b in rows]
    started = time.time()
    all_links = symmetrised_links(low, iterations, links_file)
    counts = {(la, lb): defaultdict(Counter), (lb, la): defaultdict(Counter)}
    surfaces = {la: defaultdict(Counter), lb: defaultdict(Counter)}

    def count(direction, source, target_low, target_cased, at_start):
        key = ' '.join(target_low)
        counts[direction][source][key] += 1
        if not at_start:
            surfaces[direction[1]][key][' '.join(target_cased)] += 1

    for (a, b), (la_words, lb_words), links in zip(rows, low, all_links):
        for x, y, xs, ys, ys_cased, reverse in ((la, lb, la_words, lb_words, b, False), (lb, la, lb_words, la_words, a, True)):
            for i, span in word_targets(links, reverse).items():
                js = range(*span) if isinstance(span, tuple) else span
                count((x, y), xs[i], [ys[j] for j in js], [ys_cased[j] for j in js], min(js) == 0)
        for (a0, a1), (b0, b1), _, _ in phrase_extraction(' '.join(la_words), ' '.join(lb_words), links, MAX_TARGET_WORDS):
            if 2 <= a1 - a0 <= MAX_SOURCE_WORDS and b1 - b0 <= MAX_TARGET_WORDS:
                count((la, lb), ' '.join(la_words[a0:a1]), lb_words[b0:b1], b[b0:b1], b0 == 0)
            if 2 <= b1 - b0 <= MAX_SOURCE_WORDS and a1 - a0 <= MAX_TARGET_WORDS:
                count((lb, la), ' '.join(lb_words[b0:b1]), la_words[a0:a1], a[a0:a1], a0 == 0)
    tables = {d: best_targets(c, surfaces[d[1]], min_phrase_count) for d, c in counts.items()}
    return tables, round(time.time() - started, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', required=True, help="prepare_mt.py's output folder")
    ap.add_argument('--out', required=True)
    ap.add_argument('--iterations', type=int, default=5)
    ap.add_argument('--min-phrase-count', type=int, default=2, help='times a pair of two or more source words must be seen')
    ap.add_argument('--install', default=None, metavar='MODEL',
                    help="also copy the tables into this model folder and list them in its manifest's word_transfer")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = {p: [] for p in PAIRS}
    with open(os.path.join(args.data, 'train.tsv'), encoding='utf-8') as f:
        for line in f:
            la, lb, a, b = line.rstrip('\n').split('\t')
            if (la, lb) in rows:
                wa, wb = words(a), words(b)
                if wa and wb and len(wa) <= MAX_SENTENCE_WORDS and len(wb) <= MAX_SENTENCE_WORDS:
                    rows[(la, lb)].append((wa, wb))
    report = {'iterations': args.iterations, 'min_phrase_count': args.min_phrase_count, 'pairs': {}}
    for (la, lb), pair_rows in rows.items():
        links_file = os.path.join(args.out, f'links.{la}-{lb}')
        tables, seconds = build(pair_rows, la, lb, args.iterations, args.min_phrase_count, links_file)
        report['pairs'][f'{la}-{lb}'] = {'training_pairs': len(pair_rows), 'seconds': seconds}
        for (x, y), table in tables.items():
            text = ''.join(f'{source} ||| {table[source][0]} ||| {table[source][1]:.6f}\n' for source in sorted(table))
            # gzip with no name and mtime 0: the same tables give the same bytes.
            with open(os.path.join(args.out, f'phrases.{x}-{y}.gz'), 'wb') as raw, \
                    gzip.GzipFile(filename='', mode='wb', fileobj=raw, mtime=0, compresslevel=9) as f:
                f.write(text.encode('utf-8'))
            report['pairs'][f'{la}-{lb}'][f'entries_{x}_{y}'] = len(table)
        print(la, lb, json.dumps(report['pairs'][f'{la}-{lb}']), flush=True)
    with open(os.path.join(args.out, 'phrase-transfer.json'), 'w', encoding='utf-8') as f:
        json.dump(report, f, indent=2)
    if args.install:
        install_tables(args.install, args.out, {
            f'{x}-{y}': {'table': f'phrases.{x}-{y}.gz', 'min_probability': 0, 'unknown_words': 'romanize' if y == 'en' else 'keep'}
            for la, lb in PAIRS for x, y in ((la, lb), (lb, la))})


if __name__ == '__main__':
    main()
