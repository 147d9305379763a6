"""Builds the translation corpus: document-level train/dev/test splits and a shared SentencePiece model.

Seeded and reproducible. Sources (licences in the model card):
  ../shared/data/parallel/am-en/{news,legal,history}.{am,en}   MarsPanther corpus (MIT + research note)
  ../shared/data/parallel/ti-en/wikipedia.{ti,en}              Travis Foundation corpus (CC BY-SA 4.0)
  ../shared/data/text/hornmt/{amh,eng,tir}.txt                 HornMT (CC BY 4.0), 4-way aligned
Split rule: by document. HornMT: one line is one news snippet (a document). The crawled am-en and ti-en
files keep their articles' sentences in order without markers, so documents are approximated by
contiguous blocks of BLOCK lines; whole blocks go to dev or test, never single sentences.
Output (--out): train.tsv (src_lang, tgt_lang, src, tgt; both directions of every pair), dev/test
files per direction (<src>-<tgt>.src/.ref), spm.model/spm.vocab.
"""
import argparse
import os
import random
import unicodedata

import sentencepiece as spm

LANG_TAGS = {'am': '<2am>', 'en': '<2en>', 'ti': '<2ti>'}
BLOCK = 40


def read_lines(path):
    with open(path, encoding='utf-8') as f:
        return [' '.join(unicodedata.normalize('NFC', line).split()) for line in f]


def block_split(n, dev_blocks, test_blocks, rng, block=BLOCK):
    """Indices of whole blocks of `block` lines for dev and test; the rest is train."""
    blocks = list(range((n + block - 1) // block))
    rng.shuffle(blocks)
    pick = lambda bs: sorted(i for b in bs for i in range(b * block, min(n, (b + 1) * block)))
    return pick(blocks[:dev_blocks]), pick(blocks[dev_blocks:dev_blocks + test_blocks]), pick(blocks[dev_blocks + test_blocks:])


def usable(a, b, max_chars=400):
    return a and b and len(a) <= max_chars and len(b) <= max_chars


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', default='/work/shared/data')
    ap.add_argument('--out', required=True)
    ap.add_argument('--vocab', type=int, default=8000)
    ap.add_argument('--seed', type=int, default=20261124)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)

    train = []  # (lang_a, lang_b, a, b): both directions are emitted later
    held = {'dev': {}, 'test': {}}

    def add_held(split, la, lb, a, b):
        held[split].setdefault((la, lb), []).append((a, b))
        held[split].setdefault((lb, la), []).append((b, a))

    corpora = [('am', 'en', 'parallel/am-en/news'), ('am', 'en', 'parallel/am-en/legal'), ('am', 'en', 'parallel/am-en/history'),
               ('ti', 'en', 'parallel/ti-en/wikipedia')]
    for la, lb, stem in corpora:
        a_lines = read_lines(os.path.join(args.data, f'{stem}.{la}'))
        b_lines = read_lines(os.path.join(args.data, f'{stem}.{lb}'))
        assert len(a_lines) == len(b_lines), stem
        n = len(a_lines)
        held_blocks = max(1, round(n / BLOCK * 0.03))  # 3 % of blocks each to dev and test
        dev, test, tr = block_split(n, held_blocks, held_blocks, rng)
        for split, idx in (('dev', dev), ('test', test)):
            for i in idx:
                if usable(a_lines[i], b_lines[i]):
                    add_held(split, la, lb, a_lines[i], b_lines[i])
        train += [(la, lb, a_lines[i], b_lines[i]) for i in tr if usable(a_lines[i], b_lines[i])]

    horn = {l: read_lines(os.path.join(args.data, 'text/hornmt', f)) for l, f in (('am', 'amh.txt'), ('en', 'eng.txt'), ('ti', 'tir.txt'))}
    n = len(horn['am'])
    order = list(range(n))
    rng.shuffle(order)
    horn_split = {'dev': sorted(order[:150]), 'test': sorted(order[150:450]), 'train': sorted(order[450:])}
    pairs = [('am', 'en'), ('ti', 'en'), ('am', 'ti')]
    for split, idx in horn_split.items():
        for i in idx:
            for la, lb in pairs:
                a, b = horn[la][i], horn[lb][i]
                if not usable(a, b):
                    continue
                if split == 'train':
                    train.append((la, lb, a, b))
                else:
                    add_held(split, la, lb, a, b)

    rng.shuffle(train)
    with open(os.path.join(args.out, 'train.tsv'), 'w', encoding='utf-8') as f:
        for la, lb, a, b in train:
            f.write(f'{la}\t{lb}\t{a}\t{b}\n')
            f.write(f'{lb}\t{la}\t{b}\t{a}\n')
    for split, directions in held.items():
        for (la, lb), rows in sorted(directions.items()):
            with open(os.path.join(args.out, f'{split}.{la}-{lb}.src'), 'w', encoding='utf-8') as fs, \
                 open(os.path.join(args.out, f'{split}.{la}-{lb}.ref'), 'w', encoding='utf-8') as fr:
                for a, b in rows:
                    fs.write(a + '\n')
                    fr.write(b + '\n')
            print(split, la, lb, len(rows))
    print('train pairs', len(train), 'directional examples', 2 * len(train))

    spm_text = os.path.join(args.out, 'spm-train.txt')
    with open(spm_text, 'w', encoding='utf-8') as f:
        seen = set()
        for la, lb, a, b in train:
            for s in (a, b):
                if s not in seen:
                    seen.add(s)
                    f.write(s + '\n')
    spm.SentencePieceTrainer.train(
        input=spm_text, model_prefix=os.path.join(args.out, 'spm'), vocab_size=args.vocab, model_type='unigram',
        character_coverage=1.0, pad_id=0, unk_id=1, bos_id=2, eos_id=3,
        user_defined_symbols=','.join(LANG_TAGS.values()), num_threads=2)


if __name__ == '__main__':
    main()
