// Incremental acoustic encoding through a model folder's streaming step graph (streaming.onnx,
// training/asr/export_streaming.py; docs/model-format.md "Streaming step graph (optional)").
// Rules:
// - A stream's state is plain data (caches, frames fed, frames held back); `step` returns a new
//   state and never changes the one it was given, so a caller may keep or drop either.
// - The graph takes chunks of a multiple of 4 feature frames: `step` feeds the largest such part
//   of the held-back frames plus the new ones and holds back the rest (at most 3 frames, 30 ms),
//   which `finish` feeds as the turn's ragged last chunk.
// - Committed logits are final (the full model gives the same whatever follows); the tail is
//   the full model's result for the frames fed so far, provisional. Committed logits of all steps
//   followed by the last tail are the full model's logits over the frames fed; `finish` feeds
//   the rest and commits the tail, so all committed logits of a turn are the full model's.
// - Features are the model's input as is: normalising them is the caller's business.
import * as ort from 'onnxruntime-node';
import { cpuSessionOptions } from '../../runtime/onnx-session-options.js';

/** What the graph's tensor shapes say about the model. */
export interface StreamingGraphShape {
  readonly nMels: number;
  /** Channels of the block layers (one model's; an ensemble's members agree). */
  readonly dim: number;
  /** Channels of the sub cache: `dim`, or the members' channels side by side for an ensemble's graph. */
  readonly subChannels: number;
  readonly blocks: number;
  /** Input frames each block keeps: its left plus its right context (kernel - 1). */
  readonly blockCacheFrames: number;
  /**
   * Output frames a logit waits for its right context (blocks x the blocks' right context), the
   * length of the provisional tail: the graph's fixed `tail_logits` length, 0 for a causal model.
   */
  readonly delayFrames: number;
  readonly vocabSize: number;
}

/** One stream's state between steps. */
export interface EncoderStream {
  /** Feature frames fed to the graph (a multiple of 4 until `finish`). */
  readonly framesDone: number;
  /** Frames received but not fed yet, [frames, nMels] row-major (fewer than 4 frames). */
  readonly heldBack: Float32Array;
  readonly cacheFeatures: Float32Array;
  readonly cacheSub: Float32Array;
  readonly cacheBlocks: Float32Array;
  /** Output frames committed so far. */
  readonly committedFrames: number;
  /** The latest provisional logits, [frames, vocab] (the output frames after the committed ones). */
  readonly tail: Float32Array;
  readonly finished: boolean;
}

export interface EncoderStep {
  readonly stream: EncoderStream;
  /** Newly committed logits, [frames, vocab] row-major, output frames from `committedFrom` on. */
  readonly committed: Float32Array;
  readonly committedFrom: number;
  /** Provisional logits of the output frames after the committed ones, as if the turn ended now. */
  readonly tail: Float32Array;
}

const INPUTS = ['features', 'frames_done', 'chunk_lengths', 'cache_features', 'cache_sub', 'cache_blocks'] as const;
const OUTPUTS = ['logits', 'tail_logits', 'next_cache_features', 'next_cache_sub', 'next_cache_blocks'] as const;

/** The graph's shape from its input and output metadata; throws on a graph of another contract. */
export function graphShape(session: Pick<ort.InferenceSession, 'inputMetadata' | 'outputMetadata'>): StreamingGraphShape {
  const dims = (list: readonly ort.InferenceSession.ValueMetadata[], name: string): readonly (number | string)[] => {
    const meta = list.find((m) => m.name === name);
    if (!meta?.isTensor) throw new Error(`the streaming graph has no tensor ${name}`);
    return meta.shape;
  };
  const fixed = (value: number | string | undefined, what: string, least = 1): number => {
    if (typeof value !== 'number' || value < least) throw new Error(`the streaming graph's ${what} is not a fixed size`);
    return value;
  };
  for (const name of INPUTS) dims(session.inputMetadata, name);
  for (const name of OUTPUTS) dims(session.outputMetadata, name);
  const blocksShape = dims(session.inputMetadata, 'cache_blocks');
  return {
    nMels: fixed(dims(session.inputMetadata, 'features')[2], 'feature dimension'),
    dim: fixed(blocksShape[2], 'channel count'),
    subChannels: fixed(dims(session.inputMetadata, 'cache_sub')[1], 'sub cache channel count'),
    blocks: fixed(blocksShape[1], 'block count'),
    blockCacheFrames: fixed(blocksShape[3], 'block cache length'),
    // (a graph exported before the tail length was fixed has a symbolic one: export it again)
    delayFrames: fixed(dims(session.outputMetadata, 'tail_logits')[1], 'tail length', 0),
    vocabSize: fixed(dims(session.outputMetadata, 'logits')[2], 'vocabulary size'),
  };
}

/** A fresh stream: zero caches (the padding before a turn's start), nothing fed. */
export function startStream(shape: StreamingGraphShape): EncoderStream {
  return {
    framesDone: 0,
    heldBack: new Float32Array(0),
    cacheFeatures: new Float32Array(shape.nMels),
    cacheSub: new Float32Array(shape.subChannels),
    cacheBlocks: new Float32Array(shape.blocks * shape.dim * shape.blockCacheFrames),
    committedFrames: 0,
    tail: new Float32Array(0),
    finished: false,
  };
}

/** The step graph on one CPU session. */
export class StreamingEncoder {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly shape: StreamingGraphShape,
  ) {}

  static async open(onnxPath: string, intraOpThreads = 1): Promise<StreamingEncoder> {
    const session = await ort.InferenceSession.create(onnxPath, {
      ...cpuSessionOptions({ intraOpThreads }),
      executionProviders: ['cpu'],
    });
    try {
      return new StreamingEncoder(session, graphShape(session));
    } catch (error) {
      await session.release();
      throw error;
    }
  }

  start(): EncoderStream {
    return startStream(this.shape);
  }

  /** Feeds `features` ([frames, nMels] row-major) after what the stream has held back. */
  async step(stream: EncoderStream, features: Float32Array): Promise<EncoderStep> {
    return (await this.stepBatch([stream], [features]))[0]!;
  }

  /**
   * `step` for several streams (each at its own point of its turn): the streams that feed the
   * same number of frames run as one batch (one graph run per distinct chunk length).
   */
  async stepBatch(streams: readonly EncoderStream[], features: readonly Float32Array[]): Promise<EncoderStep[]> {
    if (streams.length !== features.length) throw new Error('one features array per stream');
    const { nMels } = this.shape;
    const results: EncoderStep[] = new Array(streams.length);
    const groups = new Map<number, { index: number; stream: EncoderStream; chunk: Float32Array; heldBack: Float32Array }[]>();
    streams.forEach((stream, index) => {
      if (stream.finished) throw new Error('the stream is finished');
      const f = features[index]!;
      if (f.length % nMels !== 0) throw new Error(`features are not whole frames of ${nMels}`);
      const all = new Float32Array(stream.heldBack.length + f.length);
      all.set(stream.heldBack);
      all.set(f, stream.heldBack.length);
      const frames = all.length / nMels;
      const fed = frames - (frames % 4);
      if (fed === 0) {
        results[index] = { stream: { ...stream, heldBack: all }, committed: new Float32Array(0), committedFrom: stream.committedFrames, tail: stream.tail };
        return;
      }
      const group = groups.get(fed) ?? [];
      group.push({ index, stream, chunk: all.subarray(0, fed * nMels), heldBack: all.slice(fed * nMels) });
      groups.set(fed, group);
    });
    for (const [fed, rows] of groups) {
      const steps = await this.run(
        rows.map((r) => r.stream),
        rows.map((r) => r.chunk),
        fed,
        rows.map(() => fed),
        rows.map((r) => r.heldBack),
      );
      rows.forEach((r, i) => {
        results[r.index] = steps[i]!;
      });
    }
    return results;
  }

  /** Ends the turn: feeds the held-back frames and commits the tail (the result's `tail` is empty). */
  async finish(stream: EncoderStream): Promise<EncoderStep> {
    if (stream.finished) throw new Error('the stream is finished');
    const frames = stream.heldBack.length / this.shape.nMels;
    let last: EncoderStep = { stream, committed: new Float32Array(0), committedFrom: stream.committedFrames, tail: stream.tail };
    if (frames > 0) {
      const padded = new Float32Array(4 * this.shape.nMels);
      padded.set(stream.heldBack);
      last = (await this.run([stream], [padded], 4, [frames], [new Float32Array(0)]))[0]!;
    }
    const committed = new Float32Array(last.committed.length + last.tail.length);
    committed.set(last.committed);
    committed.set(last.tail, last.committed.length);
    const empty = new Float32Array(0);
    const done: EncoderStream = {
      ...last.stream,
      committedFrames: stream.committedFrames + committed.length / this.shape.vocabSize,
      tail: empty,
      finished: true,
    };
    return { stream: done, committed, committedFrom: stream.committedFrames, tail: empty };
  }

  release(): Promise<void> {
    return this.session.release();
  }

  /** One graph run: `chunks[i]` ([chunkFrames, nMels]) after `streams[i]`, `valid[i]` frames of it real. */
  private async run(
    streams: readonly EncoderStream[],
    chunks: readonly Float32Array[],
    chunkFrames: number,
    valid: readonly number[],
    heldBack: readonly Float32Array[],
  ): Promise<EncoderStep[]> {
    const { nMels, dim, subChannels, blocks, blockCacheFrames, delayFrames, vocabSize } = this.shape;
    const rows = streams.length;
    // the rows' parts, each `[...shape]` in size, as one [rows, ...shape] tensor
    const joined = (parts: readonly Float32Array[], shape: readonly number[]): ort.Tensor => {
      const size = shape.reduce((n, d) => n * d, 1);
      let data = parts[0]!;
      if (rows > 1) {
        data = new Float32Array(rows * size);
        parts.forEach((p, i) => data.set(p, i * size));
      }
      return new ort.Tensor('float32', data, [rows, ...shape]);
    };
    const blockCache = blocks * dim * blockCacheFrames;
    const out = await this.session.run({
      features: joined(chunks, [chunkFrames, nMels]),
      frames_done: new ort.Tensor(
        'int64',
        BigInt64Array.from(streams, (s) => BigInt(s.framesDone)),
        [rows],
      ),
      chunk_lengths: new ort.Tensor(
        'int64',
        BigInt64Array.from(valid, (v) => BigInt(v)),
        [rows],
      ),
      cache_features: joined(
        streams.map((s) => s.cacheFeatures),
        [nMels, 1],
      ),
      cache_sub: joined(
        streams.map((s) => s.cacheSub),
        [subChannels, 1],
      ),
      cache_blocks: joined(
        streams.map((s) => s.cacheBlocks),
        [blocks, dim, blockCacheFrames],
      ),
    });
    const tensor = (name: (typeof OUTPUTS)[number]): Float32Array => {
      const value = out[name];
      if (value?.type !== 'float32') throw new Error(`output ${name} is not float32`);
      return value.data as Float32Array;
    };
    // one row's part of an output (a copy, unless the batch is that row alone)
    const row = (name: (typeof OUTPUTS)[number], i: number, size: number, skip = 0): Float32Array =>
      rows === 1 && skip === 0 ? tensor(name) : tensor(name).slice(i * size + skip, (i + 1) * size);
    const perRow = (chunkFrames / 4) * vocabSize;
    return streams.map((stream, i) => {
      // committed output frames of this chunk start at framesDone/4 - delay; negative ones are padding
      const first = stream.framesDone / 4 - delayFrames;
      const committed = row('logits', i, perRow, Math.max(0, -first) * vocabSize);
      const ends = Math.ceil((stream.framesDone + valid[i]!) / 4);
      const tail = row('tail_logits', i, delayFrames * vocabSize, Math.max(0, delayFrames - ends) * vocabSize);
      const next: EncoderStream = {
        framesDone: stream.framesDone + valid[i]!,
        heldBack: heldBack[i]!,
        cacheFeatures: row('next_cache_features', i, nMels),
        cacheSub: row('next_cache_sub', i, subChannels),
        cacheBlocks: row('next_cache_blocks', i, blockCache),
        committedFrames: stream.committedFrames + committed.length / vocabSize,
        tail,
        finished: false,
      };
      return { stream: next, committed, committedFrom: stream.committedFrames, tail };
    });
  }
}
