"""Word-for-word transfer tables between Amharic and Tigrinya (am-ti, ti-am), and their dev scores.

Why: the shipped network translates am<->ti worse than copying the source (chrF 4-8 against 15);
the two languages share the script and many words, so a translation that keeps the source and
replaces the words it has learnt beats the copy. The tables are IBM Model 1 lexical
probabilities (NLTK's IBMModel1) trained on the am-ti pairs of prepare_mt.py's train.tsv (the
HornMT train split: held-out snippets are never seen), written in the layout of Moses'
lex.f2e (one `target source p(target|source)` line each), which the gateway reads
(src/engines/translation/word-transfer.ts; manifest `word_transfer`).

Words are runs of letters, marks and digits (Unicode categories L*, M*, N*, inner apostrophes included), as in the gateway;
everything else (spaces, punctuation) stays as in the source.

Usage (W/data: prepare_mt.py's output; /usr/bin/python3 with python3-nltk):
  python3 word_transfer_mt.py --data W/data --out DIR [--iterations 8] [--keep 0.05] [--min-count 2]
      [--install MODEL [--min-probability 0.2]]
It writes DIR/lex.am-ti, DIR/lex.ti-am (each source word's most likely target, kept where
p >= --keep and the word was seen --min-count times) and DIR/word-transfer-dev.json: dev chrF per direction at each threshold beside
copying the source (evaluate_mt.py's chrF), from which the manifest's `min_probability` is chosen.
--install MODEL also copies the tables into the model folder and writes its manifest's `word_transfer`.
"""
import argparse
import json
import os
import shutil
import time
import unicodedata
from collections import Counter

from nltk.translate import AlignedSent, IBMModel1

from evaluate_mt import chrf

THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)


def is_word_char(c):
    return unicodedata.category(c)[0] in 'LMN'


def words(text):
    """Runs of letters, marks and digits, an apostrophe between two of them included ("doesn't"), as the gateway
    reads words (src/engines/translation/word-transfer.ts)."""
    out, cur = [], []
    for k, c in enumerate(text):
        inner_apostrophe = c in "'\u2019" and cur and k + 1 < len(text) and is_word_char(text[k + 1])
        if is_word_char(c) or inner_apostrophe:
            cur.append(c)
        elif cur:
            out.append(''.join(cur))
            cur = []
    if cur:
        out.append(''.join(cur))
    return out


def install_tables(model, out, entries):
    """Copies each direction's table from `out` into the model folder and sets its entry in the manifest's
    word_transfer (other directions' entries stay). entries: {direction: {"table": file name, ...}}."""
    manifest_path = os.path.join(model, 'manifest.json')
    with open(manifest_path, encoding='utf-8') as f:
        manifest = json.load(f)
    transfers = manifest.setdefault('word_transfer', {})
    for direction, spec in entries.items():
        shutil.copyfile(os.path.join(out, spec['table']), os.path.join(model, spec['table']))
        transfers[direction] = spec
    with open(manifest_path, 'w', encoding='utf-8') as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write('\n')


def transfer(text, table, threshold):
    """The source with each word that has a target at p >= threshold replaced; the rest kept.
    A replacement that would repeat the word before it, where the source does not repeat, is not
    made (IBM Model 1 maps several different words to one frequent word)."""
    out, cur = [], []
    last = {'source': None, 'output': None}

    def flush():
        if cur:
            w = ''.join(cur)
            hit = table.get(w)
            o = hit[0] if hit and hit[1] >= threshold else w
            if o != w and o == last['output'] and w != last['source']:
                o = w
            out.append(o)
            last['source'], last['output'] = w, o
            cur.clear()

    for c in text:
        if is_word_char(c):
            cur.append(c)
        else:
            flush()
            out.append(c)
    flush()
    return ''.join(out)


def read_lines(path):
    with open(path, encoding='utf-8') as f:
        return [line.rstrip('\n') for line in f]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', required=True, help="prepare_mt.py's output folder")
    ap.add_argument('--out', required=True)
    ap.add_argument('--iterations', type=int, default=8)
    ap.add_argument('--keep', type=float, default=0.05, help='lowest probability written to the tables')
    ap.add_argument('--install', default=None, metavar='MODEL',
                    help="also copy the tables into this model folder and list them in its manifest's word_transfer")
    ap.add_argument('--min-probability', type=float, default=0.2, help="the manifest's min_probability with --install")
    ap.add_argument('--min-count', type=int, default=2,
                    help='source words seen fewer times in training get no entry (IBM Model 1 aligns rare words to anything)')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    pairs = {('am', 'ti'): [], ('ti', 'am'): []}
    with open(os.path.join(args.data, 'train.tsv'), encoding='utf-8') as f:
        for line in f:
            la, lb, a, b = line.rstrip('\n').split('\t')
            if (la, lb) in pairs:
                pairs[(la, lb)].append((a, b))
    report = {'iterations': args.iterations, 'keep': args.keep, 'min_count': args.min_count, 'directions': {}}
    for (la, lb), rows in pairs.items():
        started = time.time()
        # AlignedSent(words, mots): `words` is the language translated into, `mots` the source.
        model = IBMModel1([AlignedSent(words(b), words(a)) for a, b in rows], args.iterations)
        # Each source word's most probable target; ties (common among rare words) go to the first
        # target in code-point order, and probabilities are rounded first, so that the tables do
        # not depend on Python's hash seed (the summation order inside NLTK).
        best = {}
        for target, row in model.translation_table.items():
            for source, p in row.items():
                if source is None or target is None:
                    continue
                p = round(p, 9)
                known = best.get(source)
                if known is None or p > known[1] or (p == known[1] and target < known[0]):
                    best[source] = (target, p)
        counts = Counter(w for a, _ in rows for w in words(a))
        table = {s: tp for s, tp in best.items() if tp[1] >= args.keep and counts[s] >= args.min_count}
        path = os.path.join(args.out, f'lex.{la}-{lb}')
        with open(path, 'w', encoding='utf-8') as f:
            for source in sorted(table):
                target, p = table[source]
                f.write(f'{target} {source} {p:.6f}\n')
        src = read_lines(os.path.join(args.data, f'dev.{la}-{lb}.src'))
        ref = read_lines(os.path.join(args.data, f'dev.{la}-{lb}.ref'))
        scores = {str(t): round(chrf([transfer(s, table, t) for s in src], ref), 2) for t in THRESHOLDS}
        report['directions'][f'{la}-{lb}'] = {
            'training_pairs': len(rows),
            'table_entries': len(table),
            'seconds': round(time.time() - started, 1),
            'dev_sentences': len(src),
            'dev_chrf_copy_source': round(chrf(src, ref), 2),
            'dev_chrf_by_min_probability': scores,
        }
        print(la, lb, json.dumps(report['directions'][f'{la}-{lb}']), flush=True)
    with open(os.path.join(args.out, 'word-transfer-dev.json'), 'w', encoding='utf-8') as f:
        json.dump(report, f, indent=2)
    if args.install:
        install_tables(args.install, args.out,
                       {f'{la}-{lb}': {'table': f'lex.{la}-{lb}', 'min_probability': args.min_probability} for la, lb in pairs})


if __name__ == '__main__':
    main()
