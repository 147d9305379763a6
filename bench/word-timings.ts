/**
 * Word timings (issue 31 item 2): how far the word times the gateway returns lie from a reference
 * alignment, beside the letter-count interpolation that captions used before.
 *
 * Data: ALFFA Amharic read speech of the speaker groups small-am-v2 never trained on
 * (training/common/splits: test groups 021, 231 and validation groups 041, 091, 131; the
 * validation groups picked its checkpoint and decoding weights; nothing here was tuned on them).
 * Two conditions: each utterance as its own file (the FLAC as is), and long files of
 * `--join` consecutive utterances of one split (a 16 kHz WAV), which the gateway's pause cutter
 * splits into pieces elsewhere than at the utterance boundaries.
 *
 * Reference: each utterance's REFERENCE text force-aligned (Viterbi over the CTC topology,
 * src/engines/asr/decoding/ctc-forced-alignment.ts) to a model's posteriors over the whole
 * utterance (one model run, no pause cutting): the gateway's model, and as a cross-check another
 * Amharic model (`--cross-models`, default small-am-v1: other weights, other training run), whose
 * disagreement with the first tells how well any such reference pins a boundary. Gateway: REST
 * `POST /v1/transcriptions` (mode=sync, model small-am-v2) of an in-process gateway with the shipped
 * models and their decoding (beam search + character LM); its segments' `words`. Words compared:
 * those whose text equals a reference word (ALFFA scoring form: homophones merged, punctuation
 * removed) in an edit-distance alignment of the two word sequences (src/engines/scoring/word-matches.ts);
 * each contributes its start and its end boundary. Baseline, same run, same matched words: their
 * times spread over their segment by letter count (src/jobs/caption-cues.ts spreadByLetters).
 * Model-free check: the first word's start and the last word's end against the energy speech
 * onset and offset of the file (bench/speech-onset.ts), signed.
 *
 * Caveat: a same-model reference shares the model's CTC timing habits (a word starts at its first
 * letter's spike and ends after its last); on a file the gateway decodes as one piece its words
 * are that alignment wherever the decoded word is right, so the long files are the telling case.
 *
 *   npm run bench:word-timings [-- --data ../shared/data --sets test,val --count 0 (all) --join 8]
 *
 * Prints the report and writes bench/results/word-timings.json.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway } from '../src/app/gateway.js';
import { forceAlign } from '../src/engines/asr/decoding/ctc-forced-alignment.js';
import { parseKaldiText } from '../src/engines/asr/decoding/lm/lm-corpus.js';
import { loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { alffaScoringForm } from '../src/engines/asr/text/alffa-scoring.js';
import { matchWords } from '../src/engines/scoring/word-matches.js';
import { spreadByLetters } from '../src/jobs/caption-cues.js';
import { loadConfig } from '../src/platform/config/config.js';
import type { Segment } from '../src/platform/db/job-records.js';
import { createLogger } from '../src/platform/logging/logger.js';
import { floatToPcm16, REPO_ROOT, wavOf } from '../test/helpers/fixtures.js';
import { ctcUtterances } from '../training/common/ctc-utterances.js';
import { decodeFile } from '../training/common/decoded-file.js';
import { publishReport } from './bench-results.js';
import { speechFrames } from './speech-onset.js';
import { option } from './bench-args.js';

const DATA = option('data', join(REPO_ROOT, '..', 'shared', 'data'));
const SETS = option('sets', 'test,val').split(',');
const COUNT = Number(option('count', '0'));
const JOIN = Number(option('join', '8'));
const MODEL = option('model', 'small-am-v2');
/** Models whose forced alignment of the reference text is a reference: the gateway's own first, then independent ones. */
const REFERENCE_MODELS = [
  MODEL,
  ...option('cross-models', 'small-am-v1')
    .split(',')
    .filter((m) => m.length > 0 && m !== MODEL),
];
const FOLDER = join(DATA, 'alffa-am-train');

const texts = parseKaldiText(readFileSync(join(FOLDER, 'text'), 'utf8'));
const idsOfSet = new Map<string, string[]>();
for (const set of SETS) {
  const all = readFileSync(join(REPO_ROOT, 'training', 'common', 'splits', `alffa-spk-${set}.txt`), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && texts.has(line));
  idsOfSet.set(set, COUNT > 0 ? all.slice(0, COUNT) : all);
}
const ids = [...idsOfSet.values()].flat();
const audioPath = (id: string): string => join(FOLDER, 'flac', `${id}.flac`);

interface TimedRef {
  readonly index: number;
  readonly key: string;
  readonly startMs: number;
  readonly endMs: number;
}
const key4 = (word: string): string => alffaScoringForm(word);

/** Per reference model, per utterance id: the reference words with times in the utterance (null: not alignable). */
const references = new Map<string, Map<string, TimedRef[] | null>>();
for (const name of REFERENCE_MODELS) {
  const model = await loadModelFolder(join(REPO_ROOT, 'models', name));
  if (model.kind !== 'ctc') throw new Error(`${name} is not a CTC model`);
  const frameMs = model.manifest.frameStrideSamples / 16;
  process.stdout.write(`${name}: reference alignments of ${ids.length} utterances...\n`);
  const aligned = new Map<string, TimedRef[] | null>();
  for (const utterance of await ctcUtterances(model, texts, ids, audioPath)) {
    const reference = forceAlign(utterance.reference, utterance.scores, model.vocabulary);
    aligned.set(
      utterance.id,
      reference.feasible
        ? reference.words.map((w) => ({
            index: w.index,
            key: key4(w.text),
            startMs: Math.round(w.startFrame * frameMs),
            endMs: Math.round(w.endFrame * frameMs),
          }))
        : null,
    );
  }
  references.set(name, aligned);
}
const usable = (id: string): boolean => REFERENCE_MODELS.every((name) => references.get(name)!.get(id) !== null);
const pcmOf = new Map<string, Float32Array>();
for (const id of ids) if (usable(id)) pcmOf.set(id, await decodeFile(audioPath(id)));

/** A file sent to the gateway: its utterances at their offsets. */
interface TestFile {
  readonly set: string;
  readonly parts: readonly { readonly id: string; readonly offsetMs: number }[];
  readonly pcm: Float32Array;
  body(): Promise<{ bytes: Buffer; name: string }>;
}
const singles: TestFile[] = [];
const joined: TestFile[] = [];
for (const [set, setIds] of idsOfSet) {
  const good = setIds.filter(usable);
  for (const id of good) {
    singles.push({ set, parts: [{ id, offsetMs: 0 }], pcm: pcmOf.get(id)!, body: async () => ({ bytes: await readFile(audioPath(id)), name: `${id}.flac` }) });
  }
  for (let at = 0; at < good.length; at += JOIN) {
    const group = good.slice(at, at + JOIN);
    const pcm = new Float32Array(group.reduce((n, id) => n + pcmOf.get(id)!.length, 0));
    const parts: { id: string; offsetMs: number }[] = [];
    let samples = 0;
    for (const id of group) {
      parts.push({ id, offsetMs: samples / 16 });
      pcm.set(pcmOf.get(id)!, samples);
      samples += pcmOf.get(id)!.length;
    }
    joined.push({ set, parts, pcm, body: async () => ({ bytes: wavOf(floatToPcm16(pcm)), name: `${set}-${at}.wav` }) });
  }
}

const dataDir = await mkdtemp(join(tmpdir(), 'word-timings-'));
const config = loadConfig({
  // The file speech gate as the environment sets it (its default otherwise).
  ...(process.env['FILE_SPEECH_GATE'] ? { FILE_SPEECH_GATE: process.env['FILE_SPEECH_GATE'] } : {}),
  PORT: '0',
  METRICS_PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  MODELS_DIR: process.env['MODELS_DIR'] ?? join(REPO_ROOT, 'models'),
  INFERENCE_WORKERS: '1',
  RATE_LIMIT_PER_MINUTE: '100000',
});
const gateway = await Gateway.start({ config, logger: createLogger('silent') });
const apiKey = (await gateway.keys.create({ account: 'bench', scopes: ['write'] })).key;
const url = `http://127.0.0.1:${gateway.port}`;

async function transcribe(file: TestFile): Promise<Segment[]> {
  const { bytes, name } = await file.body();
  const form = new FormData();
  form.append('language', 'am');
  form.append('model', MODEL);
  form.append('mode', 'sync');
  form.append('file', new Blob([bytes]), name);
  const response = await fetch(`${url}/v1/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  const body = (await response.json()) as { status?: string; segments?: Segment[] };
  if (body.status !== 'completed') throw new Error(`REST answered ${response.status}: ${JSON.stringify(body)}`);
  return body.segments ?? [];
}

interface Errors {
  start: number[];
  end: number[];
}
const errorsOf = (): Errors => ({ start: [], end: [] });
const add = (errors: Errors, times: { startMs: number; endMs: number }, reference: { startMs: number; endMs: number }): void => {
  errors.start.push(Math.abs(times.startMs - reference.startMs));
  errors.end.push(Math.abs(times.endMs - reference.endMs));
};

function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const stat = (values: readonly number[]) => ({
  median_ms: quantile(values, 0.5),
  p90_ms: quantile(values, 0.9),
  mean_ms: values.length === 0 ? null : Math.round(values.reduce((s, v) => s + v, 0) / values.length),
  within_100ms: values.length === 0 ? null : Math.round((values.filter((v) => v <= 100).length / values.length) * 1000) / 1000,
});
const summary = (errors: Errors) => ({
  boundaries: errors.start.length * 2,
  all_boundaries: stat([...errors.start, ...errors.end]),
  starts: stat(errors.start),
  ends: stat(errors.end),
});
const signed = (values: readonly number[]) => ({
  median_ms: quantile(values, 0.5),
  median_abs_ms: quantile(values.map(Math.abs), 0.5),
  p90_abs_ms: quantile(values.map(Math.abs), 0.9),
});
const share = (a: number, b: number): number => Math.round((a / Math.max(1, b)) * 1000) / 1000;

/** Sends every file, compares its words with the references; the condition's report. */
async function measure(files: readonly TestFile[], label: string): Promise<Record<string, unknown>> {
  const byReference = new Map(
    REFERENCE_MODELS.map((name) => [
      name,
      { gateway: errorsOf(), baseline: errorsOf(), perSet: new Map<string, { gateway: Errors; baseline: Errors }>(), referenceWords: 0, matched: 0 },
    ]),
  );
  const edges = { gateway: errorsOf(), baseline: errorsOf(), reference: errorsOf() };
  let gatewayWords = 0;
  let segmentsTotal = 0;
  let segmentsWithWords = 0;
  let wordsOnSegments = 0;
  let textMismatches = 0;
  let orderViolations = 0;
  let outsideSegment = 0;
  let audioMs = 0;
  const started = Date.now();
  for (const [n, file] of files.entries()) {
    audioMs += file.pcm.length / 16;
    const segments = await transcribe(file);
    const hyp: { key: string; startMs: number; endMs: number; baseline: { startMs: number; endMs: number } }[] = [];
    for (const segment of segments) {
      segmentsTotal++;
      const words = segment.words ?? [];
      if (words.length > 0) segmentsWithWords++;
      wordsOnSegments += words.length;
      if (words.map((w) => w.word).join(' ') !== segment.text) textMismatches++;
      const spread = spreadByLetters(
        words.map((w) => w.word),
        segment.start_ms,
        segment.end_ms,
      );
      words.forEach((w, i) => {
        if (w.start_ms < segment.start_ms || w.end_ms > segment.end_ms) outsideSegment++;
        if (w.end_ms < w.start_ms || (i > 0 && w.start_ms < words[i - 1]!.end_ms)) orderViolations++;
        hyp.push({ key: key4(w.word), startMs: w.start_ms, endMs: w.end_ms, baseline: { startMs: spread[i]!.startMs, endMs: spread[i]!.endMs } });
      });
    }
    gatewayWords += hyp.length;
    const referenceOf = (name: string): TimedRef[] =>
      file.parts.flatMap((part) =>
        references
          .get(name)!
          .get(part.id)!
          .map((w) => ({ ...w, startMs: w.startMs + part.offsetMs, endMs: w.endMs + part.offsetMs })),
      );
    for (const name of REFERENCE_MODELS) {
      const ref = referenceOf(name);
      const totals = byReference.get(name)!;
      if (!totals.perSet.has(file.set)) totals.perSet.set(file.set, { gateway: errorsOf(), baseline: errorsOf() });
      const bucket = totals.perSet.get(file.set)!;
      const pairs = matchWords(
        ref.map((w) => w.key),
        hyp.map((w) => w.key),
      ).filter((p) => ref[p.reference]!.key.length > 0);
      totals.referenceWords += ref.length;
      totals.matched += pairs.length;
      for (const p of pairs) {
        const r = ref[p.reference]!;
        const h = hyp[p.hypothesis]!;
        add(totals.gateway, h, r);
        add(bucket.gateway, h, r);
        add(totals.baseline, h.baseline, r);
        add(bucket.baseline, h.baseline, r);
      }
    }
    const frames = speechFrames(file.pcm);
    const ownRef = referenceOf(MODEL);
    const spoken = segments.filter((segment) => (segment.words ?? []).length > 0);
    if (frames.includes(true) && spoken.length > 0 && ownRef.length > 0) {
      const onsetMs = frames.indexOf(true) * 10;
      const offsetMs = (frames.lastIndexOf(true) + 1) * 10;
      const first = spoken[0]!.words![0]!;
      const lastWords = spoken[spoken.length - 1]!.words!;
      edges.gateway.start.push(first.start_ms - onsetMs);
      edges.gateway.end.push(lastWords[lastWords.length - 1]!.end_ms - offsetMs);
      edges.baseline.start.push(spoken[0]!.start_ms - onsetMs);
      edges.baseline.end.push(spoken[spoken.length - 1]!.end_ms - offsetMs);
      edges.reference.start.push(ownRef[0]!.startMs - onsetMs);
      edges.reference.end.push(ownRef[ownRef.length - 1]!.endMs - offsetMs);
    }
    process.stdout.write(`\r${label}: ${n + 1}/${files.length} files`);
  }
  process.stdout.write('\n');
  return {
    files: files.length,
    audio_seconds: Math.round(audioMs / 100) / 10,
    segments: {
      total: segmentsTotal,
      with_words_percent: Math.round((segmentsWithWords / Math.max(1, segmentsTotal)) * 1000) / 10,
      words_per_segment: Math.round((wordsOnSegments / Math.max(1, segmentsTotal)) * 10) / 10,
      words_not_spelling_text: textMismatches,
      words_outside_their_segment: outsideSegment,
      words_overlapping_the_previous_or_reversed: orderViolations,
    },
    gateway_words: gatewayWords,
    against: Object.fromEntries(
      [...byReference].map(([name, totals]) => [
        name,
        {
          reference_words: totals.referenceWords,
          matched_words: totals.matched,
          matched_share_of_reference: share(totals.matched, totals.referenceWords),
          gateway: summary(totals.gateway),
          baseline_letter_spread: summary(totals.baseline),
          per_set: Object.fromEntries(
            [...totals.perSet].map(([set, e]) => [set, { gateway: summary(e.gateway), baseline_letter_spread: summary(e.baseline) }]),
          ),
        },
      ]),
    ),
    file_edges: {
      what: 'signed ms: the first word start minus the energy speech onset of the file, the last word end minus its speech offset (model-free); baseline: the first and last segment bounds',
      ...Object.fromEntries(Object.entries(edges).map(([name, e]) => [name, { start: signed(e.start), end: signed(e.end) }])),
    },
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

/** The cross models' reference times against the gateway model's, word by word: how far references themselves disagree. */
const disagreement = Object.fromEntries(
  REFERENCE_MODELS.slice(1).map((name) => {
    const e = errorsOf();
    for (const id of pcmOf.keys()) {
      const own = new Map(
        references
          .get(MODEL)!
          .get(id)!
          .map((w) => [w.index, w]),
      );
      for (const w of references.get(name)!.get(id)!) {
        const mine = own.get(w.index);
        if (mine !== undefined) add(e, w, mine);
      }
    }
    return [`${name} vs ${MODEL}`, summary(e)];
  }),
);

let report: Record<string, unknown>;
try {
  const single = await measure(singles, 'utterances');
  const long = await measure(joined, `files of ${JOIN} utterances`);
  report = { single_utterances: single, [`files_of_${JOIN}_utterances`]: long };
} finally {
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}

publishReport('word-timings', {
  model: MODEL,
  data: `ALFFA Amharic, speaker groups ${MODEL} never trained on (training/common/splits alffa-spk-${SETS.join(', alffa-spk-')})`,
  utterances: pcmOf.size,
  infeasible_reference_alignments: ids.length - pcmOf.size,
  reference: `forced alignment (Viterbi, CTC topology) of each utterance's reference text over the whole utterance, by ${MODEL} (the gateway's model) and, as a cross-check, by ${REFERENCE_MODELS.slice(1).join(', ') || 'no other model'}`,
  gateway: `REST POST /v1/transcriptions mode=sync model=${MODEL} (pause cutting, the manifest's decoding); the segments' words`,
  baseline: "the same matched words' times spread over their segment by letter count (what captions did before)",
  ...report,
  reference_disagreement: disagreement,
  environment: { file_speech_gate: process.env['FILE_SPEECH_GATE'] ?? '(default)', inference_workers: 1 },
});
