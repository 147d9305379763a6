/**
 * Confidence calibration (issue 28 item 2): fits the mapping from a model's raw decoding scores to
 * segment confidence = the expected share of letters right (1 - CER, clipped to [0, 1]) on
 * held-out speakers, reports the reliability curve on other held-out speakers, and writes the
 * mapping beside the model (src/engines/asr/recognition/confidence-calibration.ts reads it).
 *
 * Data (bench/held-out-audio.ts): ALFFA Amharic utterances of speaker groups small-am-v2 never
 * trained on: the mapping is fitted on the validation groups 041, 091, 131 and reported on the
 * test groups 021, 231 (never fitted on). Each utterance clean and in pink noise at 10, 5 and
 * 0 dB SNR (so the fit sees bad readings too), decoded through the file path (transcribeAll with
 * the Silero speech gate, the model's beam search and LM); an utterance read as exactly one
 * segment gives one row (features of the segment, CER against the utterance's reference, ALFFA
 * scoring form); utterances read as none or several segments are counted and left out. Non-speech:
 * the clips of bench/held-out-audio.ts (seed 11 for the fit, 28 for the report) decoded with the
 * gate off (what reaches the recognizer when the gate is off or unsure), every segment a row whose
 * letters are all invented (target 0).
 *
 * Fit: a logistic model on the standardised features (CONFIDENCE_FEATURES) with the soft target
 * 1 - CER (fitLogisticModel, cross-entropy), then isotonic regression of the target on the
 * logistic output (fitIsotonic), both on the fit rows. Report: for the raw confidence (mean token
 * posterior), the calibrated one, and a constant (the fit rows' mean target: the trivial
 * baseline), the reliability curve (confidence bins of 0.1: rows, mean confidence, mean 1 - CER,
 * corpus CER of the speech rows, non-speech rows), the expected calibration error (rows-weighted
 * mean |confidence - (1 - CER)| over bins) and the mean squared error.
 *
 *   npx tsx bench/confidence-calibration.ts [--data ../shared/data] [--model models/small-am-v2]
 *     [--per-group 50] [--noise-seconds 20] [--channel mulaw|alaw] [--write]
 *
 * `--channel mulaw` (a telephone model, manifest `telephone_model`): every clip, speech after its
 * noise and non-speech alike, reaches the model over a G.711 call (held-out-audio.ts `overCall`),
 * as the narrow-band audio that model serves does.
 *
 * `--write` writes <model>/confidence-calibration.json (the manifest names it in
 * `confidence_calibration`); the figures go to bench/results/confidence-calibration.json.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fitLogisticModel, logisticProbability } from '../src/engines/diarization/small-classifiers.js';
import { CONFIDENCE_FEATURES, type ConfidenceCalibration, calibratedConfidence, fitIsotonic } from '../src/engines/asr/recognition/confidence-calibration.js';
import { CtcRecognizer, type Recognition, type RecognizeOptions } from '../src/engines/asr/recognition/ctc-recognizer.js';
import { SpeechGate } from '../src/engines/asr/recognition/speech-gate.js';
import { transcribeAll } from '../src/engines/asr/recognition/transcriber.js';
import { editDistance, scoringForm } from '../src/engines/scoring/character-error-rate.js';
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
  withPinkNoise,
} from './held-out-audio.js';
import { flag, option } from './bench-args.js';

const DATA = option('data', join(process.cwd(), '..', 'shared', 'data'));
const MODEL = option('model', join(process.cwd(), 'models', 'small-am-v2'));
const PER_GROUP = Number(option('per-group', '50'));
const NOISE_SECONDS = Number(option('noise-seconds', '20'));
const WRITE = flag('write');
const CHANNEL = listeningChannel(option('channel', 'wideband'));
/** The audio as the model receives it: as recorded, or over the --channel call. */
const received = (pcm: Float32Array): Promise<Float32Array> => receivedOver(CHANNEL, pcm);
const CONDITIONS: Record<string, (pcm: Float32Array, seed: number) => Float32Array> = {
  clean: (pcm) => pcm,
  pink10: (pcm, seed) => withPinkNoise(pcm, 10, seed),
  pink5: (pcm, seed) => withPinkNoise(pcm, 5, seed),
  pink0: (pcm, seed) => withPinkNoise(pcm, 0, seed),
};

/** A recognizer that keeps every recognition it makes (the segment's raw features). */
class RecordingRecognizer extends CtcRecognizer {
  readonly seen: Recognition[] = [];
  override async recognize(samples: Float32Array, options?: RecognizeOptions): Promise<Recognition> {
    const recognition = await super.recognize(samples, options);
    this.seen.push(recognition);
    return recognition;
  }
}

interface Row {
  readonly set: 'fit' | 'report';
  readonly kind: 'speech' | 'non-speech';
  readonly condition: string;
  readonly features: readonly number[];
  readonly raw: number;
  /** 1 - CER clipped to [0, 1]; 0 for non-speech. */
  readonly target: number;
  readonly errors: number;
  readonly referenceLetters: number;
  readonly hypothesisLetters: number;
}

const vad = new Vad({ warn: (d, m) => console.error(m, d), error: (d, m) => console.error(m, d) });
const gate = new SpeechGate((pcm, signal) => vad.speechProbabilities(pcm, signal));
const { recognizer, close } = await openRecognizer(MODEL, false, (...a) => new RecordingRecognizer(...a));
async function* once(pcm: Float32Array): AsyncGenerator<Float32Array> {
  yield pcm;
}
/** The recognitions behind the segments of one file-path transcription. */
async function recognitions(pcm: Float32Array, speechGate: SpeechGate | null): Promise<Recognition[]> {
  recognizer.seen.length = 0;
  await transcribeAll(once(pcm), { recognizer, speechGate, maxInFlight: 1 });
  return recognizer.seen.filter((r) => r.text.length > 0 && r.confidenceFeatures !== null);
}

const started = performance.now();
const elapsed = (): string => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const rows: Row[] = [];
const skipped: Record<string, { none: number; several: number }> = {};
const utterances = await heldOutUtterances(DATA, [...VALIDATION_GROUPS, ...TEST_GROUPS], PER_GROUP);
for (const [condition, degrade] of Object.entries(CONDITIONS)) {
  skipped[condition] = { none: 0, several: 0 };
  for (const [i, u] of utterances.entries()) {
    const found = await recognitions(await received(degrade(u.pcm, 2000 + i)), gate);
    if (found.length !== 1) {
      skipped[condition]![found.length === 0 ? 'none' : 'several']++;
      continue;
    }
    const r = found[0]!;
    const reference = scoringForm(u.reference, 'am');
    const hypothesis = scoringForm(r.text, 'am');
    const errors = editDistance(reference, hypothesis);
    rows.push({
      set: (VALIDATION_GROUPS as readonly string[]).includes(u.group) ? 'fit' : 'report',
      kind: 'speech',
      condition,
      features: r.confidenceFeatures!,
      raw: r.rawConfidence!,
      target: Math.max(0, 1 - errors / Math.max(1, reference.length)),
      errors,
      referenceLetters: reference.length,
      hypothesisLetters: hypothesis.length,
    });
  }
  console.error(`speech ${condition}: ${rows.length} rows (${elapsed()})`);
}
for (const [set, seed] of [
  ['fit', 11],
  ['report', 28],
] as const) {
  for (const clip of nonSpeechClips(NOISE_SECONDS, seed)) {
    for (const r of await recognitions(await received(clip.pcm), null)) {
      const letters = scoringForm(r.text, 'am').length;
      rows.push({
        set,
        kind: 'non-speech',
        condition: clip.kind,
        features: r.confidenceFeatures!,
        raw: r.rawConfidence!,
        target: 0,
        errors: letters,
        referenceLetters: 0,
        hypothesisLetters: letters,
      });
    }
  }
  console.error(`non-speech ${set}: ${rows.length} rows (${elapsed()})`);
}
await close();
await vad.close();

// --- Fit on the fit rows -----------------------------------------------------------------
const fit = rows.filter((r) => r.set === 'fit');
const report = rows.filter((r) => r.set === 'report');
const logistic = fitLogisticModel(
  [...CONFIDENCE_FEATURES],
  fit.map((r) => r.features),
  fit.map((r) => r.target),
  { l2: 1e-3, steps: 3000, rate: 0.05 },
);
const isotonic = fitIsotonic(fit.map((r) => ({ x: logisticProbability(logistic, r.features), y: r.target })));
const round6 = (x: number): number => Number(x.toPrecision(6));
const calibration: ConfidenceCalibration = {
  features: [...CONFIDENCE_FEATURES],
  mean: [...logistic.mean].map(round6),
  std: [...logistic.std].map(round6),
  weights: [...logistic.weights].map(round6),
  bias: round6(logistic.bias),
  isotonic: { x: isotonic.x.map(round6), y: isotonic.y.map(round6) },
};
const baseline = fit.reduce((s, r) => s + r.target, 0) / fit.length;

// --- Reliability -------------------------------------------------------------------------
const scorers: Record<string, (r: Row) => number> = {
  raw: (r) => r.raw,
  calibrated: (r) => calibratedConfidence(calibration, r.features),
  constant: () => baseline,
};
function reliability(set: readonly Row[], score: (r: Row) => number): Record<string, unknown> {
  const bins = Array.from({ length: 10 }, (_, b) => ({ from: b / 10, to: (b + 1) / 10, rows: [] as Row[], sum: 0 }));
  for (const r of set) {
    const c = score(r);
    const bin = bins[Math.min(9, Math.floor(c * 10))]!;
    bin.rows.push(r);
    bin.sum += c;
  }
  let ece = 0;
  let squared = 0;
  for (const r of set) squared += (score(r) - r.target) ** 2;
  const curve = bins
    .filter((b) => b.rows.length > 0)
    .map((b) => {
      const meanConfidence = b.sum / b.rows.length;
      const meanAccuracy = b.rows.reduce((s, r) => s + r.target, 0) / b.rows.length;
      ece += (b.rows.length / set.length) * Math.abs(meanConfidence - meanAccuracy);
      const speech = b.rows.filter((r) => r.kind === 'speech');
      const errors = speech.reduce((s, r) => s + r.errors, 0);
      const letters = speech.reduce((s, r) => s + r.referenceLetters, 0);
      return {
        bin: `${b.from.toFixed(1)}-${b.to.toFixed(1)}`,
        rows: b.rows.length,
        nonSpeech: b.rows.length - speech.length,
        meanConfidence: Number(meanConfidence.toFixed(3)),
        meanAccuracy: Number(meanAccuracy.toFixed(3)),
        speechCer: letters > 0 ? Number((errors / letters).toFixed(3)) : null,
      };
    });
  return { rows: set.length, ece: Number(ece.toFixed(4)), mse: Number((squared / set.length).toFixed(4)), curve };
}
const figures: Record<string, Record<string, unknown>> = {};
for (const [name, score] of Object.entries(scorers)) {
  figures[name] = { fit: reliability(fit, score), report: reliability(report, score) };
}
const nonSpeechReport = report.filter((r) => r.kind === 'non-speech');
const speechReport = report.filter((r) => r.kind === 'speech');
const under = (threshold: number, score: (r: Row) => number): Record<string, unknown> => {
  const low = speechReport.filter((r) => score(r) < threshold);
  const errors = low.reduce((s, r) => s + r.errors, 0);
  const letters = low.reduce((s, r) => s + r.referenceLetters, 0);
  return { threshold, speechRows: low.length, speechCer: letters > 0 ? Number((errors / letters).toFixed(3)) : null };
};
const summary = {
  nonSpeechRows: nonSpeechReport.length,
  nonSpeechMeanRaw: Number((nonSpeechReport.reduce((s, r) => s + scorers['raw']!(r), 0) / Math.max(1, nonSpeechReport.length)).toFixed(3)),
  nonSpeechMeanCalibrated: Number((nonSpeechReport.reduce((s, r) => s + scorers['calibrated']!(r), 0) / Math.max(1, nonSpeechReport.length)).toFixed(3)),
  nonSpeechMaxCalibrated: Math.max(0, ...nonSpeechReport.map((r) => scorers['calibrated']!(r))),
  speechUnder: [0.3, 0.5, 0.7].map((t) => under(t, scorers['calibrated']!)),
};

for (const [name, f] of Object.entries(figures)) {
  const r = f['report'] as { ece: number; mse: number; curve: Record<string, unknown>[] };
  console.log(`\n${name} confidence on the report groups (021, 231) and report noise: ECE ${r.ece}, MSE ${r.mse}`);
  console.table(r.curve);
}
console.log(summary);

if (WRITE) {
  const file = join(MODEL, 'confidence-calibration.json');
  const provenance = {
    fitted_by: 'bench/confidence-calibration.ts',
    date: new Date().toISOString().slice(0, 10),
    fit_groups: VALIDATION_GROUPS,
    report_groups: TEST_GROUPS,
    channel: CHANNEL,
    fit_rows: fit.length,
    report_ece: { raw: (figures['raw']!['report'] as { ece: number }).ece, calibrated: (figures['calibrated']!['report'] as { ece: number }).ece },
  };
  writeFileSync(file, `${JSON.stringify({ ...calibration, provenance }, null, 2)}\n`);
  console.error(`wrote ${file}`);
}
publishReport('confidence-calibration', {
  benchmark: 'confidence-calibration',
  model: basename(MODEL),
  perGroup: PER_GROUP,
  noiseSeconds: NOISE_SECONDS,
  channel: CHANNEL,
  conditions: Object.keys(CONDITIONS),
  rows: { fit: fit.length, report: report.length },
  skipped,
  calibration,
  figures,
  summary,
});
