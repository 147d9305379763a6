/**
 * Incremental acoustic encoding (issue 30, item 1): what the streaming step graph
 * (models/<name>/streaming.onnx, training/asr/export_streaming.py) saves, and whether the shipped
 * model's per-utterance normalisation can be replaced by one a stream can compute.
 *
 * 1. Model CPU time of interim results every 500 ms over turns of 3, 6 and 12 s (the Amharic
 *    speech fixture, tiled), both measured in this run, each turn `--repeats` times (median):
 *    (a) today: model.onnx over the whole open turn at every partial;
 *    (b) step (interleaved with (a), partial by partial): streaming.onnx over the new 500 ms (a multiple of 4 frames; the rest held back)
 *        plus its provisional tail (2.4 s for small-am-v2), the state kept between partials.
 *    Beside them the one-off cost of today's final pass over the whole turn, and of the step
 *    graph's finish (the held-back frames; its committed logits are then the full model's).
 *    Once with one stream per model run, once with `--batch` streams in lockstep per run (as
 *    the gateway batches; costs per stream). CPU time is the process's (process.cpuUsage)
 *    around the model calls only; one intra-op thread, as the gateway's workers run.
 * 2. Normalisation: held-out ALFFA utterances (bench/held-out-audio.ts), greedy-decoded from the
 *    full model's logits on features normalised four ways: per utterance (the manifest's, the
 *    reference), a fixed global mean/std from `--train` training utterances, a running mean/std
 *    of the turn's frames so far, and the same with the global statistics as a 1 s prior. The
 *    step graph gives the full model's logits on the same features (a stream's features do not
 *    change once fed), so these are the streaming results. Printed: scored CER against the
 *    transcripts beside per-utterance's, CER against per-utterance's hypotheses, and the frames
 *    whose argmax token differs from per-utterance's.
 *
 * Any CtcNet folder with a streaming.onnx runs, a bounded right context included (the tail is
 * then right context x blocks frames); results of a model other than the default go to
 * bench/results/incremental-encoder-<name>.json.
 *
 * Run: npm run bench:incremental-encoder [-- --model models/small-am-v2 --data ../shared/data
 *      --per-group 10 --train 100 --repeats 9 --batch 16 --cost-only]
 */
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { CtcGreedyDecoder } from '../src/engines/asr/decoding/ctc-greedy-decoder.js';
import { type EncoderStream, StreamingEncoder } from '../src/engines/asr/inference/streaming-encoder.js';
import { loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { editDistance, scoredCharacterErrorRate, scoringForm } from '../src/engines/scoring/character-error-rate.js';
import { LogMelExtractor, NORMALIZE_EPSILON } from '../src/engines/signal/features/log-mel-features.js';
import { RunningNormalizer } from '../src/engines/signal/features/running-normalizer.js';
import { pcm16ToFloat, speechAmPcm } from '../test/helpers/fixtures.js';
import { flag, option } from './bench-args.js';
import { median, publishReport, ratio3, round2 } from './bench-results.js';
import { heldOutUtterances, TEST_GROUPS, VALIDATION_GROUPS } from './held-out-audio.js';
import { featureStatistics, trainingFeatures } from '../training/common/feature-statistics.js';

const DEFAULT_MODEL = join(process.cwd(), 'models', 'small-am-v2');
const MODEL = resolve(option('model', DEFAULT_MODEL));
const DATA = option('data', join(process.cwd(), '..', 'shared', 'data'));
const PER_GROUP = Number(option('per-group', '10'));
const TRAIN = Number(option('train', '100'));
const REPEATS = Number(option('repeats', '9'));
const BATCH = Number(option('batch', '16'));
const TURNS_S = [3, 6, 12];
const PARTIAL_FRAMES = 50; // 500 ms of 10 ms frames
const COST_ONLY = flag('cost-only'); // part 1 only, nothing written

const loaded = await loadModelFolder(MODEL);
if (loaded.kind !== 'ctc' || loaded.manifest.input.kind !== 'log_mel') throw new Error(`${MODEL} is not a log-mel CTC model`);
const model = loaded;
const melInput = loaded.manifest.input;
const nMels = melInput.nMels;
const full = await ort.InferenceSession.create(model.onnxPath, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  executionProviders: ['cpu'],
});
const encoder = await StreamingEncoder.open(join(model.dir, 'streaming.onnx'));

/** Process CPU milliseconds spent in `work`. */
async function cpuMs<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const before = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, value };
}

async function fullLogits(features: Float32Array, frames: number, rows = 1): Promise<Float32Array> {
  const one = features.subarray(0, frames * nMels);
  const input = rows === 1 ? one : new Float32Array(rows * one.length);
  if (rows > 1) for (let r = 0; r < rows; r++) input.set(one, r * one.length);
  const out = await full.run({
    features: new ort.Tensor('float32', input, [rows, frames, nMels]),
    lengths: new ort.Tensor('int64', new BigInt64Array(rows).fill(BigInt(frames)), [rows]),
  });
  return out.logits!.data as Float32Array;
}

/**
 * One turn of `frames` features for `rows` streams in lockstep (one batch per model run):
 * partial costs of today's full passes and of the step graph, interleaved partial by partial so
 * that both see the same machine load; per stream.
 */
async function turnCost(features: Float32Array, frames: number, rows: number) {
  const partials = Math.floor(frames / PARTIAL_FRAMES);
  let today = 0;
  let step = 0;
  let streams: EncoderStream[] = Array.from({ length: rows }, () => encoder.start());
  for (let p = 1; p <= partials; p++) {
    today += (await cpuMs(() => fullLogits(features, p * PARTIAL_FRAMES, rows))).ms;
    const chunk = features.subarray((p - 1) * PARTIAL_FRAMES * nMels, p * PARTIAL_FRAMES * nMels);
    const ran = await cpuMs(() =>
      encoder.stepBatch(
        streams,
        streams.map(() => chunk),
      ),
    );
    step += ran.ms;
    streams = ran.value.map((s) => s.stream);
  }
  const finalPass = (await cpuMs(() => fullLogits(features, frames, rows))).ms;
  // the step graph's end: the turn's last frames (after the last partial) and the held-back ones
  const rest = features.subarray(partials * PARTIAL_FRAMES * nMels);
  const finish = (
    await cpuMs(async () => {
      const last =
        rest.length > 0
          ? (
              await encoder.stepBatch(
                streams,
                streams.map(() => rest),
              )
            ).map((s) => s.stream)
          : streams;
      for (const s of last) await encoder.finish(s);
    })
  ).ms;
  return { partials, today: today / rows, step: step / rows, finalPass: finalPass / rows, finish: finish / rows };
}

async function measureCost() {
  const pcm = pcm16ToFloat(speechAmPcm());
  const longest = Math.max(...TURNS_S) * 16_000;
  const tiled = new Float32Array(longest);
  for (let i = 0; i < longest; i++) tiled[i] = pcm[i % pcm.length]!;
  const extractor = new LogMelExtractor(melInput);
  const rows = [];
  for (const streams of [1, BATCH]) {
    await turnCost(extractor.compute(tiled.subarray(0, 2 * 16_000)), 200, streams); // warm-up
    for (const seconds of TURNS_S) {
      const features = extractor.compute(tiled.subarray(0, seconds * 16_000));
      const frames = features.length / nMels;
      const runs = [];
      for (let r = 0; r < REPEATS; r++) runs.push(await turnCost(features, frames, streams));
      const today = median(runs.map((r) => r.today));
      const step = median(runs.map((r) => r.step));
      rows.push({
        streams_per_run: streams,
        turn_s: seconds,
        frames,
        partials: runs[0]!.partials,
        today_partials_cpu_ms: round2(today),
        step_partials_cpu_ms: round2(step),
        ratio_step_to_today: ratio3(step, today),
        final_full_pass_cpu_ms: round2(median(runs.map((r) => r.finalPass))),
        step_finish_cpu_ms: round2(median(runs.map((r) => r.finish))),
      });
    }
  }
  return rows;
}

interface Stats {
  readonly mean: readonly number[];
  readonly std: readonly number[];
}

function normaliseGlobal(raw: Float32Array, g: Stats): Float32Array {
  return raw.map((x, i) => (x - g.mean[i % nMels]!) / (g.std[i % nMels]! + NORMALIZE_EPSILON));
}

async function measureNormalisation() {
  const raw = new LogMelExtractor({ ...melInput, normalize: 'none' });
  const perUtterance = new LogMelExtractor(melInput);
  const g = featureStatistics(await trainingFeatures(DATA, melInput, TRAIN), nMels);
  const utterances = await heldOutUtterances(DATA, [...VALIDATION_GROUPS, ...TEST_GROUPS], PER_GROUP);
  const decoder = new CtcGreedyDecoder(model.vocabulary);
  const vocab = model.vocabulary.tokens.length;
  const kinds = {
    per_utterance: (pcm: Float32Array) => perUtterance.compute(pcm),
    global: (pcm: Float32Array) => normaliseGlobal(raw.compute(pcm), g),
    // what live streams compute (running-normalizer.ts), without and with a 1 s prior
    running: (pcm: Float32Array) => new RunningNormalizer({ ...g, priorFrames: 0 }).apply(raw.compute(pcm)),
    running_global_prior_1s: (pcm: Float32Array) => new RunningNormalizer({ ...g, priorFrames: 100 }).apply(raw.compute(pcm)),
  };
  const texts: Record<string, string[]> = {};
  const argmax: Record<string, Int32Array[]> = {};
  for (const [kind, features] of Object.entries(kinds)) {
    texts[kind] = [];
    argmax[kind] = [];
    for (const u of utterances) {
      const f = features(u.pcm);
      const logits = await fullLogits(f, f.length / nMels);
      const frames = logits.length / vocab;
      texts[kind].push(decoder.decode({ data: logits, frames, vocabSize: vocab }).text);
      const best = new Int32Array(frames);
      for (let t = 0; t < frames; t++) {
        for (let v = 1; v < vocab; v++) if (logits[t * vocab + v]! > logits[t * vocab + best[t]!]!) best[t] = v;
      }
      argmax[kind].push(best);
    }
  }
  const references = utterances.map((u) => u.reference);
  const reference = texts.per_utterance!;
  const rows = Object.keys(kinds).map((kind) => {
    let differ = 0;
    let frames = 0;
    argmax[kind]!.forEach((a, i) => {
      const b = argmax.per_utterance![i]!;
      for (let t = 0; t < a.length; t++) if (a[t] !== b[t]) differ++;
      frames += a.length;
    });
    let edits = 0;
    let chars = 0;
    texts[kind]!.forEach((h, i) => {
      const r = scoringForm(reference[i]!, model.language);
      edits += editDistance(r, scoringForm(h, model.language));
      chars += r.length;
    });
    return {
      normalisation: kind,
      cer_vs_transcripts: Math.round(scoredCharacterErrorRate(references, texts[kind]!, model.language).cer * 10_000) / 100,
      cer_vs_per_utterance_hypotheses: Math.round((edits / Math.max(1, chars)) * 10_000) / 100,
      argmax_differs_from_per_utterance: `${differ}/${frames} (${Math.round((differ / frames) * 10_000) / 100}%)`,
    };
  });
  return { utterances: utterances.length, groups: [...VALIDATION_GROUPS, ...TEST_GROUPS], training_utterances_for_global: TRAIN, rows };
}

const cost = await measureCost();
console.table(cost);
const normalisation = COST_ONLY ? null : await measureNormalisation();
if (normalisation) console.table(normalisation.rows);
await encoder.release();
await full.release();
if (COST_ONLY) process.exit(0);
// another model's results go beside the default model's (bench/results/incremental-encoder-<name>.json)
publishReport(MODEL === DEFAULT_MODEL ? 'incremental-encoder' : `incremental-encoder-${model.name}`, {
  model: model.name,
  partial_interval_ms: PARTIAL_FRAMES * 10,
  delay_frames: encoder.shape.delayFrames,
  repeats: REPEATS,
  cost,
  normalisation,
});
