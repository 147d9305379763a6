/**
 * Diarization on synthetic conversations of real ALFFA speakers (training/common/diarization-conversations.ts):
 * DER (no collar, overlap scored, optimal mapping) per backend, speaker-count accuracy and the
 * diarization time per audio second; `--tune` measures the development speaker groups only (with
 * the count given, and at each `--thresholds` value). Writes bench/results/diarization.json.
 *
 *   npx tsx bench/diarization.ts [--tune] [--per-count 3] [--projection FILE|identity] [--only-tune]
 *     [--params JSON] [--thresholds LIST] [--backend NAME] [--out NAME.json] [--vad silero|energy]
 *     [--vad-params JSON] [--tune-vad [--vad-thresholds LIST] [--vad-pads LIST] [--vad-silences LIST]]
 *     [--overlap FILE|none] [--tune-overlap [--overlap-thresholds LIST] [--overlap-min-frames LIST]] [--noise-snr DB]
 * `--params` overrides backend parameters (development runs); `--out` names the results file.
 * `--vad silero` (the default, what the API does) gives diarize the speech spans of the shipped
 * Silero VAD (src/engines/vad/silero-file.ts, DIARIZATION_SPEECH_SPANS, `--vad-params` overrides
 * them), which diarize adds to its energy gate's speech; `--vad energy` leaves speech to the energy gate alone. `--tune-vad` sweeps the span
 * settings on the development groups (count not given) and stops. `--overlap` is the overlapped-speech
 * detector backend_a uses (the shipped one by default, `none`: one speaker at a time);
 * `--tune-overlap` sweeps its threshold and minimum run on the development groups (count not
 * given, backend_a) and stops. Overlap precision and recall are in time: where the output has two
 * or more speakers against where the reference has. `--noise-snr` adds white noise that many dB under
 * the speech to the conversations (held-out and development; withNoise: robustness figures; no
 * real-microphone recordings of conversations exist here).
 * `--set realistic` scores SIMULATED conversations through one shared channel (short turns,
 * backchannels, overlap, room tone; training/common/realistic-conversations.ts) instead of the joined
 * utterances (`--set joined`, the default and the regression set). Every DER is POOLED over the
 * files (total error time over total reference speech) and printed beside two baselines scored in
 * the same run: one speaker over the whole file, and one speaker over the speech the diarization
 * marked; with the speaker count exact and within one (and exact on two-speaker conversations).
 * `--params-list '[{...},...]'` scores each backend-parameter override on the development set and stops.
 * `--embedding-model FILE.onnx` clusters a speaker-embedding network's window embeddings (what
 * DIARIZATION_EMBEDDING_MODEL serves; EMBEDDING_BACKENDS' parameters, `--params` on top) instead of
 * the i-vectors.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import {
  BACKENDS,
  type BackendParameters,
  diarize,
  DIARIZATION_BACKENDS,
  type DiarizationBackend,
  type DiarizationFrames,
  diarizationFrames,
  EMBEDDING_BACKENDS,
} from '../src/engines/diarization/diarize.js';
import { SpeakerEmbeddingModel } from '../src/engines/diarization/speaker-embedding-model.js';
import { type ModelWindowEmbeddings, speechWindowSpans } from '../src/engines/diarization/speaker-windows.js';
import { diarizationErrorRate } from '../src/engines/scoring/diarization-error-rate.js';
import { MFCC_COEFFICIENTS } from '../src/engines/diarization/speaker-features.js';
import { loadOverlapDetector, type OverlapDetector } from '../src/engines/diarization/overlap-detector.js';
import { identityProjection, loadSpeakerProjection } from '../src/engines/diarization/speaker-projection.js';
import { DIARIZATION_SPEECH_SPANS, sileroProbabilities, speechSpans, type SpeechSpanOptions } from '../src/engines/vad/silero-file.js';
import { SileroVad } from '../src/engines/vad/silero-vad.js';
import { conversationSet, DEV_GROUPS, loadGroupClips, TEST_GROUPS, withNoise, type Conversation } from '../training/common/diarization-conversations.js';
import { realisticSet } from '../training/common/realistic-conversations.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const perCount = Number(option('--per-count') ?? 3) || 3;
/** The shipped projection by default; `--projection identity` measures the untrained statistics. */
const projectionPath = option('--projection') ?? new URL('../models/diarization/speaker-ivector-v3.json', import.meta.url).pathname;
const projection = projectionPath === 'identity' ? identityProjection(2 * MFCC_COEFFICIENTS) : await loadSpeakerProjection(projectionPath);

/** `--embedding-model FILE`: a speaker-embedding network in the i-vectors' place (its windows embedded once per conversation, in `prepare`). */
const embeddingModelPath = option('--embedding-model');
const embeddingModel = embeddingModelPath === undefined ? null : await SpeakerEmbeddingModel.open(embeddingModelPath);
const backendParameters = embeddingModel === null ? BACKENDS : EMBEDDING_BACKENDS;
/** The results files name the network (its file name, never a server path). */
const embeddingModelField = embeddingModelPath === undefined ? {} : { embeddingModel: embeddingModelPath.split('/').pop() };

const overlapPath = option('--overlap') ?? new URL('../models/diarization/overlap-detector-v1.json', import.meta.url).pathname;
let overlapDetector: OverlapDetector | null = overlapPath === 'none' ? null : await loadOverlapDetector(overlapPath);

/**
 * `joined` (the default, the regression set): whole ALFFA utterances joined up, each speaker on
 * its own recording's channel. `realistic`: SIMULATED conversations through one shared channel
 * with short turns, backchannels and overlap, held-out ALFFA, speechocean762 and LibriSpeech
 * speakers (training/common/realistic-conversations.ts): the development side for the tuning
 * modes, the test side for the figures (2-6 speakers, twice as many two-speaker ones).
 */
const setKind = option('--set') ?? 'joined';
if (setKind !== 'joined' && setKind !== 'realistic') throw new Error('--set is joined or realistic');
const devSet = async (): Promise<Conversation[]> =>
  setKind === 'realistic' ? realisticSet('dev', [2, 3, 4, 5, 6], perCount, 7) : conversationSet(DEV_GROUPS, [2, 3, 4], perCount, 7);

const vadKind = option('--vad') ?? 'silero';
if (vadKind !== 'silero' && vadKind !== 'energy') throw new Error('--vad is silero or energy');
const spanOptions: SpeechSpanOptions = { ...DIARIZATION_SPEECH_SPANS, ...(JSON.parse(option('--vad-params') ?? '{}') as Partial<SpeechSpanOptions>) };
/** The Silero VAD as the gateway starts it (Speech.sileroVad: maxBatch 64, 128 windows a stream). */
const vad = vadKind !== 'energy' || args.includes('--tune-vad') ? await SileroVad.create({ maxBatch: 64, maxQueuedWindowsPerStream: 128 }) : null;
const probabilityCache = new Map<Float32Array, Float32Array>();
/** Silero's window probabilities of every conversation of a set (once each). */
async function prepare(set: readonly Conversation[]): Promise<void> {
  if (vad !== null) for (const c of set) if (!probabilityCache.has(c.pcm)) probabilityCache.set(c.pcm, await sileroProbabilities(vad, c.pcm));
  if (embeddingModel !== null) for (const c of set) await networkEmbeddings(c, vadKind !== 'energy' ? spanOptions : null);
}
/** A network's window embeddings of a conversation (and the frames they were cut from), per speech setting and window shape. */
const embeddingCache = new Map<Float32Array, Map<string, { frames: DiarizationFrames; embeddings: ModelWindowEmbeddings }>>();
/** The cache key: the speech setting and the window shape the embeddings depend on. */
function embeddingKey(spans: SpeechSpanOptions | null): string {
  const window = { ...EMBEDDING_BACKENDS.backend_a, ...overrides };
  return JSON.stringify([spans, window.windowFrames, window.hopFrames]);
}
async function networkEmbeddings(c: Conversation, spans: SpeechSpanOptions | null): Promise<{ frames: DiarizationFrames; embeddings: ModelWindowEmbeddings }> {
  if (embeddingModel === null) throw new Error('no --embedding-model');
  const window = { ...EMBEDDING_BACKENDS.backend_a, ...overrides };
  const key = embeddingKey(spans);
  const byKey = embeddingCache.get(c.pcm) ?? new Map();
  embeddingCache.set(c.pcm, byKey);
  const known = byKey.get(key);
  if (known !== undefined) return known;
  const speech = speechOf(c, spans);
  const frames = diarizationFrames(c.pcm, speech ? { speech } : {});
  const embeddings = await embeddingModel.embedWindows(c.pcm, frames.speech, speechWindowSpans(frames.speech, frames.features.frames, window));
  byKey.set(key, { frames, embeddings });
  return { frames, embeddings };
}
function cachedNetworkEmbeddings(c: Conversation, spans: SpeechSpanOptions | null): { frames: DiarizationFrames; embeddings: ModelWindowEmbeddings } {
  const known = embeddingCache.get(c.pcm)?.get(embeddingKey(spans));
  if (known === undefined) throw new Error('conversation not prepared for the embedding model');
  return known;
}
let vadSeconds = 0;
/** The spans diarize is given: Silero's (with `spans`' settings), or none (the energy gate alone). */
function speechOf(c: Conversation, spans: SpeechSpanOptions | null): { startMs: number; endMs: number }[] | undefined {
  if (spans === null) return undefined;
  const probabilities = probabilityCache.get(c.pcm);
  if (probabilities === undefined) throw new Error('conversation not prepared');
  return speechSpans(probabilities, spans, (c.pcm.length / 16_000) * 1000);
}

/** Pooled over the files: each part's total time over the total reference speech time. */
interface PooledDer {
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
}

interface Figures extends PooledDer {
  countAccuracy: number;
  /** Conversations whose speaker count is off by at most one. */
  countWithinOne: number;
  /** Of the two-speaker conversations (null: none), the share given exactly two. */
  twoSpeakerExact: number | null;
  /** Trivial answers scored in the same run: one speaker over the whole file; one speaker over the speech the diarization marked (its turns' union). */
  baselineWholeFile: PooledDer;
  baselineDetectedSpeech: PooledDer;
  /** Conversations by speakers found minus speakers there ("-1", "0", "+2", ...). */
  countErrors: Record<string, number>;
  secondsPerAudioSecond: number;
  /** Of the time the output has two or more speakers, the share the reference has too; null when it never has. */
  overlapPrecision: number | null;
  /** Of the time the reference has two or more speakers, the share the output has too. */
  overlapRecall: number;
  /**
   * Missed speech split by where it lies, as shares of the reference speech: where the reference has
   * one speaker (the speech detection's miss) and where it has two or more (speakers the output lacks there).
   */
  missedWhereOneSpeaks: number;
  missedInOverlap: number;
  /** Per conversation: its name, speakers there and found, and its own DER (for breakdowns; the set's figure is the pooled one above). */
  files: { name: string; speakers: number; found: number; der: number; referenceMs: number }[];
}

/** Speakers at each 10 ms of the file in `turns`. */
function speakerGrid(turns: readonly { startMs: number; endMs: number }[], frames: number): Uint8Array {
  const count = new Uint8Array(frames);
  for (const t of turns) for (let i = Math.round(t.startMs / 10); i < Math.min(frames, Math.round(t.endMs / 10)); i++) count[i]!++;
  return count;
}

/** DER and its parts pooled over files: total error time over total reference speech (as NIST md-eval and pyannote score a set). */
function pooled(ms: { missedMs: number; falseAlarmMs: number; confusionMs: number; referenceMs: number }): PooledDer {
  return {
    der: (ms.missedMs + ms.falseAlarmMs + ms.confusionMs) / ms.referenceMs,
    missed: ms.missedMs / ms.referenceMs,
    falseAlarm: ms.falseAlarmMs / ms.referenceMs,
    confusion: ms.confusionMs / ms.referenceMs,
  };
}

/** `--params '{"pcaDims":4}'` overrides backend parameters (both backends) for development runs. */
let overrides = JSON.parse(option('--params') ?? '{}') as Partial<BackendParameters>;

function evaluate(
  set: readonly Conversation[],
  backend: DiarizationBackend,
  threshold?: number,
  knownCount = false,
  spans: SpeechSpanOptions | null = vadKind !== 'energy' ? spanOptions : null,
): Figures {
  // Milliseconds summed over the set, of each part of the error and of the reference speech.
  const ms = { missedMs: 0, falseAlarmMs: 0, confusionMs: 0, referenceMs: 0 };
  const wholeMs = { missedMs: 0, falseAlarmMs: 0, confusionMs: 0, referenceMs: 0 };
  const speechMs = { missedMs: 0, falseAlarmMs: 0, confusionMs: 0, referenceMs: 0 };
  let countsRight = 0;
  let countsNear = 0;
  const two = { right: 0, all: 0 };
  const countErrors: Record<string, number> = {};
  let seconds = 0;
  let audioSeconds = 0;
  const overlapMs = { both: 0, output: 0, reference: 0 };
  const files: Figures['files'] = [];
  const missedMs = { one: 0, overlap: 0 };
  for (const c of set) {
    const started = process.hrtime.bigint();
    const parameters = { ...backendParameters[backend], ...overrides, ...(threshold === undefined ? {} : { threshold }) };
    const bound = knownCount ? c.speakers : null;
    const speech = speechOf(c, spans);
    const network = embeddingModel === null ? null : cachedNetworkEmbeddings(c, spans);
    const turns = diarize(
      c.pcm,
      { backend, minSpeakers: bound, maxSpeakers: bound, ...(speech ? { speech } : {}), ...(overlapDetector !== null ? { overlapDetector } : {}) },
      network?.embeddings ?? projection,
      parameters,
      ...(network ? [network.frames] : []),
    );
    seconds += Number(process.hrtime.bigint() - started) / 1e9;
    audioSeconds += c.pcm.length / 16_000;
    const score = diarizationErrorRate(
      c.reference,
      turns.map((t) => ({ ...t, speaker: String(t.speaker) })),
    );
    for (const key of Object.keys(ms) as (keyof typeof ms)[]) ms[key] += score[key];
    const whole = diarizationErrorRate(c.reference, [{ startMs: 0, endMs: Math.round(c.pcm.length / 16), speaker: 'one' }]);
    const detected = diarizationErrorRate(
      c.reference,
      turns.map((t) => ({ startMs: t.startMs, endMs: t.endMs, speaker: 'one' })),
    );
    for (const key of Object.keys(ms) as (keyof typeof ms)[]) {
      wholeMs[key] += whole[key];
      speechMs[key] += detected[key];
    }
    const frames = Math.ceil(c.pcm.length / 160);
    const output = speakerGrid(turns, frames);
    const reference = speakerGrid(c.reference, frames);
    for (let i = 0; i < frames; i++) {
      const lacking = 10 * Math.max(0, reference[i]! - output[i]!);
      const outputOverlaps = output[i]! >= 2;
      const referenceOverlaps = reference[i]! >= 2;
      if (referenceOverlaps) missedMs.overlap += lacking;
      else missedMs.one += lacking;
      if (outputOverlaps && referenceOverlaps) overlapMs.both += 10;
      if (outputOverlaps) overlapMs.output += 10;
      if (referenceOverlaps) overlapMs.reference += 10;
    }
    const found = new Set(turns.map((t) => t.speaker)).size;
    files.push({ name: c.name, speakers: c.speakers, found, der: score.der, referenceMs: score.referenceMs });
    if (found === c.speakers) countsRight++;
    if (Math.abs(found - c.speakers) <= 1) countsNear++;
    if (c.speakers === 2) {
      two.all++;
      if (found === 2) two.right++;
    }
    const key = found - c.speakers > 0 ? `+${found - c.speakers}` : String(found - c.speakers);
    countErrors[key] = (countErrors[key] ?? 0) + 1;
  }
  return {
    ...pooled(ms),
    countAccuracy: countsRight / set.length,
    countWithinOne: countsNear / set.length,
    twoSpeakerExact: two.all > 0 ? two.right / two.all : null,
    baselineWholeFile: pooled(wholeMs),
    baselineDetectedSpeech: pooled(speechMs),
    countErrors,
    secondsPerAudioSecond: seconds / audioSeconds,
    overlapPrecision: overlapMs.output > 0 ? overlapMs.both / overlapMs.output : null,
    overlapRecall: overlapMs.reference > 0 ? overlapMs.both / overlapMs.reference : 0,
    missedWhereOneSpeaks: missedMs.one / ms.referenceMs,
    missedInOverlap: missedMs.overlap / ms.referenceMs,
    files,
  };
}

await loadGroupClips([...DEV_GROUPS, ...TEST_GROUPS], 12);

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const describeDer = (d: PooledDer): string => `${pct(d.der)} (${pct(d.missed)} / ${pct(d.falseAlarm)} / ${pct(d.confusion)})`;
const results: Record<string, unknown> = {
  perCount,
  projection: projection.name,
  ...embeddingModelField,
  devGroups: DEV_GROUPS,
  testGroups: TEST_GROUPS,
  vad: vadKind,
  ...(vadKind === 'silero' ? { speechSpans: spanOptions } : {}),
};

if (args.includes('--tune-vad')) {
  const dev = await devSet();
  const started = process.hrtime.bigint();
  await prepare(dev);
  vadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const audio = dev.reduce((sum, c) => sum + c.pcm.length / 16_000, 0);
  console.log(`Silero on ${dev.length} development conversations: ${(vadSeconds / audio).toFixed(4)} s per audio second (wall)`);
  const grid: SpeechSpanOptions[] = [];
  const list = (name: string, fallback: string): number[] => (option(name) ?? fallback).split(',').map(Number);
  for (const threshold of list('--vad-thresholds', '0.2,0.35,0.5'))
    for (const padMs of list('--vad-pads', '30,100,200'))
      for (const minSilenceMs of list('--vad-silences', '100,300'))
        grid.push({ threshold, negativeThreshold: Math.max(0.05, threshold - 0.15), minSilenceMs, minSpeechMs: 250, padMs });
  const sweep: Record<string, unknown>[] = [];
  const energy = Object.fromEntries(DIARIZATION_BACKENDS.map((b) => [b, evaluate(dev, b, undefined, false, null)]));
  console.log(`energy gate: ${DIARIZATION_BACKENDS.map((b) => `${b} DER ${pct(energy[b]!.der)} (missed ${pct(energy[b]!.missed)})`).join(', ')}`);
  for (const spans of grid) {
    const f = Object.fromEntries(DIARIZATION_BACKENDS.map((b) => [b, evaluate(dev, b, undefined, false, spans)]));
    sweep.push({ spans, ...f });
    console.log(
      `${JSON.stringify(spans)}: ${DIARIZATION_BACKENDS.map((b) => `${b} DER ${pct(f[b]!.der)} (missed ${pct(f[b]!.missed)}, FA ${pct(f[b]!.falseAlarm)}, conf ${pct(f[b]!.confusion)}, count ${pct(f[b]!.countAccuracy)})`).join(', ')}`,
    );
  }
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL(`./results/${option('--out') ?? 'diarization-vad-tuning.json'}`, import.meta.url),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), perCount, devGroups: DEV_GROUPS, energy, sweep }, null, 2)}\n`,
  );
  await vad?.close();
  process.exit(0);
}

const noiseSnr = option('--noise-snr');
const heard = (set: Conversation[]): Conversation[] => (noiseSnr === undefined ? set : set.map((c, i) => withNoise(c, Number(noiseSnr), 7000 + i)));
if (noiseSnr !== undefined) results['noiseSnrDb'] = Number(noiseSnr);
if (args.includes('--tune-overlap')) {
  const dev = heard(await devSet());
  await prepare(dev);
  const shipped = overlapDetector;
  if (shipped === null) throw new Error('--tune-overlap needs a detector (--overlap FILE)');
  const list = (name: string, fallback: string): number[] => (option(name) ?? fallback).split(',').map(Number);
  const describe = (f: Figures): string =>
    `DER ${pct(f.der)} (missed ${pct(f.missed)}, FA ${pct(f.falseAlarm)}, conf ${pct(f.confusion)}), overlap precision ${f.overlapPrecision === null ? '-' : pct(f.overlapPrecision)} recall ${pct(f.overlapRecall)}`;
  overlapDetector = null;
  const without = evaluate(dev, 'backend_a');
  console.log(`backend_a without the detector: ${describe(without)}`);
  const sweep: Record<string, unknown>[] = [];
  for (const threshold of list('--overlap-thresholds', '0.5,0.7,0.8,0.9,0.95'))
    for (const minFrames of list('--overlap-min-frames', '5,10')) {
      overlapDetector = { ...shipped, threshold, minFrames };
      const f = evaluate(dev, 'backend_a');
      sweep.push({ threshold, minFrames, ...f });
      console.log(`threshold ${threshold}, min frames ${minFrames}: ${describe(f)}`);
    }
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL(`./results/${option('--out') ?? 'diarization-overlap-tuning.json'}`, import.meta.url),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), perCount, devGroups: DEV_GROUPS, projection: projection.name, detector: shipped.name, without, sweep }, null, 2)}\n`,
  );
  await vad?.close();
  process.exit(0);
}

const thresholds = (option('--thresholds') ?? '-0.1,0,0.1,0.2,0.3,0.4,0.5').split(',').map(Number);
const tuneBackends = DIARIZATION_BACKENDS.filter((b) => (option('--backend') ?? b) === b);
if (args.includes('--tune')) {
  const dev = heard(await devSet());
  await prepare(dev);
  for (const backend of tuneBackends) {
    const known = evaluate(dev, backend, undefined, true);
    console.log(
      `${backend} count given: DER ${pct(known.der)} (missed ${pct(known.missed)}, false alarm ${pct(known.falseAlarm)}, confusion ${pct(known.confusion)})`,
    );
    const sweep: Record<string, Figures> = { countGiven: known };
    for (const threshold of thresholds) {
      sweep[threshold] = evaluate(dev, backend, threshold);
      console.log(
        `${backend} threshold ${threshold}: DER ${pct(sweep[threshold]!.der)} (one speaker over detected speech ${pct(sweep[threshold]!.baselineDetectedSpeech.der)}) count ${pct(sweep[threshold]!.countAccuracy)} within one ${pct(sweep[threshold]!.countWithinOne)} ${JSON.stringify(sweep[threshold]!.countErrors)}`,
      );
    }
    results[`tune_${backend}`] = sweep;
  }
}

/**
 * `--params-list '[{...},{...}]'`: each override set (on top of `--params`) on the development set,
 * count found (`--known-count`: count given, which scores the embeddings apart from the count); then stops.
 */
const paramsList = option('--params-list');
const knownCountSweep = args.includes('--known-count');
if (paramsList !== undefined) {
  const dev = heard(await devSet());
  await prepare(dev);
  const base = overrides;
  const sweep: Record<string, unknown>[] = [];
  for (const extra of JSON.parse(paramsList) as Partial<BackendParameters>[]) {
    overrides = { ...base, ...extra };
    await prepare(dev);
    for (const backend of tuneBackends) {
      const f = evaluate(dev, backend, undefined, knownCountSweep);
      sweep.push({ backend, params: extra, knownCount: knownCountSweep, ...f });
      console.log(
        `${backend} ${JSON.stringify(extra)}: DER ${describeDer(f)} (missed where one speaks ${pct(f.missedWhereOneSpeaks)}, in overlap ${pct(f.missedInOverlap)}; one speaker over detected speech ${pct(f.baselineDetectedSpeech.der)}) count exact ${pct(f.countAccuracy)} within one ${pct(f.countWithinOne)} two-speaker ${f.twoSpeakerExact === null ? '-' : pct(f.twoSpeakerExact)} ${JSON.stringify(f.countErrors)}`,
      );
    }
  }
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL(`./results/${option('--out') ?? 'diarization-params-tuning.json'}`, import.meta.url),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), set: setKind, perCount, projection: projection.name, ...embeddingModelField, sweep }, null, 2)}
`,
  );
  await vad?.close();
  process.exit(0);
}

if (args.includes('--only-tune')) {
  await vad?.close();
  process.exit(0);
}
const sets: Record<string, Conversation[]> =
  setKind === 'realistic'
    ? { '2-6': heard([...(await realisticSet('test', [2], 2 * perCount, 3000)), ...(await realisticSet('test', [3, 4, 5, 6], perCount, 1000))]) }
    : { '2-4': heard(conversationSet(TEST_GROUPS, [2, 3, 4], perCount, 1000)), '5-6': heard(conversationSet(TEST_GROUPS, [5, 6], perCount, 2000)) };
results['set'] = setKind;
{
  const started = process.hrtime.bigint();
  for (const set of Object.values(sets)) await prepare(set);
  vadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const audio = Object.values(sets).reduce((sum, set) => sum + set.reduce((s, c) => s + c.pcm.length / 16_000, 0), 0);
  if (vad !== null) {
    results['sileroSecondsPerAudioSecond'] = vadSeconds / audio;
    console.log(`Silero spans: ${(vadSeconds / audio).toFixed(4)} s per audio second (wall, worker thread)`);
  }
}
for (const backend of DIARIZATION_BACKENDS) {
  for (const [name, set] of Object.entries(sets))
    for (const known of [false, true]) {
      const f = evaluate(set, backend, undefined, known);
      const label = `${backend} ${name} speakers${known ? ', count given' : ''}`;
      results[label] = f;
      console.log(
        `${label} (${set.length} ${setKind} conversations, held-out speakers): pooled DER ${pct(f.der)} (missed ${pct(f.missed)}: ${pct(f.missedWhereOneSpeaks)} where one speaks, ${pct(f.missedInOverlap)} in overlap; false alarm ${pct(f.falseAlarm)}, confusion ${pct(f.confusion)}); baselines: one speaker over the file ${describeDer(f.baselineWholeFile)}, one speaker over the detected speech ${describeDer(f.baselineDetectedSpeech)}; speaker count exact ${pct(f.countAccuracy)}, within one ${pct(f.countWithinOne)}${f.twoSpeakerExact === null ? '' : `, two-speaker exact ${pct(f.twoSpeakerExact)}`} ${JSON.stringify(f.countErrors)}; overlap precision ${f.overlapPrecision === null ? '-' : pct(f.overlapPrecision)} recall ${pct(f.overlapRecall)}, ${f.secondsPerAudioSecond.toFixed(4)} s per audio second`,
      );
    }
}
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL(`./results/${option('--out') ?? 'diarization.json'}`, import.meta.url),
  `${JSON.stringify({ measuredAt: new Date().toISOString(), ...results }, null, 2)}\n`,
);
await vad?.close();
