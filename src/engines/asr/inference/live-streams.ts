// Live streams of one inference worker (issue 30): per stream, the open turn's incremental
// log-mel features with running normalisation, the streaming step graph's state and the beam
// search kept between partials, so that each 10 ms frame is computed once per turn.
// Rules and lifetimes:
// - A stream lives from a step with `restart` until `close` (or a later `restart` of the same
//   id) and dies with its worker. A step for an id this worker does not hold answers `lost`:
//   the caller restarts the stream with the turn's audio from its start.
// - One `step` call runs every stream's new frames through the graph together
//   (StreamingEncoder.stepBatch: one run per distinct chunk length).
// - A partial's text is the beam's best hypothesis over the committed frames plus the graph's
//   provisional tail (CtcBeamStream.peekText; the tail searched with the stream's tail beam,
//   which may be narrower); `stableText` is the whole words every beam prefix starts with
//   (CtcBeamStream.stablePrefix). A greedy plan decodes the frames kept so far.
// - Features are normalised causally (RunningNormalizer from the model's stream statistics),
//   so a partial's text may differ slightly from a whole-turn decode (docs/streaming.md).
import { CtcBeamDecoder } from '../decoding/ctc-beam-decoder.js';
import { CtcBeamStream } from '../decoding/ctc-beam-stream.js';
import type { CtcDecoder, CtcHypothesis, CtcVocabulary } from '../decoding/ctc-types.js';
import type { LogMelExtractor, LogMelInput } from '../../signal/features/log-mel-features.js';
import { type FeatureStatistics, RunningNormalizer } from '../../signal/features/running-normalizer.js';
import { StreamingLogMel } from '../../signal/features/streaming-log-mel.js';
import type { EncoderStream, StreamingEncoder } from './streaming-encoder.js';

export interface StreamStepRequest {
  readonly streamId: number;
  /** The turn's samples after those of the previous step (with `restart`, from the turn's start). */
  readonly pcm: Float32Array;
  /** Starts the stream afresh (a new turn, or one this worker lost). */
  readonly restart: boolean;
  readonly keyterms: readonly string[] | null;
  /** The turn ends after `pcm`: its last frames are computed, the beam closed, and the stream ends (the result has `final`). */
  readonly finish: boolean;
  /**
   * With `restart`: the beam over each partial's provisional tail (LIVE_PARTIAL_TAIL_BEAM), at
   * most the decoder's; null or absent: the decoder's own. Committed frames keep the full beam.
   */
  readonly tailBeamWidth?: number | null;
}

export type StreamStepResult =
  | {
      readonly streamId: number;
      readonly ok: true;
      readonly text: string;
      readonly stableText: string;
      readonly frames: number;
      /** A finishing step's hypothesis over every frame of the turn (as a whole-turn decode of the same features gives it). */
      readonly final?: { readonly hypothesis: CtcHypothesis; readonly frames: number };
    }
  | { readonly streamId: number; readonly ok: false; readonly lost: boolean; readonly message: string };

/** What one model needs for live streams in a worker. */
export interface LiveStreamModel {
  readonly encoder: StreamingEncoder;
  readonly input: LogMelInput;
  readonly statistics: FeatureStatistics;
  readonly vocabulary: CtcVocabulary;
  /** The model's decoder for these keyterms (null: none). */
  readonly decoderFor: (keyterms: readonly string[] | null) => Promise<CtcDecoder>;
}

/** A decoder that keeps the frames and decodes them whole at every partial (greedy plans: linear and cheap). */
class FramesKept {
  private data = new Float32Array(0);
  private frames = 0;

  constructor(
    private readonly decoder: CtcDecoder,
    private readonly vocabSize: number,
  ) {}

  advance(logits: Float32Array, frames: number): void {
    const next = new Float32Array((this.frames + frames) * this.vocabSize);
    next.set(this.data);
    next.set(logits.subarray(0, frames * this.vocabSize), this.data.length);
    this.data = next;
    this.frames += frames;
  }

  /** The whole decode (greedy: no beam, so there is no tail beam to narrow). */
  peekText(tail: Float32Array, tailFrames: number, _tailBeamWidth?: number): string {
    return this.peek(tail, tailFrames).text;
  }

  peek(tail: Float32Array, tailFrames: number): CtcHypothesis {
    const all = new Float32Array((this.frames + tailFrames) * this.vocabSize);
    all.set(this.data);
    all.set(tail.subarray(0, tailFrames * this.vocabSize), this.data.length);
    return this.decoder.decode({ data: all, frames: this.frames + tailFrames, vocabSize: this.vocabSize });
  }

  finish(): CtcHypothesis {
    return this.peek(new Float32Array(0), 0);
  }
}

interface LiveStream {
  readonly features: StreamingLogMel;
  readonly normalizer: RunningNormalizer;
  encoder: EncoderStream;
  readonly search: CtcBeamStream | FramesKept;
  /** The beam over a partial's tail (undefined: the decoder's). */
  readonly tailBeamWidth: number | undefined;
}

/** Complete words of a stable prefix: all of them when its labels end at a word delimiter, else all but the last. */
function stableWords(search: CtcBeamStream, vocabulary: CtcVocabulary): string {
  const prefix = search.stablePrefix();
  if (prefix.text.length === 0) return '';
  const last = prefix.labels[prefix.labels.length - 1];
  const delimiter = vocabulary.wordDelimiter;
  const words = prefix.text.split(' ');
  const ended = last !== undefined && (delimiter === null ? vocabulary.tokens[last] === ' ' : vocabulary.tokens[last] === delimiter);
  return (ended ? words : words.slice(0, -1)).join(' ');
}

/** Where a step batch's time went, ms. */
export interface StreamStepTimes {
  /** Log-mel features and their running normalisation. */
  featuresMs: number;
  /** The step graph's runs. */
  modelMs: number;
  /** The beam search (committed frames, the tail's peek, the stable prefix). */
  decodeMs: number;
}

export class LiveStreams {
  private readonly streams = new Map<number, LiveStream>();
  /** Streams whose (re)start waits for its decoder, and those of them closed meanwhile (not to be kept). */
  private readonly opening = new Set<number>();
  private readonly closedWhileOpening = new Set<number>();

  /** The frame extractor every stream of this worker shares (built at the first stream, closed at release). */
  private frameExtractor: LogMelExtractor | null = null;

  constructor(private readonly model: LiveStreamModel) {}

  get size(): number {
    return this.streams.size;
  }

  close(streamIds: readonly number[]): void {
    for (const id of streamIds) {
      this.streams.delete(id);
      if (this.opening.has(id)) this.closedWhileOpening.add(id);
    }
  }

  /** Drops every stream and releases the step graph (the worker is closing). */
  release(): Promise<void> {
    this.streams.clear();
    this.frameExtractor?.close();
    this.frameExtractor = null;
    return this.model.encoder.release();
  }

  /** Feeds every request's audio, runs the new frames through the graph together, and answers each with its partial. */
  async step(requests: readonly StreamStepRequest[], times?: StreamStepTimes): Promise<StreamStepResult[]> {
    const results: StreamStepResult[] = new Array(requests.length);
    let started = performance.now();
    const live: { index: number; stream: LiveStream; features: Float32Array }[] = [];
    for (const [index, request] of requests.entries()) {
      let stream = request.restart ? undefined : this.streams.get(request.streamId);
      if (request.restart) stream = await this.open(request);
      if (stream === undefined) {
        results[index] = { streamId: request.streamId, ok: false, lost: true, message: 'the stream is not open in this worker' };
        continue;
      }
      const raw = request.finish ? stream.features.finish(request.pcm) : stream.features.push(request.pcm);
      live.push({ index, stream, features: stream.normalizer.apply(raw) });
    }
    const lap = (): number => {
      const now = performance.now();
      const ms = now - started;
      started = now;
      return ms;
    };
    if (times) times.featuresMs += lap();
    if (live.length > 0) {
      const { encoder, vocabulary } = this.model;
      const vocabSize = encoder.shape.vocabSize;
      const steps = await encoder.stepBatch(
        live.map((l) => l.stream.encoder),
        live.map((l) => l.features),
      );
      if (times) times.modelMs += lap();
      for (const [i, { index, stream }] of live.entries()) {
        const step = steps[i]!;
        stream.encoder = step.stream;
        stream.search.advance(step.committed, step.committed.length / vocabSize);
        const request = requests[index]!;
        if (request.finish) {
          // the held-back frames and the tail, committed: the turn's last frames
          const last = await encoder.finish(stream.encoder);
          stream.search.advance(last.committed, last.committed.length / vocabSize);
          const hypothesis = stream.search.finish();
          const frames = last.stream.committedFrames;
          this.streams.delete(request.streamId);
          results[index] = { streamId: request.streamId, ok: true, text: hypothesis.text, stableText: hypothesis.text, frames, final: { hypothesis, frames } };
          continue;
        }
        const text = stream.search.peekText(step.tail, step.tail.length / vocabSize, stream.tailBeamWidth);
        results[index] = {
          streamId: request.streamId,
          ok: true,
          text,
          stableText: stream.search instanceof CtcBeamStream ? stableWords(stream.search, vocabulary) : '',
          frames: step.stream.committedFrames + step.tail.length / vocabSize,
        };
      }
      if (times) times.decodeMs += lap();
    }
    return results;
  }

  private async open(request: StreamStepRequest): Promise<LiveStream> {
    const { encoder, input, statistics, vocabulary } = this.model;
    this.opening.add(request.streamId);
    let decoder: CtcDecoder;
    try {
      decoder = await this.model.decoderFor(request.keyterms);
    } finally {
      this.opening.delete(request.streamId);
    }
    const beam = decoder instanceof CtcBeamDecoder ? decoder : null;
    const tail = request.tailBeamWidth ?? null;
    const stream: LiveStream = {
      features: new StreamingLogMel(input, (this.frameExtractor ??= StreamingLogMel.frameExtractor(input))),
      normalizer: new RunningNormalizer(statistics),
      encoder: encoder.start(),
      search: beam !== null ? new CtcBeamStream(beam) : new FramesKept(decoder, vocabulary.tokens.length),
      tailBeamWidth: beam !== null && tail !== null ? Math.min(tail, beam.options.beamWidth) : undefined,
    };
    // a close that came while the decoder was built ends the stream after this step
    if (!this.closedWhileOpening.delete(request.streamId)) this.streams.set(request.streamId, stream);
    return stream;
  }
}
