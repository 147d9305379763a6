/**
 * Decoding figures on the speaker-held-out ALFFA groups (training/common/splits/, made by
 * speaker_split.py): greedy, beam without LM, and beam + LM, scored as the model cards score
 * (src/engines/asr/text/scored-character-error-rate.ts: spaces and punctuation removed, ALFFA
 * homophone merge on both sides).
 *
 * The model's logits come from onnxruntime-node with the gateway's own feature code
 * (InputPreparer from the manifest); decoders are the gateway's (CtcGreedyDecoder,
 * CtcBeamDecoder with a CharNgramLm). Audio is read from <data>/alffa-am-train/flac.
 *
 * Every figure of the ALFFA sets also comes per speaker group (`by_group`: issue 33's targets are
 * per held-out group), from the same hypotheses.
 *
 * Tuning: with --tune, LM weight alpha, per-character bonus beta and the beam width are chosen
 * by a grid search on the `val` set only; every other set is then decoded with those values
 * (an untuned figure). Without --tune, --alpha/--beta/--beam (default: the manifest's) are used.
 * --subset v1-unseen keeps only the groups small-am-v1 never trained on (091 in val, 021 in
 * test: see speaker_split.py). --subset new-sentences keeps only the utterances whose sentence no
 * utterance of the train groups reads (ALFFA speakers read overlapping sentence lists).
 *
 * --audio-dir DIR reads the ALFFA utterances from DIR/<id>.wav instead of their flac files: the
 * same utterances through another channel, e.g. the 8 kHz G.711 calls telephone_heldout.py writes
 * (read through ffmpeg as the gateway reads an 8 kHz upload); the results name the folder.
 *
 * --work-sets val=synth_om_val,test_clean=synth_om_test_clean,... decodes sets made by
 * prepare_data.py instead (training/work/<set>.tsv + audio/<set>/<id>.wav; the om and ti
 * models, whose only held-out speech is synthetic): --tune then tunes on the set named `val`.
 *
 *   npx tsx training/asr/held-out-decoding.ts --model models/small-am-v1 \
 *     [--lm models/lm/am-char-7gram.bin] [--tune] [--alpha A --beta B --beam W] \
 *     [--sets val,test] [--subset v1-unseen|new-sentences] [--audio-dir DIR]
 *     [--out training/asr/results/x.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ctcUtterances, type Utterance } from '../common/ctc-utterances.js';
import {
  CharNgramLm,
  CtcBeamDecoder,
  type CtcDecoder,
  CtcGreedyDecoder,
  loadModelFolder,
  parseKaldiText,
  scoredCharacterErrorRate,
} from '../../src/engines/training.js';

/** training/: work/ (git-ignored sets and caches) and common/splits/ (the ALFFA speaker split). */
const TRAINING = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const SPLITS = join(TRAINING, 'common', 'splits');
const V1_UNSEEN: Record<string, string> = { val: '091', test: '021' };

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const has = (name: string): boolean => argv.includes(`--${name}`);

export const groupOf = (id: string): string => id.split('_')[2]!.slice(2, 5);

interface Figure {
  readonly decoder: string;
  readonly cer: number;
  readonly errors: number;
  readonly reference_chars: number;
  readonly decode_ms_per_audio_s: number;
  /** Per ALFFA speaker group (issue 33's "all held-out groups not worse"); absent for --work-sets. */
  readonly by_group?: Record<string, { cer: number; errors: number; reference_chars: number; utterances: number }>;
}

function score(decoder: string, d: CtcDecoder, set: readonly Utterance[], language: string, perGroup = false): Figure {
  const hyps: string[] = [];
  let ms = 0;
  for (const u of set) {
    const t0 = performance.now();
    hyps.push(d.decode(u.scores).text);
    ms += performance.now() - t0;
  }
  const s = scoredCharacterErrorRate(
    set.map((u) => u.reference),
    hyps,
    language,
  );
  const seconds = set.reduce((n, u) => n + u.seconds, 0);
  const byGroup: NonNullable<Figure['by_group']> = {};
  if (perGroup)
    for (const group of [...new Set(set.map((u) => groupOf(u.id)))].sort()) {
      const rows = set.flatMap((u, i) => (groupOf(u.id) === group ? [i] : []));
      const g = scoredCharacterErrorRate(
        rows.map((i) => set[i]!.reference),
        rows.map((i) => hyps[i]!),
        language,
      );
      byGroup[group] = { cer: Number(g.cer.toFixed(4)), errors: g.errors, reference_chars: g.referenceChars, utterances: rows.length };
    }
  return {
    decoder,
    cer: Number(s.cer.toFixed(4)),
    errors: s.errors,
    reference_chars: s.referenceChars,
    decode_ms_per_audio_s: Number((ms / seconds).toFixed(3)),
    ...(perGroup ? { by_group: byGroup } : {}),
  };
}

async function main(): Promise<void> {
  const modelDir = opt('model');
  if (!modelDir)
    throw new Error(
      'usage: held-out-decoding.ts --model DIR [--lm FILE] [--tune] [--alpha A --beta B --beam W] [--sets val,test] [--subset v1-unseen|new-sentences] [--audio-dir DIR] [--out FILE]',
    );
  const dataDir = opt('data') ?? process.env.DATA_DIR ?? '/work/shared/data';
  const model = await loadModelFolder(modelDir);
  if (model.kind !== 'ctc') throw new Error(`${modelDir} is not a CTC model`);
  const manifestLm = model.manifest.lm;
  const lmPath = opt('lm') ?? model.lmPath ?? null;
  const t0 = performance.now();
  const lm = lmPath ? CharNgramLm.loadSync(lmPath) : null;
  const lmLoadMs = performance.now() - t0;
  const texts = parseKaldiText(readFileSync(join(dataDir, 'alffa-am-train/text'), 'utf8'));
  const subset = opt('subset');
  const setNames = (opt('sets') ?? 'val,test').split(',');
  const trainSentences = new Set(
    readFileSync(join(SPLITS, 'alffa-spk-train.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((id) => texts.get(id)),
  );
  const sets = new Map<string, Utterance[]>();
  const workSets = opt('work-sets');
  const audioDir = opt('audio-dir');
  if (audioDir && workSets) throw new Error('--audio-dir applies to the ALFFA speaker groups, not --work-sets');
  const workNames = new Map<string, string>();
  if (workSets) {
    const work = join(TRAINING, 'work');
    for (const spec of workSets.split(',')) {
      const [name, set] = spec.split('=') as [string, string];
      const rows = readFileSync(join(work, `${set}.tsv`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t') as [string, string]);
      workNames.set(name, set);
      sets.set(
        name,
        await ctcUtterances(
          model,
          new Map(rows),
          rows.map(([id]) => id),
          (id) => join(work, 'audio', set, `${id}.wav`),
        ),
      );
    }
  }
  for (const name of workSets ? [] : setNames) {
    let ids = readFileSync(join(SPLITS, `alffa-spk-${name}.txt`), 'utf8')
      .split('\n')
      .filter(Boolean);
    if (subset === 'v1-unseen') ids = ids.filter((id) => groupOf(id) === V1_UNSEEN[name]);
    else if (subset === 'new-sentences') ids = ids.filter((id) => !trainSentences.has(texts.get(id)));
    else if (subset !== undefined) throw new Error(`--subset ${subset}: v1-unseen or new-sentences`);
    const audioPath = (id: string): string => (audioDir ? join(audioDir, `${id}.wav`) : join(dataDir, 'alffa-am-train/flac', `${id}.flac`));
    sets.set(name, await ctcUtterances(model, texts, ids, audioPath));
  }
  const language = model.language;
  const vocabulary = model.vocabulary;
  let alpha = Number(opt('alpha') ?? manifestLm?.alpha ?? 0.5);
  let beta = Number(opt('beta') ?? manifestLm?.beta ?? 1);
  let beam = Number(opt('beam') ?? model.manifest.decoding.beamWidth);
  const grid: Array<{ alpha: number; beta: number; beam: number; cer: number }> = [];
  if (has('tune') && lm) {
    const val = sets.get('val');
    if (!val) throw new Error('--tune needs the val set');
    const alphas = (opt('alphas') ?? '0.2,0.3,0.4,0.5,0.6,0.8,1.0').split(',').map(Number);
    const betas = (opt('betas') ?? '0,0.5,1,1.5,2,3,4').split(',').map(Number);
    const beams = (opt('beams') ?? '8,16').split(',').map(Number);
    for (const w of beams)
      for (const a of alphas)
        for (const b of betas)
          grid.push({
            alpha: a,
            beta: b,
            beam: w,
            cer: score('tune', new CtcBeamDecoder(vocabulary, { beamWidth: w, lm: { model: lm, alpha: a, beta: b } }), val, language).cer,
          });
    // Smallest beam within 0.1 point of the best keeps decoding cheap.
    const best = Math.min(...grid.map((g) => g.cer));
    const pick = grid.filter((g) => g.cer <= best + 0.001).sort((x, y) => x.beam - y.beam || x.cer - y.cer)[0]!;
    ({ alpha, beta, beam } = pick);
  }
  const results: Record<string, unknown> = {
    model: model.name,
    lm: lm ? { file: lmPath, order: lm.order, bytes: lm.byteLength, load_ms: Number(lmLoadMs.toFixed(1)) } : null,
    weights: {
      alpha,
      beta,
      beam,
      tuned_on: !has('tune')
        ? 'given'
        : workSets
          ? `val (${workNames.get('val')}: synthetic, text never trained on)`
          : 'val (speaker groups ' + JSON.parse(readFileSync(join(SPLITS, 'alffa-spk-split.json'), 'utf8')).val_groups.join(', ') + ')',
    },
    subset: subset ?? 'all',
    audio: audioDir ?? 'the ALFFA flac files',
    ...(workSets ? { work_sets: Object.fromEntries(workNames) } : {}),
    scoring: `scored-character-error-rate.ts (spaces and punctuation removed${language === 'am' ? ', ALFFA homophone merge' : ''})`,
    sets: {} as Record<string, unknown>,
    command: `npx tsx training/asr/held-out-decoding.ts ${argv.join(' ')}`,
    date: new Date().toISOString(),
  };
  const perGroup = !workSets;
  for (const [name, set] of sets) {
    const figures = [
      score('greedy', new CtcGreedyDecoder(vocabulary), set, language, perGroup),
      score(`beam ${beam}`, new CtcBeamDecoder(vocabulary, { beamWidth: beam }), set, language, perGroup),
    ];
    if (lm)
      figures.push(
        score(
          `beam ${beam} + LM (alpha ${alpha}, beta ${beta})`,
          new CtcBeamDecoder(vocabulary, { beamWidth: beam, lm: { model: lm, alpha, beta } }),
          set,
          language,
          perGroup,
        ),
      );
    const groups = workSets ? [workNames.get(name)!] : [...new Set(set.map((u) => groupOf(u.id)))];
    (results.sets as Record<string, unknown>)[name] = {
      groups,
      utterances: set.length,
      audio_seconds: Number(set.reduce((n, u) => n + u.seconds, 0).toFixed(1)),
      figures,
    };
    for (const f of figures)
      console.log(
        `${name} (${groups.join(',')}; ${set.length} utt) ${f.decoder.padEnd(36)} CER ${(100 * f.cer).toFixed(2)}%  ${f.decode_ms_per_audio_s} ms/s` +
          (f.by_group
            ? `  by group: ${Object.entries(f.by_group)
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([g, x]) => `${g} ${(100 * x.cer).toFixed(1)}`)
                .join(', ')}`
            : ''),
      );
  }
  if (grid.length) results.grid = grid;
  const out = opt('out');
  if (out) writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
