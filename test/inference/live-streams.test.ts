// Live streams on the inference pool (issue 30): partials from a model's streaming step graph,
// the turn fed 500 ms at a time, against the same pool's whole-turn decode of the same audio.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestDecodingPlanner } from '../../src/engines/asr/inference/decoding-planner.js';
import { ModelRunError, StreamLostError } from '../../src/engines/asr/inference/inference-errors.js';
import { InferencePool, type PoolModelSpec, type StreamPartial } from '../../src/engines/asr/inference/inference-pool.js';
import { poolSpecFor } from '../../src/engines/asr/inference/model-specs.js';
import { loadModelFolder } from '../../src/engines/asr/models/model-loader.js';
import { editDistance } from '../../src/engines/scoring/character-error-rate.js';
import { pcm16ToFloat, REPO_ROOT, speechAmPcm } from '../helpers/fixtures.js';

const HALF_SECOND = 8000;
let pool: InferencePool;
let spec: PoolModelSpec;
let pcm: Float32Array;

beforeAll(async () => {
  const model = await loadModelFolder(`${REPO_ROOT}/models/small-am-v2`);
  if (model.kind !== 'ctc') throw new Error('not a CTC model');
  spec = poolSpecFor(model, manifestDecodingPlanner({ has: () => true })(model));
  pool = await InferencePool.start({ workers: 1, intraOpThreads: 1 });
  await pool.load(spec);
  pcm = pcm16ToFloat(speechAmPcm());
}, 60_000);

afterAll(() => pool.close());

/** Feeds `audio` to a new stream in `chunk`-sample steps; every partial. */
async function streamed(audio: Float32Array, chunk: number, tailBeamWidth: number | null = null): Promise<StreamPartial[]> {
  const stream = pool.openStream(spec.name, null, tailBeamWidth);
  const partials: StreamPartial[] = [];
  for (let at = 0; at < audio.length; at += chunk) partials.push(await stream.step(audio.slice(at, at + chunk), at === 0));
  stream.close();
  return partials;
}

const words = (text: string): string[] => text.split(' ').filter((w) => w.length > 0);

describe('live streams (small-am-v2 streaming.onnx)', () => {
  it("the last partial reads as the whole turn's decode: the same words up to the running normalisation", async () => {
    const whole = await pool.run(spec.name, { data: pcm, length: pcm.length }, { priority: 'interactive' });
    const reference = whole.decoded!.hypothesis.text;
    const partials = await streamed(pcm, HALF_SECOND);
    const last = partials.at(-1)!.text;
    expect(reference.length).toBeGreaterThan(20);
    // measured 0.0 on this fixture, 8 % on 15 held-out utterances (docs/streaming.md)
    expect(editDistance([...last], [...reference]) / reference.length).toBeLessThan(0.1);
    // every output frame of the audio is decoded (40 ms frames; the last window's frames wait for more audio)
    expect(partials.at(-1)!.frames).toBeGreaterThanOrEqual(Math.floor(pcm.length / 640) - 1);
  }, 60_000);

  it('stable text only grows and every later partial starts with it', async () => {
    // the turn's end (a second of silence after the speech) settles the beam
    const withPause = new Float32Array(pcm.length + 4 * HALF_SECOND);
    withPause.set(pcm);
    const partials = await streamed(withPause, HALF_SECOND);
    for (const [i, partial] of partials.entries()) {
      const stable = words(partial.stableText);
      expect(words(partial.text).slice(0, stable.length)).toEqual(stable);
      for (const later of partials.slice(i + 1)) expect(words(later.text).slice(0, stable.length)).toEqual(stable);
    }
    // (on this fixture the beam keeps "የ ኢትዮጵያ" and "የኢትዮጵያ" to the end, so nothing is stable:
    // the rule is exact, not eager; 18 % of partial words were stable on 15 held-out utterances)
  }, 60_000);

  it("a narrower tail beam (LIVE_PARTIAL_TAIL_BEAM) changes only the tail: stable text and the final are the full beam's", async () => {
    const withPause = new Float32Array(pcm.length + 4 * HALF_SECOND);
    withPause.set(pcm);
    const finished = async (tailBeamWidth: number | null) => {
      const stream = pool.openStream(spec.name, null, tailBeamWidth);
      const partials: StreamPartial[] = [];
      for (let at = 0; at < withPause.length; at += HALF_SECOND) partials.push(await stream.step(withPause.slice(at, at + HALF_SECOND), at === 0));
      const final = await stream.finish(new Float32Array(0), false);
      return { partials, final: final.final!.hypothesis };
    };
    const full = await finished(null);
    const narrow = await finished(1);
    // wider than the model's beam (16): the model's beam, so every partial is the full beam's
    const wide = await finished(64);
    expect(narrow.partials.map((p) => p.stableText)).toEqual(full.partials.map((p) => p.stableText));
    expect(narrow.final).toEqual(full.final);
    expect(wide.partials.map((p) => p.text)).toEqual(full.partials.map((p) => p.text));
    // the tail is searched differently (not vacuous), yet the partial text converges to the same final
    expect(narrow.partials.some((p, i) => p.text !== full.partials[i]!.text)).toBe(true);
    expect(() => pool.openStream(spec.name, null, 0)).toThrow(RangeError);
  }, 60_000);

  it('the chunking does not change the text: 500 ms steps and 3 s steps end alike', async () => {
    const small = await streamed(pcm, HALF_SECOND);
    const large = await streamed(pcm, 6 * HALF_SECOND);
    expect(large.at(-1)!.text).toBe(small.at(-1)!.text);
  }, 60_000);

  it("streams stepping together share the worker's batch, each with its own state", async () => {
    const a = pool.openStream(spec.name);
    const b = pool.openStream(spec.name);
    const quiet = new Float32Array(2 * HALF_SECOND);
    const [pa, pb] = await Promise.all([a.step(pcm.slice(0, 4 * HALF_SECOND), true), b.step(quiet, true)]);
    expect(pa.batchSize).toBe(2);
    expect(pb.batchSize).toBe(2);
    expect(pa.text.length).toBeGreaterThan(0);
    expect(pb.text).toBe('');
    a.close();
    b.close();
  }, 60_000);

  it('a restart feeds the turn afresh; a closed stream refuses steps', async () => {
    const stream = pool.openStream(spec.name);
    await stream.step(new Float32Array(4 * HALF_SECOND).fill(0.3), true);
    const restarted = await stream.step(pcm.slice(0, 4 * HALF_SECOND), true);
    const fresh = await streamed(pcm.slice(0, 4 * HALF_SECOND), 4 * HALF_SECOND);
    expect(restarted.text).toBe(fresh.at(-1)!.text);
    stream.close();
    stream.close();
    await expect(stream.step(pcm.slice(0, HALF_SECOND), false)).rejects.toThrow(/closed/);
  }, 60_000);

  it('a stream the worker does not hold is lost until restarted', async () => {
    const stream = pool.openStream(spec.name);
    // never started: the worker answers `lost`
    await expect(stream.step(pcm.slice(0, HALF_SECOND), false)).rejects.toBeInstanceOf(StreamLostError);
    await expect(stream.step(pcm.slice(0, HALF_SECOND), false)).rejects.toBeInstanceOf(StreamLostError);
    await expect(stream.step(pcm.slice(0, HALF_SECOND), true)).resolves.toMatchObject({ batchSize: 1 });
    stream.close();
  }, 60_000);

  it('a model without a step graph has no streams', async () => {
    pool.register({ ...spec, name: 'no-graph', streaming: null });
    expect(() => pool.openStream('no-graph')).toThrow(ModelRunError);
  });
  it("finish computes the turn's last frames and closes the stream; chunking does not change the final", async () => {
    const chunked = pool.openStream(spec.name);
    for (let at = 0; at < pcm.length; at += HALF_SECOND) await chunked.step(pcm.slice(at, at + HALF_SECOND), at === 0);
    const a = await chunked.finish(new Float32Array(0), false);
    const whole = pool.openStream(spec.name);
    const b = await whole.finish(pcm.slice(), true);
    expect(a.final).toBeDefined();
    expect(b.final!.hypothesis.text).toBe(a.final!.hypothesis.text);
    // every output frame of the turn: ceil(samples / 640) as the whole-turn model gives them
    expect(a.final!.frames).toBe(Math.ceil((Math.floor(pcm.length / 160) + 1) / 4));
    expect(a.final!.hypothesis.words.length).toBeGreaterThan(3);
    await expect(chunked.step(pcm.slice(0, HALF_SECOND), false)).rejects.toThrow(/closed/);
    const reference = (await pool.run(spec.name, { data: pcm, length: pcm.length }, { priority: 'interactive' })).decoded!.hypothesis.text;
    expect(editDistance([...a.final!.hypothesis.text], [...reference]) / reference.length).toBeLessThan(0.1);
  }, 60_000);
});
