"""Trains the multilingual translation model (target tag as the first source token) on CPU or GPU.

Seeded; batches are built from length buckets (few pad tokens); Adam with warm-up and inverse-square-root
decay; label smoothing. Training stops after --minutes of wall time or --epochs, whichever comes first, and
writes a checkpoint (model config + weights + step) every --save-minutes and at the end; --snapshot-minutes also
keeps the weights alone every N minutes (snap-<step>.pt) for checkpoint averaging (average_mt.py).
Continued training: --init CHECKPOINT loads the weights only (fresh Adam), ramps the learning rate up over
--init-warmup steps and then follows the inverse-square-root decay from the checkpoint's step onwards.
Synthetic pairs: --extra FILE (same TSV columns as train.tsv, one direction per line, e.g. from
backtranslate_mt.py) joins the parallel rows; --extra-ratio scales them (2 = each synthetic pair twice per epoch,
0.5 = a seeded half of them, redrawn every epoch).
Usage: train_mt.py --data /work/mtdata --out /work/mtrun [--minutes 60] [--init ckpt.pt --extra bt.tsv]
"""
import argparse
import json
import math
import os
import random
import time

import sentencepiece as spm
import torch
import torch.nn.functional as F

from mt_model import Seq2Seq

TAGS = {'am': '<2am>', 'en': '<2en>', 'ti': '<2ti>'}


def encode_corpus(sp, path, max_tokens):
    """Rows of train.tsv-style files (src_lang, tgt_lang, src, tgt) as (source ids with target tag, target ids)."""
    tag_ids = {l: sp.piece_to_id(t) for l, t in TAGS.items()}
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            la, lb, a, b = line.rstrip('\n').split('\t')
            src = [tag_ids[lb]] + sp.encode(a)[: max_tokens - 2] + [sp.eos_id()]
            tgt = [sp.bos_id()] + sp.encode(b)[: max_tokens - 2] + [sp.eos_id()]
            rows.append((src, tgt))
    return rows


def batches(rows, max_batch_tokens, rng):
    """Length-bucketed batches whose padded size stays under max_batch_tokens; shuffled order."""
    order = sorted(range(len(rows)), key=lambda i: (len(rows[i][0]) + len(rows[i][1]), rng.random()))
    out, cur, longest = [], [], 0
    for i in order:
        n = max(len(rows[i][0]), len(rows[i][1]))
        if cur and max(longest, n) * (len(cur) + 1) > max_batch_tokens:
            out.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, n)
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


def collate(rows, idx, pad):
    src_len = max(len(rows[i][0]) for i in idx)
    tgt_len = max(len(rows[i][1]) for i in idx)
    src = torch.full((len(idx), src_len), pad, dtype=torch.long)
    tgt = torch.full((len(idx), tgt_len), pad, dtype=torch.long)
    for j, i in enumerate(idx):
        s, t = rows[i]
        src[j, : len(s)] = torch.tensor(s)
        tgt[j, : len(t)] = torch.tensor(t)
    return src, (src != pad).long(), tgt


def loss_of(model, src, mask, tgt, pad, smoothing):
    logits = model(src, mask, tgt[:, :-1])
    gold = tgt[:, 1:]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), gold.reshape(-1), ignore_index=pad, label_smoothing=smoothing)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--minutes', type=float, default=60)
    ap.add_argument('--epochs', type=int, default=100)
    ap.add_argument('--save-minutes', type=float, default=5)
    ap.add_argument('--dim', type=int, default=192)
    ap.add_argument('--heads', type=int, default=4)
    ap.add_argument('--hidden', type=int, default=768)
    ap.add_argument('--enc-layers', type=int, default=3)
    ap.add_argument('--dec-layers', type=int, default=2)
    ap.add_argument('--dropout', type=float, default=0.1)
    ap.add_argument('--lr', type=float, default=1e-3)
    ap.add_argument('--warmup', type=int, default=400)
    ap.add_argument('--batch-tokens', type=int, default=3000)
    ap.add_argument('--max-tokens', type=int, default=128)
    ap.add_argument('--smoothing', type=float, default=0.1)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--seed', type=int, default=20261124)
    ap.add_argument('--resume', default=None)
    ap.add_argument('--init', default=None, help='start from these weights (fresh optimizer), e.g. rebuild_checkpoint_mt.py output')
    ap.add_argument('--init-warmup', type=int, default=100)
    ap.add_argument('--extra', default=None, help='synthetic pairs (TSV like train.tsv, one direction per line)')
    ap.add_argument('--extra-ratio', type=float, default=1.0)
    ap.add_argument('--snapshot-minutes', type=float, default=0,
                    help='also keep the weights every N minutes as snap-<step>.pt (for average_mt.py); 0: none')
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    device = 'cuda' if torch.cuda.is_available() else 'cpu'

    sp = spm.SentencePieceProcessor(model_file=os.path.join(args.data, 'spm.model'))
    rows = encode_corpus(sp, os.path.join(args.data, 'train.tsv'), args.max_tokens)
    extra = encode_corpus(sp, args.extra, args.max_tokens) if args.extra else []
    pad = sp.pad_id()
    model = Seq2Seq(sp.get_piece_size(), dim=args.dim, heads=args.heads, hidden=args.hidden, enc_layers=args.enc_layers,
                    dec_layers=args.dec_layers, dropout=args.dropout, pad_id=pad).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    step, base_step, history = 0, 0, []
    if args.init:
        state = torch.load(args.init, map_location=device)
        model.load_state_dict(state['model'])
        base_step = state['step']
        history = state.get('history', [{'stage': 'init', 'steps': base_step}])
    if args.resume:
        state = torch.load(args.resume, map_location=device)
        model.load_state_dict(state['model'])
        opt.load_state_dict(state['optimizer'])
        step = state['step']
        base_step, history = state.get('base_step', 0), state.get('history', [])

    def schedule(s):
        if args.init:  # short ramp, then the decay the initial run would have had at this step
            return min(1.0, (s - base_step + 1) / args.init_warmup) * math.sqrt(args.warmup / (s + 1))
        return min((s + 1) / args.warmup, math.sqrt(args.warmup / (s + 1)))

    step = max(step, base_step)

    def epoch_rows():
        if not extra:
            return rows
        whole, frac = int(args.extra_ratio), args.extra_ratio - int(args.extra_ratio)
        picked = extra * whole + (rng.sample(extra, round(frac * len(extra))) if frac else [])
        return rows + picked
    params = sum(p.numel() for p in model.parameters())
    print(json.dumps({'params': params, 'examples': len(rows), 'extra_examples': len(extra), 'init_step': base_step, 'device': device,
                      **vars(args)}), flush=True)

    def save(tag, with_optimizer=True):
        """A checkpoint (resumable: optimizer state too) or, without it, a snapshot for average_mt.py."""
        stage = {'stage': 'continued' if args.init else 'from-scratch', 'steps': step - base_step, 'minutes': round((time.time() - start) / 60, 1),
                 'data': 'parallel' + (f' + {len(extra)} synthetic x{args.extra_ratio}' if extra else ''), 'init': args.init}
        state = {'config': model.config, 'model': model.state_dict(), 'step': step, 'args': vars(args),
                 'base_step': base_step, 'history': history + [stage]}
        if with_optimizer:
            state['optimizer'] = opt.state_dict()
        tmp = os.path.join(args.out, f'{tag}.pt.tmp')
        torch.save(state, tmp)
        os.replace(tmp, os.path.join(args.out, f'{tag}.pt'))

    start = last_save = last_snapshot = time.time()
    done = False
    for epoch in range(args.epochs):
        model.train()
        total, tokens = 0.0, 0
        data = epoch_rows()
        for idx in batches(data, args.batch_tokens, rng):
            src, mask, tgt = (t.to(device) for t in collate(data, idx, pad))
            for g in opt.param_groups:
                g['lr'] = args.lr * schedule(step)
            loss = loss_of(model, src, mask, tgt, pad, args.smoothing)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            n = int((tgt[:, 1:] != pad).sum())
            total, tokens = total + float(loss) * n, tokens + n
            if step % 50 == 0:
                print(json.dumps({'epoch': epoch, 'step': step, 'loss': round(total / tokens, 4), 'lr': round(args.lr * schedule(step), 6),
                                  'minutes': round((time.time() - start) / 60, 1)}), flush=True)
            if time.time() - last_save > args.save_minutes * 60:
                save('last')
                last_save = time.time()
            if args.snapshot_minutes and time.time() - last_snapshot > args.snapshot_minutes * 60:
                save(f'snap-{step}', with_optimizer=False)
                last_snapshot = time.time()
            if time.time() - start > args.minutes * 60:
                done = True
                break
        print(json.dumps({'epoch_end': epoch, 'step': step, 'train_loss': round(total / max(tokens, 1), 4)}), flush=True)
        save('last')
        if done:
            break
    save('final')


if __name__ == '__main__':
    main()
