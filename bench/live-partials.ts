/**
 * Live partials (issue 30): what interim results from live streams (the model's step graph, the
 * beam kept between partials) read and cost, against re-running the open turn at every partial
 * (today's path without a step graph), on held-out speech, both measured in this run on one
 * inference pool (one worker, one intra-op thread).
 *
 * Each held-out ALFFA utterance (the val and test speaker groups, bench/held-out-audio.ts) is one
 * turn, with partials every 500 ms of its audio:
 *   - rerun: the pool decodes the whole turn so far at each partial (beam search with the LM);
 *   - stream: the new 500 ms go to the turn's live stream (pool.openStream), which answers the
 *     partial (committed frames + provisional tail) and its stable words.
 * The turn's final is the whole-turn decode (what the gateway's turn path gives a turn of this
 * audio, and what REST gives). Printed, beside each other:
 *   - CER against the transcripts (ALFFA scoring form) of the final, of the last stream partial
 *     (what a single-pass final from the stream's frames would read, less the turn's last 25 ms)
 *     and of the last rerun partial; and the trivial empty transcript (100%);
 *   - how far the last partial is from the final (CER of one against the other): convergence;
 *   - stable words: the share of partial words marked stable, and how many stable texts a
 *     later partial of the same turn contradicted (must be 0);
 *   - worker ms per audio second of partials for both paths and their ratio (worker time as
 *     the pool reports it: features, model and decoder), and the stream path's split by part.
 *
 *   npm run bench:live-partials [-- --model models/small-am-v2 --data ../shared/data --per-group 4]
 * Writes bench/results/live-partials-<model>.json.
 */
import { join, resolve } from 'node:path';
import { manifestDecodingPlanner } from '../src/engines/asr/inference/decoding-planner.js';
import { InferencePool } from '../src/engines/asr/inference/inference-pool.js';
import { poolSpecFor } from '../src/engines/asr/inference/model-specs.js';
import { loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { editDistance, scoredCharacterErrorRate, scoringForm } from '../src/engines/scoring/character-error-rate.js';
import { option } from './bench-args.js';
import { publishReport, ratio3, round2 } from './bench-results.js';
import { heldOutUtterances, TEST_GROUPS, VALIDATION_GROUPS } from './held-out-audio.js';

const MODEL = resolve(option('model', join(process.cwd(), 'models', 'small-am-v2')));
const DATA = option('data', join(process.cwd(), '..', 'shared', 'data'));
const PER_GROUP = Number(option('per-group', '4'));
const STEP = 8000; // 500 ms of 16 kHz audio

const model = await loadModelFolder(MODEL);
if (model.kind !== 'ctc' || !model.streaming) throw new Error(`${MODEL} has no streaming step graph with stream-stats.json`);
const spec = poolSpecFor(model, manifestDecodingPlanner({ has: () => true })(model));
const utterances = await heldOutUtterances(DATA, [...VALIDATION_GROUPS, ...TEST_GROUPS], PER_GROUP);
const pool = await InferencePool.start({ workers: 1, intraOpThreads: 1, maxWaitMs: 0, interactiveMaxWaitMs: 0 });

const words = (text: string): string[] => text.split(' ').filter((w) => w.length > 0);
const finals: string[] = [];
const lastStream: string[] = [];
const lastRerun: string[] = [];
let audioSeconds = 0;
let rerunMs = 0;
let streamMs = 0;
let partialWords = 0;
let stableWords = 0;
let contradicted = 0;
let partials = 0;
try {
  await pool.load(spec);
  for (const [i, u] of utterances.entries()) {
    const whole = await pool.run(spec.name, { data: u.pcm, length: u.pcm.length }, { priority: 'interactive' });
    finals.push(whole.decoded!.hypothesis.text);
    const stream = pool.openStream(spec.name);
    const stable: string[][] = [];
    let streamText = '';
    let rerunText = '';
    for (let end = STEP; end - STEP < u.pcm.length; end += STEP) {
      const to = Math.min(end, u.pcm.length);
      // alternate which path goes first, so that neither always finds the caches warm
      const runStream = async () => {
        const partial = await stream.step(u.pcm.slice(end - STEP, to), end === STEP);
        streamMs += partial.workerMs / partial.batchSize;
        streamText = partial.text;
        partialWords += words(partial.text).length;
        stableWords += words(partial.stableText).length;
        stable.push(words(partial.stableText));
        for (const earlier of stable) if (words(partial.text).slice(0, earlier.length).join(' ') !== earlier.join(' ')) contradicted++;
      };
      const runRerun = async () => {
        const result = await pool.run(spec.name, { data: u.pcm, length: to }, { priority: 'partial' });
        rerunMs += result.workerMs / result.batchSize;
        rerunText = result.decoded!.hypothesis.text;
      };
      if ((end / STEP) % 2 === 0) {
        await runStream();
        await runRerun();
      } else {
        await runRerun();
        await runStream();
      }
      partials++;
    }
    stream.close();
    lastStream.push(streamText);
    lastRerun.push(rerunText);
    audioSeconds += u.pcm.length / 16_000;
    process.stdout.write(`\r${i + 1}/${utterances.length} utterances`);
  }
} finally {
  await pool.close();
}
process.stdout.write('\n');

const references = utterances.map((u) => u.reference);
const cer = (hypotheses: readonly string[], against: readonly string[] = references): number =>
  round2(scoredCharacterErrorRate([...against], [...hypotheses], 'am').cer * 100);
const distance = (a: readonly string[], b: readonly string[]): number => {
  let edits = 0;
  let letters = 0;
  a.forEach((text, i) => {
    const x = scoringForm(text, 'am');
    const y = scoringForm(b[i]!, 'am');
    edits += editDistance(x, y);
    letters += y.length;
  });
  return round2((100 * edits) / Math.max(1, letters));
};
const stats = pool.stats().streams;
publishReport(`live-partials-${model.name}`, {
  bench: 'live-partials',
  model: model.name,
  data: `ALFFA held-out speaker groups ${[...VALIDATION_GROUPS, ...TEST_GROUPS].join(', ')}, ${PER_GROUP} utterances each`,
  utterances: utterances.length,
  audio_seconds: round2(audioSeconds),
  partials,
  cer_percent: {
    final_whole_turn: cer(finals),
    last_stream_partial: cer(lastStream),
    last_rerun_partial: cer(lastRerun),
    empty_transcript: cer(utterances.map(() => '')),
  },
  last_partial_vs_final_percent: { stream: distance(lastStream, finals), rerun: distance(lastRerun, finals) },
  stable_words: { share_of_partial_words: round2(stableWords / Math.max(1, partialWords)), contradicted_by_a_later_partial: contradicted },
  worker_ms_per_audio_second_of_partials: {
    rerun: round2(rerunMs / audioSeconds),
    stream: round2(streamMs / audioSeconds),
    stream_to_rerun: ratio3(streamMs, rerunMs),
    stream_parts_ms_per_audio_second: {
      features: round2(stats.featuresMs / audioSeconds),
      model: round2(stats.modelMs / audioSeconds),
      decoder: round2(stats.decodeMs / audioSeconds),
    },
  },
});
