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
 * audio, and what REST gives). After the last partial the stream is finished with no more audio:
 * its own final over every frame (`stream_final`, what LIVE_FINAL_PASS=stream gives: the
 * end-of-sentence LM terms, which a partial leaves out, included). Printed, beside each other:
 *   - CER against the transcripts (ALFFA scoring form) of the final, of the last stream partial
 *     (what a single-pass final from the stream's frames would read, less the turn's last 25 ms)
 *     and of the last rerun partial; and the trivial empty transcript (100%);
 *   - how far the last partial is from the final (CER of one against the other): convergence;
 *   - stable words: the share of partial words marked stable, and how many stable texts a
 *     later partial of the same turn contradicted (must be 0);
 *   - worker ms per audio second of partials for both paths and their ratio (worker time as
 *     the pool reports it: features, model and decoder), and the stream path's split by part.
 *
 * With --tail-beams N[,M...] (LIVE_PARTIAL_TAIL_BEAM) more paths run beside them on the same model:
 * live streams whose provisional tail is searched with a beam of N; each prints its worker time
 * (and the decoder's part), its last partial's CER and distance to the final, and how far each of
 * its partials reads from the full-beam stream's partial at the same point (pooled CER of one
 * against the other: what the narrower tail changes, since the committed frames are the same).
 *
 * With --partials-model DIR (LIVE_PARTIAL_MODELS) a third path runs beside them: partials from
 * that model's live stream (a cheaper, bounded look-ahead model), finals still from --model; its
 * CER, its distance to --model's finals, its stable words and its worker time are printed the same
 * way (`partials_model`), so today's stream and the cheaper one are compared in one run.
 *
 *   npm run bench:live-partials [-- --model models/small-am-v2 --data ../shared/data --per-group 4
 *                                   --partials-model models/small-am-stream-v3 --groups all|val|test
 *                                   --tail-beams 4,1 --out-suffix -NAME]
 * Writes bench/results/live-partials-<model>[-partials-<partials model>][NAME].json.
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
const PARTIALS_MODEL = option('partials-model', '');
const DATA = option('data', join(process.cwd(), '..', 'shared', 'data'));
const PER_GROUP = Number(option('per-group', '4'));
/** `val` or `test` keeps those speaker groups only (say, to choose decoding weights on val); `all` both. */
const GROUP_SETS: Record<string, readonly string[]> = { all: [...VALIDATION_GROUPS, ...TEST_GROUPS], val: VALIDATION_GROUPS, test: TEST_GROUPS };
const GROUPS = GROUP_SETS[option('groups', 'all')];
if (GROUPS === undefined) throw new Error('--groups is all, val or test');
const OUT_SUFFIX = option('out-suffix', '');
const TAIL_BEAMS = option('tail-beams', '')
  .split(',')
  .filter((w) => w !== '')
  .map(Number);
if (TAIL_BEAMS.some((w) => !Number.isInteger(w) || w < 1)) throw new Error('--tail-beams is a comma-separated list of beam widths >= 1');
const STEP = 8000; // 500 ms of 16 kHz audio

async function streamingSpec(dir: string) {
  const loaded = await loadModelFolder(resolve(dir));
  if (loaded.kind !== 'ctc' || !loaded.streaming) throw new Error(`${dir} has no streaming step graph with stream-stats.json`);
  return { model: loaded, spec: poolSpecFor(loaded, manifestDecodingPlanner({ has: () => true })(loaded)) };
}
const { model, spec } = await streamingSpec(MODEL);
const partialsModel = PARTIALS_MODEL === '' ? null : await streamingSpec(PARTIALS_MODEL);
if (partialsModel !== null && partialsModel.model.language !== model.language) throw new Error('--partials-model is of another language');
const utterances = await heldOutUtterances(DATA, [...GROUPS], PER_GROUP);
const pool = await InferencePool.start({ workers: 1, intraOpThreads: 1, maxWaitMs: 0, interactiveMaxWaitMs: 0 });

const words = (text: string): string[] => text.split(' ').filter((w) => w.length > 0);

/** One path of live-stream partials (a model's stream): its last partials, stable words, worker time and parts. */
class StreamPath {
  readonly last: string[] = [];
  readonly finals: string[] = [];
  /** Every partial's text, in the order all paths step. */
  readonly texts: string[] = [];
  ms = 0;
  partialWords = 0;
  stableWords = 0;
  contradicted = 0;
  readonly parts = { featuresMs: 0, modelMs: 0, decodeMs: 0 };
  #stream: ReturnType<typeof pool.openStream> | null = null;
  #stable: string[][] = [];
  #text = '';
  constructor(
    readonly modelName: string,
    readonly tailBeamWidth: number | null = null,
  ) {}
  open(): void {
    this.#stream = pool.openStream(this.modelName, null, this.tailBeamWidth);
    this.#stable = [];
    this.#text = '';
  }
  async step(pcm: Float32Array, restart: boolean): Promise<void> {
    // the pool's counters are shared by every stream: a step's parts are the counters' change while it ran alone
    const before = { ...pool.stats().streams };
    const partial = await this.#stream!.step(pcm, restart);
    const after = pool.stats().streams;
    this.parts.featuresMs += after.featuresMs - before.featuresMs;
    this.parts.modelMs += after.modelMs - before.modelMs;
    this.parts.decodeMs += after.decodeMs - before.decodeMs;
    this.ms += partial.workerMs / partial.batchSize;
    this.#text = partial.text;
    this.texts.push(partial.text);
    this.partialWords += words(partial.text).length;
    this.stableWords += words(partial.stableText).length;
    this.#stable.push(words(partial.stableText));
    for (const earlier of this.#stable) if (words(partial.text).slice(0, earlier.length).join(' ') !== earlier.join(' ')) this.contradicted++;
  }
  /** Ends the turn with no more audio: the stream's own final over every frame (what LIVE_FINAL_PASS=stream gives; not timed). */
  async finish(): Promise<void> {
    const result = await this.#stream!.finish(new Float32Array(0), false);
    this.finals.push(result.final?.hypothesis.text ?? result.text);
  }
  close(): void {
    this.#stream?.close();
    this.last.push(this.#text);
  }
}

const finals: string[] = [];
const lastRerun: string[] = [];
const own = new StreamPath(spec.name);
const cheaper = partialsModel === null ? null : new StreamPath(partialsModel.spec.name);
const narrow = TAIL_BEAMS.map((width) => new StreamPath(spec.name, width));
let audioSeconds = 0;
let rerunMs = 0;
let partials = 0;
try {
  await pool.load(spec);
  if (partialsModel !== null) await pool.load(partialsModel.spec);
  for (const [i, u] of utterances.entries()) {
    const whole = await pool.run(spec.name, { data: u.pcm, length: u.pcm.length }, { priority: 'interactive' });
    finals.push(whole.decoded!.hypothesis.text);
    own.open();
    cheaper?.open();
    for (const path of narrow) path.open();
    let rerunText = '';
    for (let end = STEP; end - STEP < u.pcm.length; end += STEP) {
      const to = Math.min(end, u.pcm.length);
      const runRerun = async () => {
        const result = await pool.run(spec.name, { data: u.pcm, length: to }, { priority: 'partial' });
        rerunMs += result.workerMs / result.batchSize;
        rerunText = result.decoded!.hypothesis.text;
      };
      const even = (end / STEP) % 2 === 0;
      const runStreams = async () => {
        // each step gets its own copy: the pool transfers it to the worker
        const paths = [own, cheaper, ...narrow].filter((path) => path !== null);
        for (const path of even ? paths : paths.reverse()) await path.step(u.pcm.slice(end - STEP, to), end === STEP);
      };
      // alternate which path goes first, so that neither always finds the caches warm
      if (even) {
        await runStreams();
        await runRerun();
      } else {
        await runRerun();
        await runStreams();
      }
      partials++;
    }
    await own.finish();
    await cheaper?.finish();
    for (const path of narrow) await path.finish();
    own.close();
    cheaper?.close();
    for (const path of narrow) path.close();
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
const perAudioSecond = (path: StreamPath) => ({
  features: round2(path.parts.featuresMs / audioSeconds),
  model: round2(path.parts.modelMs / audioSeconds),
  decoder: round2(path.parts.decodeMs / audioSeconds),
});
const stableWords = (path: StreamPath) => ({
  share_of_partial_words: round2(path.stableWords / Math.max(1, path.partialWords)),
  contradicted_by_a_later_partial: path.contradicted,
});
publishReport(`live-partials-${model.name}${cheaper === null ? '' : `-partials-${cheaper.modelName}`}${OUT_SUFFIX}`, {
  bench: 'live-partials',
  model: model.name,
  ...(cheaper === null ? {} : { partials_model: cheaper.modelName }),
  data: `ALFFA held-out speaker groups ${GROUPS.join(', ')}, ${PER_GROUP} utterances each`,
  utterances: utterances.length,
  audio_seconds: round2(audioSeconds),
  partials,
  cer_percent: {
    final_whole_turn: cer(finals),
    last_stream_partial: cer(own.last),
    last_rerun_partial: cer(lastRerun),
    stream_final: cer(own.finals),
    ...(cheaper === null ? {} : { last_partials_model_partial: cer(cheaper.last), partials_model_stream_final: cer(cheaper.finals) }),
    empty_transcript: cer(utterances.map(() => '')),
  },
  last_partial_vs_final_percent: {
    stream: distance(own.last, finals),
    rerun: distance(lastRerun, finals),
    stream_final: distance(own.finals, finals),
    ...(cheaper === null ? {} : { partials_model: distance(cheaper.last, finals) }),
  },
  stable_words: stableWords(own),
  ...(cheaper === null ? {} : { partials_model_stable_words: stableWords(cheaper) }),
  ...(narrow.length === 0
    ? {}
    : {
        tail_beams: narrow.map((path) => ({
          tail_beam_width: path.tailBeamWidth,
          model_beam_width: spec.decode?.plan.kind === 'beam' ? spec.decode.plan.beamWidth : null,
          last_partial_cer_percent: cer(path.last),
          last_partial_vs_final_percent: distance(path.last, finals),
          partials_vs_full_beam_partials_percent: distance(path.texts, own.texts),
          worker_ms_per_audio_second: round2(path.ms / audioSeconds),
          to_full_beam_stream: ratio3(path.ms, own.ms),
          parts_ms_per_audio_second: perAudioSecond(path),
          stable_words: stableWords(path),
        })),
      }),
  worker_ms_per_audio_second_of_partials: {
    rerun: round2(rerunMs / audioSeconds),
    stream: round2(own.ms / audioSeconds),
    stream_to_rerun: ratio3(own.ms, rerunMs),
    stream_parts_ms_per_audio_second: perAudioSecond(own),
    ...(cheaper === null
      ? {}
      : {
          partials_model: round2(cheaper.ms / audioSeconds),
          partials_model_to_rerun: ratio3(cheaper.ms, rerunMs),
          partials_model_to_stream: ratio3(cheaper.ms, own.ms),
          partials_model_parts_ms_per_audio_second: perAudioSecond(cheaper),
        }),
  },
});
