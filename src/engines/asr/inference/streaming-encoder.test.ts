import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pcm16ToFloat, REPO_ROOT, speechAmPcm } from '../../../../test/helpers/fixtures.js';
import { LogMelExtractor } from '../../signal/features/log-mel-features.js';
import { concatSamples } from '../../signal/files/pcm-channels.js';
import { parseManifest } from '../models/model-manifest.js';
import { type EncoderStream, graphShape, StreamingEncoder } from './streaming-encoder.js';

/**
 * Largest absolute difference beyond 4e-6 x the largest |value| of its frame in `want` (float32 sums
 * in another order: an ensemble's log-posteriors reach -2000), and the share of frames with the same
 * argmax token.
 */
function agreement(got: Float32Array, want: Float32Array, vocab: number): { worst: number; same: number } {
  expect(got.length).toBe(want.length);
  let worst = 0;
  let same = 0;
  const frames = want.length / vocab;
  for (let t = 0; t < frames; t++) {
    let g = 0;
    let w = 0;
    let scale = 0;
    for (let v = 0; v < vocab; v++) scale = Math.max(scale, Math.abs(want[t * vocab + v]!));
    for (let v = 0; v < vocab; v++) {
      const i = t * vocab + v;
      worst = Math.max(worst, Math.abs(got[i]! - want[i]!) - 4e-6 * scale);
      if (got[i]! > got[t * vocab + g]!) g = v;
      if (want[i]! > want[t * vocab + w]!) w = v;
    }
    if (g === w) same++;
  }
  return { worst, same: frames === 0 ? 1 : same / frames };
}

// a single model, and an ensemble whose graph holds both members' caches side by side
describe.each([
  { name: 'small-am-v2', subChannels: 256, blocks: 10 },
  { name: 'small-am-v4-ensemble', subChannels: 512, blocks: 20 },
])('streaming encoder ($name streaming.onnx)', ({ name, subChannels, blocks }) => {
  const MODEL = join(REPO_ROOT, 'models', name);
  let encoder: StreamingEncoder;
  let full: ort.InferenceSession;
  let features: Float32Array;
  let nMels: number;

  const fullLogits = async (frames: number): Promise<Float32Array> => {
    const out = await full.run({
      features: new ort.Tensor('float32', features.slice(0, frames * nMels), [1, frames, nMels]),
      lengths: new ort.Tensor('int64', BigInt64Array.of(BigInt(frames)), [1]),
    });
    return out.logits!.data as Float32Array;
  };

  const expectSame = (got: Float32Array, want: Float32Array): void => {
    const { worst, same } = agreement(got, want, encoder.shape.vocabSize);
    expect(worst).toBeLessThan(1e-3);
    expect(same).toBeGreaterThan(0.999);
  };

  beforeAll(async () => {
    const manifest = parseManifest(JSON.parse(readFileSync(join(MODEL, 'manifest.json'), 'utf8')));
    if (manifest.input.kind !== 'log_mel') throw new Error(`${name} takes log-mel features`);
    nMels = manifest.input.nMels;
    features = new LogMelExtractor(manifest.input).compute(pcm16ToFloat(speechAmPcm()));
    encoder = await StreamingEncoder.open(join(MODEL, 'streaming.onnx'));
    full = await ort.InferenceSession.create(join(MODEL, 'model.onnx'), { intraOpNumThreads: 1 });
  });

  afterAll(async () => {
    await encoder?.release();
    await full?.release();
  });

  it('reads the model shape from the graph', () => {
    expect(encoder.shape).toEqual({ nMels: 80, dim: 256, subChannels, blocks, blockCacheFrames: 12, delayFrames: 60, vocabSize: 234 });
  });

  it('gives the full model logits: committed + tail after every step, committed after finish', async () => {
    const total = features.length / nMels;
    expect(total).toBeGreaterThan(800);
    const sizes = [50, 7, 33, 1, 123, 50, 2, 64, 50, 45];
    let stream: EncoderStream = encoder.start();
    const committed: Float32Array[] = [];
    let at = 0;
    for (let k = 0; at < total; k++) {
      const n = Math.min(sizes[k % sizes.length]!, total - at);
      const step = await encoder.step(stream, features.subarray(at * nMels, (at + n) * nMels));
      at += n;
      expect(step.committedFrom).toBe(stream.committedFrames);
      stream = step.stream;
      expect(stream.framesDone % 4).toBe(0);
      expect(stream.framesDone + stream.heldBack.length / nMels).toBe(at);
      committed.push(step.committed);
      if (stream.framesDone > 0) expectSame(concatSamples([...committed, step.tail], Float32Array), await fullLogits(stream.framesDone));
    }
    expect(stream.heldBack.length).toBeGreaterThan(0); // the test covers a ragged last chunk
    const last = await encoder.finish(stream);
    committed.push(last.committed);
    expect(last.stream.finished).toBe(true);
    expect(last.stream.committedFrames).toBe(Math.ceil(total / 4));
    expectSame(concatSamples(committed, Float32Array), await fullLogits(total));
  });

  it('leaves the state it is given unchanged, so a step can be repeated', async () => {
    const first = await encoder.step(encoder.start(), features.subarray(0, 200 * nMels));
    const a = await encoder.step(first.stream, features.subarray(200 * nMels, 300 * nMels));
    const b = await encoder.step(first.stream, features.subarray(200 * nMels, 300 * nMels));
    expect(b.committed).toEqual(a.committed);
    expect(b.tail).toEqual(a.tail);
    expect(first.stream.framesDone).toBe(200);
  });

  it('steps a batch of streams at different points of their turns as it steps each alone', async () => {
    const at = (from: number, to: number) => features.subarray(from * nMels, to * nMels);
    const a = (await encoder.step(encoder.start(), at(0, 400))).stream;
    const b = (await encoder.step(encoder.start(), at(100, 400))).stream;
    const c = encoder.start();
    const d = (await encoder.step(encoder.start(), at(300, 302))).stream; // 2 frames held back
    const streams = [a, b, c, d];
    const chunks = [at(400, 452), at(400, 452), at(0, 52), at(302, 350)]; // fed: 52, 52, 52, 48 (+2 held back)
    const batched = await encoder.stepBatch(streams, chunks);
    for (let i = 0; i < streams.length; i++) {
      const alone = await encoder.step(streams[i]!, chunks[i]!);
      const got = batched[i]!;
      expect(got.stream.framesDone).toBe(alone.stream.framesDone);
      expect(got.stream.heldBack).toEqual(alone.stream.heldBack);
      expect(got.committedFrom).toBe(alone.committedFrom);
      for (const [x, y] of [
        [got.committed, alone.committed],
        [got.tail, alone.tail],
        [got.stream.cacheBlocks, alone.stream.cacheBlocks],
      ] as const) {
        expect(x.length).toBe(y.length);
        expect(agreement(x, y, 1).worst).toBeLessThan(1e-4);
      }
    }
    expect(batched.map((s) => s.committed.length / encoder.shape.vocabSize)).toEqual([13, 13, 0, 0]);
  });

  it('finishes a turn shorter than one chunk', async () => {
    const step = await encoder.step(encoder.start(), features.subarray(0, 3 * nMels));
    expect(step.stream.framesDone).toBe(0);
    const last = await encoder.finish(step.stream);
    expectSame(last.committed, await fullLogits(3));
  });
});

describe('graphShape', () => {
  /** Metadata of a step graph whose tail_logits has `tail` frames (R: right context x blocks). */
  const metadata = (tail: number | string) => {
    const tensor = (name: string, shape: (number | string)[]) => ({ name, isTensor: true as const, type: 'float32' as const, shape });
    return {
      inputMetadata: [
        tensor('features', ['batch', 'chunk', 80]),
        tensor('frames_done', ['batch']),
        tensor('chunk_lengths', ['batch']),
        tensor('cache_features', ['batch', 80, 1]),
        tensor('cache_sub', ['batch', 256, 1]),
        tensor('cache_blocks', ['batch', 10, 256, 12]),
      ],
      outputMetadata: [
        tensor('logits', ['batch', 'chunk_frames', 234]),
        tensor('tail_logits', ['batch', tail, 234]),
        tensor('next_cache_features', ['batch', 80, 'n']),
        tensor('next_cache_sub', ['batch', 256, 'n']),
        tensor('next_cache_blocks', ['batch', 10, 256, 'n']),
      ],
    };
  };

  it('takes the delay from the fixed tail length: a right-context model, a causal one', () => {
    expect(graphShape(metadata(10))).toMatchObject({ blocks: 10, blockCacheFrames: 12, delayFrames: 10 });
    expect(graphShape(metadata(0)).delayFrames).toBe(0);
  });

  it('refuses a graph whose tail length is not fixed', () => {
    expect(() => graphShape(metadata('tail_dim_1'))).toThrow(/tail length is not a fixed size/);
  });
});
