"""Writes MODEL_CARD.md and the regression bounds of manifest.json from the evaluation JSON files.

Usage: write_mt_card.py --model models/translate-am-en-ti-v1 --test-greedy t.json --heldout-greedy h.json
       --heldout-beam hb.json --dev-greedy d.json --train-log /work/mtrun/train.log
Regression bound per direction: the held-out greedy chrF measured here minus MARGIN (float16 weights and
onnxruntime arithmetic move scores slightly), never below 1.
"""
import argparse
import json
import os

MARGIN = 3.0
DIRECTIONS = ['am-en', 'en-am', 'ti-en', 'en-ti', 'am-ti', 'ti-am']


def table(runs):
    head = '| direction | ' + ' | '.join(f'{name} chrF | {name} BLEU' for name, _ in runs) + ' |'
    sep = '|---|' + '---|---|' * len(runs)
    rows = [head, sep]
    for d in DIRECTIONS:
        cells = []
        for _, run in runs:
            r = run['results'][d]
            cells += [f"{r['chrF']:.1f}", f"{r['BLEU']:.1f}"]
        rows.append(f'| {d} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(rows)


def main():
    ap = argparse.ArgumentParser()
    for name in ('model', 'test-greedy', 'heldout-greedy', 'heldout-beam', 'dev-greedy', 'train-log'):
        ap.add_argument(f'--{name}', required=True)
    args = ap.parse_args()
    load = lambda p: json.load(open(p))
    test, held, held_beam, dev = load(args.test_greedy), load(args.heldout_greedy), load(args.heldout_beam), load(args.dev_greedy)
    manifest_path = os.path.join(args.model, 'manifest.json')
    manifest = load(manifest_path)
    manifest['regression_chrf'] = {d: round(max(1.0, held['results'][d]['chrF'] - MARGIN), 1) for d in DIRECTIONS}
    with open(manifest_path, 'w') as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write('\n')
    log = [json.loads(line) for line in open(args.train_log) if line.startswith('{')]
    last = [r for r in log if 'loss' in r][-1]
    epochs = [r for r in log if 'epoch_end' in r]
    training = manifest['training']
    sizes = {n: os.path.getsize(os.path.join(args.model, n)) for n in os.listdir(args.model) if os.path.isfile(os.path.join(args.model, n))}
    total_mb = sum(sizes.values()) / 1e6
    examples = '\n'.join(f"- {d}: `{held['results'][d]['example']['src'][:120]}` → `{held['results'][d]['example']['hyp'][:120]}` "
                         f"(reference `{held['results'][d]['example']['ref'][:120]}`)" for d in DIRECTIONS)
    card = f"""# translate-am-en-ti-v1: multilingual am / en / ti translation (small transformer, trained from scratch)

One encoder-decoder transformer translates between Amharic, English and Tigrinya in all six directions; the
target language is chosen by a tag (`<2am>`, `<2en>`, `<2ti>`) placed as the first source token, so am↔ti needs
no pivot through English. Served by the gateway's ONNX translation engine (`docs/translation-models.md`).

**Read this first: this model does not translate usefully.** It was trained from scratch for
{training['args'].get('minutes'):.0f} minutes on a shared 2-core CPU (no GPU was lent to this work) on about 29 k sentence pairs,
and stopped after {len(epochs)} epochs, long before a model of this kind learns to follow its source. Its English output
is fluent-looking text that is mostly unrelated to the source (chrF about 13); its Amharic and Tigrinya output is
short fragments or loops of common words (chrF 3-6). It exists so that the engine, the text endpoint and file
translation jobs run end to end on a model built from our own data; operators should serve stronger weights (the
engine loads public Marian / NLLB-style exports: `docs/translation-models.md`).

## Architecture
- Pre-norm transformer, {training['args']['enc_layers']} encoder and {training['args']['dec_layers']} decoder layers, model width {training['args']['dim']},
  {training['args']['heads']} heads, feed-forward {training['args']['hidden']}, {training['parameters'] / 1e6:.2f} M parameters, embedding shared by encoder,
  decoder and output projection, sinusoidal positions.
- Tokenizer: one SentencePiece unigram model (8,000 pieces, character coverage 1.0) over the training text of all
  three languages, with the three target tags as user-defined symbols (`spm.model`).
- ONNX (opset 14): `encoder_model.onnx`, `decoder_model.onnx` (first step; also returns the cross-attention keys
  and values), `decoder_with_past_model.onnx` (one token per step with the key/value cache), all reading one
  float16 weight file `weights.bin` (each tensor stored once). Folder size {total_mb:.1f} MB.

## Training data and licences
| source | pairs used | licence |
|---|---|---|
| MarsPanther Amharic-English corpus (Tsegaye 2018): news, legal (Negarit Gazette), history | am-en, about 17 k after held-out blocks | MIT; its README adds "free for any academic or research purpose, contact the author for anything commercial" |
| Travis Foundation Tigrinya Parallel Corpus v4 (volunteer translations of English Wikipedia sentences) | ti-en, about 8 k | CC BY-SA 4.0 (share-alike: these weights and the committed held-out sentences are offered under the same terms) |
| HornMT (Lesan AI), 4-way aligned news snippets | am-en, ti-en, am-ti: 1,580 snippets each | CC BY 4.0 |

Every pair is used in both directions. Held-out splits are by document: HornMT lines (one snippet each) are
shuffled with a fixed seed (150 dev, 300 test); the crawled corpora keep their articles' sentence order without
document markers, so whole blocks of 40 consecutive lines (3 % of blocks each) go to dev and to test. No
back-translation was done: with the CPU time available, a first model this weak would generate training
pairs that are mostly noise (see "What it cannot do"). Pipeline (seeded, reproducible):
`models/training/translation/ship_mt.sh` (prepare_mt.py → train_mt.py → export_mt.py → evaluate_mt.py →
write_mt_card.py).

Training: Adam (β 0.9/0.98), peak learning rate {training['args']['lr']}, {training['args']['warmup']} warm-up steps then inverse square root,
label smoothing {training['args']['smoothing']}, dropout {training['args']['dropout']}, length-bucketed batches of about {training['args']['batch_tokens']} tokens;
stopped by the time budget at step {training['checkpoint_step']} ({len(epochs)} full epochs; last logged training loss {last['loss']}).

## Measured quality (held-out, never trained on)
chrF: character n-grams up to 6, β = 2, whitespace removed, precision and recall averaged over the orders, then one F (sacrebleu 2.x definition).
BLEU: corpus BLEU-4, brevity penalty, punctuation split from words. Scored on the PyTorch checkpoint with the
same decoding the gateway uses (greedy: text endpoint; beam 4, length penalty 1.0: file jobs).

Test split (greedy; am-en {test['results']['am-en']['sentences']}, ti-en {test['results']['ti-en']['sentences']}, am-ti {test['results']['am-ti']['sentences']} sentences):

{table([('test greedy', test)])}

The 50 committed held-out sentences per direction (`heldout/`, drawn from the test split), greedy and beam:

{table([('greedy', held), ('beam 4', held_beam)])}

Dev split (greedy, first 100 sentences per direction), for reference: """ + ', '.join(f"{d} {dev['results'][d]['chrF']:.1f}" for d in DIRECTIONS) + f""" chrF.

Through the served ONNX engine (float16 weights, `npm run translation:heldout`) the held-out figures agree with
these within 1.5 chrF points (measured 2026-11-25: greedy am-en 12.5, ti-en 14.6, en-am 6.4, ti-am 5.1, am-ti 3.2,
en-ti 3.1; beam 14.6, 14.9, 5.7, 4.0, 3.5, 3.7).

The gateway's regression test (`test/translation/translation-regression.test.ts`) translates `heldout/` through
the served ONNX engine and requires chrF at least `regression_chrf` in manifest.json (the greedy figures above
minus {MARGIN} points).

Examples (held-out, greedy):
{examples}

## What it cannot do
- Translate. Scores above are far below usable systems (published am-en systems trained on 100 k+ pairs reach
  chrF in the 40s-50s). What would change that here: GPU time (the same pipeline runs on CUDA unchanged), many
  more epochs, and back-translation of `text/enh/` once a first model is good enough to make useful pairs.
- am↔ti rests on 1,580 HornMT snippets only; expect it to be the weakest pair.
- Domains: news, legal text and Wikipedia sentences. Conversation, call-centre speech and social-media text
  (AfriSenti) are out of domain; Oromo is not covered.
- Names, numbers and dates are often wrong; long sentences (over about 60 pieces) degrade quickly.
"""
    with open(os.path.join(args.model, 'MODEL_CARD.md'), 'w') as f:
        f.write(card)
    print('card written; regression bounds', manifest['regression_chrf'])


if __name__ == '__main__':
    main()
