/**
 * The file speech gate (FILE_SPEECH_GATE, issue 28 item 1): what file transcription makes of
 * held-out speech and of non-speech with the gate off (today's path: every pause-cut piece with
 * sound is decoded), with Silero (the default) and with the energy confirmation that stands in
 * when Silero is unavailable, all in the same run.
 *
 * Gates: `off`, `silero` and `energy` as served (the VAD regions, then the calibrated-confidence
 * floor of speech-gate.ts for a calibrated model), `silero-vad-only` and `energy-only` without the
 * confidence floor.
 *
 * Path: the file path after decoding (transcribeAll: the pause segmenter, the gate, the shipped
 * model's CtcRecognizer with its manifest's beam search and LM on a one-worker inference pool,
 * the shared Silero VAD), on 16 kHz PCM held in memory; the REST surfaces add upload, ffmpeg and
 * the job record around exactly this.
 *
 * Speech: held-out ALFFA groups (bench/held-out-audio.ts; validation 041, 091, 131 and test 021,
 * 231, reported apart), clean, in pink noise at 10 dB SNR and 30 dB quieter; CER in the ALFFA
 * scoring form (homophones merged, spaces and punctuation removed), corpus level, with the
 * utterances that came back empty. Non-speech: one clip of each kind (bench/held-out-audio.ts),
 * the letters invented per minute and the share of clips that came back empty.
 * `--min-confidence a,b` also scores the gated text with segments under each confidence dropped
 * (the second gate: with a calibrated model, its calibrated confidence).
 *
 *   npx tsx bench/file-speech-gate.ts [--data ../shared/data] [--model models/small-am-v2]
 *     [--per-group 50] [--noise-seconds 30] [--conditions clean,pink10,quiet30] [--gates off,silero,energy]
 *     [--min-confidence 0.1,0.2] [--out file-speech-gate] [--no-noise] [--channel mulaw|alaw]
 *
 * `--channel mulaw` measures a telephone model (manifest `telephone_model`) on what it serves: every
 * clip, speech after its degradation and non-speech alike, over a G.711 call (held-out-audio.ts `overCall`).
 *
 * Writes bench/results/<out>.json.
 */
import { join } from 'node:path';
import type { Segment } from '../src/platform/db/job-records.js';
import { FILE_SPEECH_GATE_OPTIONS, SpeechGate, type SpeechProbabilities } from '../src/engines/asr/recognition/speech-gate.js';
import { transcribeAll } from '../src/engines/asr/recognition/transcriber.js';
import { scoredCharacterErrorRate, scoringForm } from '../src/engines/scoring/character-error-rate.js';
import { Vad } from '../src/engines/vad/vad.js';
import { publishReport } from './bench-results.js';
import {
  heldOutUtterances,
  nonSpeechClips,
  listeningChannel,
  openRecognizer,
  receivedOver,
  TEST_GROUPS,
  VALIDATION_GROUPS,
  withGain,
  withPinkNoise,
} from './held-out-audio.js';
import { flag, option } from './bench-args.js';

const DATA = option('data', join(process.cwd(), '..', 'shared', 'data'));
const MODEL = option('model', join(process.cwd(), 'models', 'small-am-v2'));
const PER_GROUP = Number(option('per-group', '50'));
const NOISE_SECONDS = Number(option('noise-seconds', '30'));
const CONDITIONS = option('conditions', 'clean,pink10,quiet30').split(',');
const CHANNEL = listeningChannel(option('channel', 'wideband'));
/** The audio as the model receives it: as recorded, or over the --channel call. */
const received = (pcm: Float32Array): Promise<Float32Array> => receivedOver(CHANNEL, pcm);
const MIN_CONFIDENCE = option('min-confidence', '')
  .split(',')
  .filter((v) => v.length > 0)
  .map(Number);

const degrade: Record<string, (pcm: Float32Array, seed: number) => Float32Array> = {
  clean: (pcm) => pcm,
  pink20: (pcm, seed) => withPinkNoise(pcm, 20, seed),
  pink10: (pcm, seed) => withPinkNoise(pcm, 10, seed),
  pink5: (pcm, seed) => withPinkNoise(pcm, 5, seed),
  quiet30: (pcm) => withGain(pcm, -30),
};
for (const c of CONDITIONS) if (!degrade[c]) throw new Error(`--conditions: unknown ${c} (${Object.keys(degrade).join(', ')})`);

const vad = new Vad({ warn: (d, m) => console.error(m, d), error: (d, m) => console.error(m, d) });
const silero: SpeechProbabilities = (pcm, signal) => vad.speechProbabilities(pcm, signal);
const withoutSecondGate = { ...FILE_SPEECH_GATE_OPTIONS, minConfidence: 0 };
const allGates: Record<string, SpeechGate | null> = {
  off: null,
  silero: new SpeechGate(silero),
  energy: new SpeechGate(null),
  // the first gate alone (no calibrated-confidence floor)
  'silero-vad-only': new SpeechGate(silero, undefined, withoutSecondGate),
  'energy-only': new SpeechGate(null, undefined, withoutSecondGate),
};
const gates = Object.fromEntries(
  option('gates', 'off,silero,energy')
    .split(',')
    .map((g) => [g, allGates[g] ?? null]),
);
const { recognizer, close } = await openRecognizer(MODEL);

async function* once(pcm: Float32Array): AsyncGenerator<Float32Array> {
  yield pcm;
}
const transcribe = async (pcm: Float32Array, gate: SpeechGate | null): Promise<Segment[]> =>
  (await transcribeAll(once(pcm), { recognizer, speechGate: gate })).segments;
const textOf = (segments: readonly Segment[], minConfidence = 0): string =>
  segments
    .filter((s) => minConfidence === 0 || (s.confidence ?? 0) >= minConfidence)
    .map((s) => s.text)
    .join(' ');

const started = performance.now();
const utterances = await heldOutUtterances(DATA, [...VALIDATION_GROUPS, ...TEST_GROUPS], PER_GROUP);
const sets = { validation: VALIDATION_GROUPS as readonly string[], test: TEST_GROUPS as readonly string[] };
const speech: Record<string, unknown>[] = [];
for (const condition of CONDITIONS) {
  const audio: Float32Array[] = [];
  for (const [i, u] of utterances.entries()) audio.push(await received(degrade[condition]!(u.pcm, 1000 + i))); // one decoder at a time
  for (const [gateName, gate] of Object.entries(gates)) {
    const segments: Segment[][] = [];
    for (const pcm of audio) segments.push(await transcribe(pcm, gate));
    for (const [set, groups] of Object.entries(sets)) {
      const index = utterances.flatMap((u, i) => (groups.includes(u.group) ? [i] : []));
      const row = (minConfidence: number): Record<string, unknown> => {
        const texts = index.map((i) => textOf(segments[i]!, minConfidence));
        const score = scoredCharacterErrorRate(
          index.map((i) => utterances[i]!.reference),
          texts,
          'am',
        );
        return {
          condition,
          gate: gateName,
          ...(minConfidence > 0 ? { minConfidence } : {}),
          set,
          utterances: index.length,
          cer: Number(score.cer.toFixed(4)),
          errors: score.errors,
          referenceLetters: score.referenceChars,
          empty: texts.filter((t) => t.trim().length === 0).length,
          segments: index.reduce((n, i) => n + segments[i]!.length, 0),
        };
      };
      speech.push(row(0));
      for (const t of MIN_CONFIDENCE) speech.push(row(t));
    }
    console.error(`speech ${condition} gate=${gateName} done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
}

const clips: { kind: string; pcm: Float32Array }[] = [];
for (const clip of flag('no-noise') ? [] : nonSpeechClips(NOISE_SECONDS, 28)) clips.push({ kind: clip.kind, pcm: await received(clip.pcm) });
const nonSpeech: Record<string, unknown>[] = [];
const perClip: Record<string, unknown>[] = [];
for (const [gateName, gate] of Object.entries(gates)) {
  const results = [];
  for (const clip of clips) results.push({ kind: clip.kind, minutes: clip.pcm.length / 16_000 / 60, segments: await transcribe(clip.pcm, gate) });
  const minutes = results.reduce((n, r) => n + r.minutes, 0);
  for (const minConfidence of [0, ...MIN_CONFIDENCE]) {
    const letters = results.map((r) => scoringForm(textOf(r.segments, minConfidence), 'am').length);
    nonSpeech.push({
      gate: gateName,
      ...(minConfidence > 0 ? { minConfidence } : {}),
      clips: results.length,
      minutes: Number(minutes.toFixed(2)),
      lettersPerMinute: Number((letters.reduce((a, b) => a + b, 0) / minutes).toFixed(2)),
      emptyShare: Number((letters.filter((n) => n === 0).length / results.length).toFixed(3)),
    });
    if (minConfidence === 0) {
      results.forEach((r, i) =>
        perClip.push({
          gate: gateName,
          kind: r.kind,
          letters: letters[i],
          confidences: r.segments.map((s) => s.confidence),
          text: textOf(r.segments).slice(0, 80),
        }),
      );
    }
  }
  console.error(`non-speech gate=${gateName} done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

await close();
await vad.close();
console.table(speech);
console.table(nonSpeech);
publishReport(option('out', 'file-speech-gate'), {
  benchmark: 'file-speech-gate',
  model: MODEL.split('/').pop(),
  perGroup: PER_GROUP,
  noiseSeconds: NOISE_SECONDS,
  channel: CHANNEL,
  speech,
  nonSpeech,
  perClip,
});
