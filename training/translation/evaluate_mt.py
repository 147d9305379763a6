"""Scores a translation checkpoint on the held-out document splits: chrF (n=6, beta=2) and BLEU per direction.

chrF follows sacrebleu 2.x: whitespace removed, per-order character n-gram statistics summed over the corpus,
precision and recall averaged over the orders present, then one F-beta. BLEU: corpus BLEU-4 with brevity penalty on
whitespace tokens after splitting punctuation (13a-like). The gateway's TypeScript scorers
(src/engines/translation) implement the same definitions.
Usage: evaluate_mt.py --checkpoint final.pt --data /work/mtdata --split test [--beam 4] [--limit N] [--heldout-out DIR]
"""
import argparse
import collections
import json
import math
import os
import random
import re

import sentencepiece as spm
import torch

from mt_model import Seq2Seq

TAGS = {'am': '<2am>', 'en': '<2en>', 'ti': '<2ti>'}


def char_ngrams(text, n):
    s = ''.join(text.split())
    return collections.Counter(s[i:i + n] for i in range(len(s) - n + 1))


def chrf(hyps, refs, order=6, beta=2.0):
    stats = [[0, 0, 0] for _ in range(order)]
    for h, r in zip(hyps, refs):
        for n in range(1, order + 1):
            hc, rc = char_ngrams(h, n), char_ngrams(r, n)
            stats[n - 1][0] += sum(hc.values())
            stats[n - 1][1] += sum(rc.values())
            stats[n - 1][2] += sum((hc & rc).values())
    eps, factor, avg_prec, avg_rec, effective = 1e-16, beta ** 2, 0.0, 0.0, 0
    for n_hyp, n_ref, n_match in stats:
        avg_prec += n_match / n_hyp if n_hyp > 0 else eps
        avg_rec += n_match / n_ref if n_ref > 0 else eps
        effective += 1 if n_hyp > 0 and n_ref > 0 else 0
    if effective == 0:
        return 0.0
    avg_prec, avg_rec = avg_prec / effective, avg_rec / effective
    denom = factor * avg_prec + avg_rec
    return 100 * (1 + factor) * avg_prec * avg_rec / denom if denom > 0 else 0.0


def bleu_tokens(text):
    return re.sub(r'([^\w\s])', r' \1 ', text).split()


def bleu(hyps, refs):
    matches, totals, hyp_len, ref_len = [0] * 4, [0] * 4, 0, 0
    for h, r in zip(hyps, refs):
        ht, rt = bleu_tokens(h), bleu_tokens(r)
        hyp_len, ref_len = hyp_len + len(ht), ref_len + len(rt)
        for n in range(1, 5):
            hc = collections.Counter(tuple(ht[i:i + n]) for i in range(len(ht) - n + 1))
            rc = collections.Counter(tuple(rt[i:i + n]) for i in range(len(rt) - n + 1))
            matches[n - 1] += sum((hc & rc).values())
            totals[n - 1] += max(len(ht) - n + 1, 0)
    if min(matches) == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / 4
    brevity = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / max(hyp_len, 1))
    return 100 * brevity * math.exp(log_precision)


@torch.no_grad()
def greedy(model, sp, sources, target, max_out=256, batch=32, max_source=198, length_ratio=2.5, length_extra=10, by_length=False):
    """Batched greedy decoding (the text endpoint's decoding); the output follows the input's order.

    Sources are cut to `max_source` pieces; a batch stops after min(max_out, length_ratio * its widest source +
    length_extra) steps. `by_length` batches the sources sorted by length (less padding: back-translation)."""
    tag = sp.piece_to_id(TAGS[target])
    encoded = [[tag] + sp.encode(s)[:max_source] + [sp.eos_id()] for s in sources]
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i])) if by_length else list(range(len(encoded)))
    out = [None] * len(sources)
    for start in range(0, len(order), batch):
        idx = order[start:start + batch]
        width = max(len(encoded[i]) for i in idx)
        src = torch.zeros(len(idx), width, dtype=torch.long)
        for j, i in enumerate(idx):
            src[j, :len(encoded[i])] = torch.tensor(encoded[i])
        mask = (src != 0).long()
        cross = model.cross_kv(model.encode(src, mask))
        ids = torch.full((len(idx), 1), sp.bos_id(), dtype=torch.long)
        past, done = None, torch.zeros(len(idx), dtype=torch.bool)
        tokens = [[] for _ in idx]
        for _ in range(min(max_out, int(length_ratio * width) + length_extra)):
            logits, past = model.decode(ids, mask, cross, past)
            nxt = logits[:, -1].argmax(-1)
            for j, t in enumerate(nxt.tolist()):
                if not done[j]:
                    if t == sp.eos_id():
                        done[j] = True
                    else:
                        tokens[j].append(t)
            if bool(done.all()):
                break
            ids = nxt.unsqueeze(1)
        for j, i in enumerate(idx):
            out[i] = sp.decode(tokens[j])
    return out


@torch.no_grad()
def beam(model, sp, source, target, size=4, length_penalty=1.0, max_out=256):
    tag = sp.piece_to_id(TAGS[target])
    src = torch.tensor([[tag] + sp.encode(source)[:198] + [sp.eos_id()]])
    mask = torch.ones_like(src)
    memory = model.encode(src, mask)
    cross = model.cross_kv(memory)
    beams = [([], 0.0)]
    finished = []
    past = None
    limit = min(max_out, int(2.5 * src.shape[1]) + 10)
    for step in range(limit):
        n = len(beams)
        ids = torch.tensor([[b[0][-1] if b[0] else sp.bos_id()] for b in beams])
        cross_n = [(k.expand(n, -1, -1, -1), v.expand(n, -1, -1, -1)) for k, v in cross]
        logits, presents = model.decode(ids, mask.expand(n, -1), cross_n, past)
        logp = torch.log_softmax(logits[:, -1], -1)
        cand = []
        for i, (toks, score) in enumerate(beams):
            top = torch.topk(logp[i], size)
            cand += [(score + float(v), i, int(t)) for v, t in zip(top.values, top.indices)]
        cand.sort(key=lambda c: -c[0])
        nxt, keep = [], []
        for score, i, t in cand:
            if t == sp.eos_id():
                finished.append((beams[i][0], score / ((len(beams[i][0]) + 1) ** length_penalty)))
            else:
                nxt.append((beams[i][0] + [t], score))
                keep.append(i)
            if len(nxt) == size:
                break
        if len(finished) >= size or not nxt:
            break
        beams = nxt
        idx = torch.tensor(keep)
        past = [(k[idx], v[idx]) for k, v in presents]
    if not finished:
        finished = [(b[0], b[1] / (len(b[0]) ** length_penalty)) for b in beams]
    return sp.decode(max(finished, key=lambda f: f[1])[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--checkpoint', required=True)
    ap.add_argument('--data', required=True)
    ap.add_argument('--split', default='test')
    ap.add_argument('--limit', type=int, default=0)
    ap.add_argument('--beam', type=int, default=0)
    ap.add_argument('--heldout-out', default=None, help='write 50 seeded lines per direction of the split here')
    ap.add_argument('--json', default=None)
    ap.add_argument('--threads', type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    state = torch.load(args.checkpoint, map_location='cpu')
    model = Seq2Seq(**state['config'])
    model.load_state_dict(state['model'])
    model.eval()
    sp = spm.SentencePieceProcessor(model_file=os.path.join(args.data, 'spm.model'))
    results = {}
    for src_lang in ('am', 'en', 'ti'):
        for tgt_lang in ('am', 'en', 'ti'):
            if src_lang == tgt_lang:
                continue
            base = os.path.join(args.data, f'{args.split}.{src_lang}-{tgt_lang}')
            sources = open(base + '.src', encoding='utf-8').read().splitlines()
            refs = open(base + '.ref', encoding='utf-8').read().splitlines()
            if args.heldout_out:
                pick = sorted(random.Random(f'{src_lang}-{tgt_lang}').sample(range(len(sources)), 50))
                sources, refs = [sources[i] for i in pick], [refs[i] for i in pick]
                os.makedirs(args.heldout_out, exist_ok=True)
                for ext, lines in (('src', sources), ('ref', refs)):
                    with open(os.path.join(args.heldout_out, f'{src_lang}-{tgt_lang}.{ext}'), 'w', encoding='utf-8') as f:
                        f.write('\n'.join(lines) + '\n')
            elif args.limit:
                sources, refs = sources[:args.limit], refs[:args.limit]
            hyps = [beam(model, sp, s, tgt_lang, args.beam) for s in sources] if args.beam else greedy(model, sp, sources, tgt_lang)
            results[f'{src_lang}-{tgt_lang}'] = {'sentences': len(sources), 'chrF': round(chrf(hyps, refs), 2), 'BLEU': round(bleu(hyps, refs), 2),
                                                 'example': {'src': sources[0], 'hyp': hyps[0], 'ref': refs[0]}}
            print(f'{src_lang}-{tgt_lang}', json.dumps(results[f'{src_lang}-{tgt_lang}'], ensure_ascii=False), flush=True)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'split': args.split, 'beam': args.beam, 'step': state['step'], 'results': results}, f, indent=2, ensure_ascii=False)


if __name__ == '__main__':
    main()
