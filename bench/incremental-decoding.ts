/**
 * Incremental decoding (issue 30, item 2): the decoder's CPU time for a live turn with a partial
 * every 500 ms, done (a) as today, `decode` of the whole open turn at every partial and once more
 * for the final, and (b) with a CtcBeamStream: `advance` over the frames new since the last
 * partial minus a provisional tail, `peek` of that tail, and `advance` + `finish` for the final.
 * Both in the same run, interleaved, on the same logits; (b)/(a) is printed per turn length.
 *
 * Logits: real ones, small-am-v2 (or --model) run by onnxruntime-node with the gateway's
 * features (training/common/ctc-utterances.ts) over held-out ALFFA test-group utterances
 * (training/common/splits/alffa-spk-test.txt, speakers the model never heard), one utterance at
 * a time; a turn of T seconds is the frames of consecutive utterances from one utterance's start,
 * joined (a long turn spans sentence pauses). The decoder is the one the inference workers build
 * from the manifest (decoding-plan.ts createDecoder: beam 16 + the character 7-gram LM).
 * Partials: at every 500 ms of the turn (frames = floor(k x 500 ms / stride), 12.5 frames of
 * 40 ms), each over all frames so far; (b) treats the last `--tail` frames (40) as provisional.
 * (b)'s partials and final are checked to equal (a)'s exactly (text, tokens, times, confidences).
 * Times: per turn length the median over `--repeats` of the total over its turns.
 *
 *   npm run bench:incremental-decoding [-- --model models/small-am-v2] [--turns 8] [--seconds 3,6,12]
 *        [--tail 40] [--repeats 5] [--data /work/shared/data]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CtcBeamDecoder } from '../src/engines/asr/decoding/ctc-beam-decoder.js';
import { CtcBeamStream } from '../src/engines/asr/decoding/ctc-beam-stream.js';
import { createDecoder } from '../src/engines/asr/decoding/decoding-plan.js';
import type { CtcHypothesis, CtcScores } from '../src/engines/asr/decoding/ctc-types.js';
import { CharNgramLm } from '../src/engines/asr/decoding/lm/char-ngram-lm.js';
import { parseKaldiText } from '../src/engines/asr/decoding/lm/lm-corpus.js';
import { manifestDecodingPlanner } from '../src/engines/asr/inference/decoding-planner.js';
import { loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { ctcUtterances } from '../training/common/ctc-utterances.js';
import { option } from './bench-args.js';
import { median, publishReport, ratio3, round2 } from './bench-results.js';

const ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const dataDir = option('data', process.env.DATA_DIR ?? '/work/shared/data');
const modelDir = option('model', join(ROOT, 'models', 'small-am-v2'));
const TURNS = Number(option('turns', '8'));
const SECONDS = option('seconds', '3,6,12').split(',').map(Number);
const TAIL = Number(option('tail', '40'));
const REPEATS = Number(option('repeats', '5'));
const PARTIAL_MS = 500;

/** Rows [from, to) of `scores`. */
const rows = (scores: CtcScores, from: number, to: number): Float32Array => scores.data.subarray(from * scores.vocabSize, to * scores.vocabSize);

/** CPU time of one turn's decoding, split by call. */
interface TurnTimes {
  partials: number;
  final: number;
  /** The last partial alone (the latency a client waits for at the end of a long turn). */
  lastPartial: number;
  /** (b) only: advance, peek. */
  advance: number;
  peek: number;
}

const zero = (): TurnTimes => ({ partials: 0, final: 0, lastPartial: 0, advance: 0, peek: 0 });

/** (a) today: decode the whole open turn at every partial, and at the end. */
function today(decoder: CtcBeamDecoder, turn: CtcScores, ends: readonly number[], out: CtcHypothesis[]): TurnTimes {
  const t = zero();
  for (const end of ends) {
    const started = performance.now();
    out.push(decoder.decode({ data: rows(turn, 0, end), frames: end, vocabSize: turn.vocabSize }));
    t.lastPartial = performance.now() - started;
    t.partials += t.lastPartial;
  }
  const started = performance.now();
  out.push(decoder.decode(turn));
  t.final = performance.now() - started;
  return t;
}

/** (b) incremental: advance over the frames older than the tail, peek the tail; advance the rest and finish. */
function incremental(decoder: CtcBeamDecoder, turn: CtcScores, ends: readonly number[], out: CtcHypothesis[]): TurnTimes {
  const t = zero();
  const stream = new CtcBeamStream(decoder);
  let committed = 0;
  for (const end of ends) {
    const started = performance.now();
    const upTo = Math.max(committed, end - TAIL);
    stream.advance(rows(turn, committed, upTo), upTo - committed);
    committed = upTo;
    const advanced = performance.now();
    out.push(stream.peek(rows(turn, committed, end), end - committed));
    const peeked = performance.now();
    t.advance += advanced - started;
    t.peek += peeked - advanced;
    t.lastPartial = peeked - started;
    t.partials += t.lastPartial;
  }
  const started = performance.now();
  stream.advance(rows(turn, committed, turn.frames), turn.frames - committed);
  out.push(stream.finish());
  t.final = performance.now() - started;
  return t;
}

async function main(): Promise<void> {
  const model = await loadModelFolder(modelDir);
  if (model.kind !== 'ctc') throw new Error(`${modelDir} is not a CTC model`);
  const lm = model.lmPath ? CharNgramLm.loadSync(model.lmPath) : null;
  const plan = manifestDecodingPlanner(new Set(lm && model.lmPath ? [model.lmPath] : []))(model);
  const decoder = createDecoder(model.vocabulary, plan, lm);
  if (!(decoder instanceof CtcBeamDecoder)) throw new Error(`${modelDir} decodes greedily: nothing to stream`);
  const framesPerSecond = model.manifest.input.sampleRate / model.manifest.frameStrideSamples;

  // Enough consecutive test utterances for TURNS turns of the longest length.
  const texts = parseKaldiText(readFileSync(join(dataDir, 'alffa-am-train/text'), 'utf8'));
  const ids = readFileSync(join(ROOT, 'training', 'common', 'splits', 'alffa-spk-test.txt'), 'utf8')
    .split('\n')
    .filter(Boolean);
  const longest = Math.max(...SECONDS);
  const utterances = await ctcUtterances(model, texts, ids.slice(0, TURNS + Math.ceil(longest / 2)), (id) =>
    join(dataDir, 'alffa-am-train/flac', `${id}.flac`),
  );
  const V = utterances[0]!.scores.vocabSize;
  const all = utterances.map((u) => u.scores);
  /** `frames` frames from the start of utterance `first` on, across the following ones. */
  const turnFrom = (first: number, frames: number): CtcScores => {
    const data = new Float32Array(frames * V);
    for (let i = first, at = 0; at < frames; i++) {
      const s = all[i % all.length]!;
      const take = Math.min(s.frames, frames - at);
      data.set(s.data.subarray(0, take * V), at * V);
      at += take;
    }
    return { data, frames, vocabSize: V };
  };

  const results = [];
  for (const seconds of SECONDS) {
    const frames = Math.round(seconds * framesPerSecond);
    const turns = Array.from({ length: TURNS }, (_, i) => turnFrom(i, frames));
    const ends: number[] = [];
    for (let k = 1; (k * PARTIAL_MS) / 1000 <= seconds; k++) ends.push(Math.min(frames, Math.floor((k * PARTIAL_MS * framesPerSecond) / 1000)));
    const a: TurnTimes[] = [];
    const b: TurnTimes[] = [];
    let identical = true;
    for (let r = 0; r < REPEATS; r++) {
      const sumA = zero();
      const sumB = zero();
      for (const turn of turns) {
        const outA: CtcHypothesis[] = [];
        const outB: CtcHypothesis[] = [];
        // Alternate which goes first, so that neither always runs on a warmer cache.
        const run = [() => add(sumA, today(decoder, turn, ends, outA)), () => add(sumB, incremental(decoder, turn, ends, outB))];
        if (r % 2 === 1) run.reverse();
        for (const f of run) f();
        if (r === 0) identical &&= JSON.stringify(outA) === JSON.stringify(outB);
      }
      a.push(sumA);
      b.push(sumB);
    }
    const med = (times: TurnTimes[], key: keyof TurnTimes): number => round2(median(times.map((t) => t[key])) / TURNS);
    const total = (times: TurnTimes[]): number => round2(median(times.map((t) => t.partials + t.final)) / TURNS);
    const row = {
      turn_seconds: seconds,
      frames,
      partials: ends.length,
      turns: TURNS,
      today_ms_per_turn: total(a),
      incremental_ms_per_turn: total(b),
      ratio_incremental_to_today: ratio3(total(b), total(a)),
      today_partials_ms: med(a, 'partials'),
      incremental_partials_ms: med(b, 'partials'),
      incremental_advance_ms: med(b, 'advance'),
      incremental_peek_ms: med(b, 'peek'),
      partials_ratio: ratio3(med(b, 'partials'), med(a, 'partials')),
      today_final_ms: med(a, 'final'),
      incremental_final_ms: med(b, 'final'),
      today_last_partial_ms: med(a, 'lastPartial'),
      incremental_last_partial_ms: med(b, 'lastPartial'),
      identical_hypotheses: identical,
    };
    console.log(
      `T=${seconds} s (${frames} frames, ${ends.length} partials): today ${row.today_ms_per_turn} ms/turn, incremental ${row.incremental_ms_per_turn} ms/turn ` +
        `(advance ${row.incremental_advance_ms}, peek ${row.incremental_peek_ms}, final ${row.incremental_final_ms}), ratio ${row.ratio_incremental_to_today}; ` +
        `last partial ${row.today_last_partial_ms} -> ${row.incremental_last_partial_ms} ms; identical ${identical}`,
    );
    results.push(row);
  }
  publishReport('incremental-decoding', {
    model: model.name,
    decoding: { beam_width: decoder.options.beamWidth, lm: model.lmPath ? model.lmPath.slice(ROOT.length + 1) : null },
    logits: `${utterances.length} ALFFA test-group utterances (alffa-spk-test.txt), onnxruntime-node, joined into turns`,
    partial_every_ms: PARTIAL_MS,
    provisional_tail_frames: TAIL,
    frame_ms: 1000 / framesPerSecond,
    repeats: REPEATS,
    results,
  });
}

function add(sum: TurnTimes, t: TurnTimes): void {
  sum.partials += t.partials;
  sum.final += t.final;
  sum.lastPartial += t.lastPartial;
  sum.advance += t.advance;
  sum.peek += t.peek;
}

await main();
