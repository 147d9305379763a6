import { PauseSegmenter, type AudioSegment, type SegmenterOptions } from './pause-segmenter.js';
import type { CtcRecognizer, InferenceCost, Recognition, TimedWord } from './ctc-recognizer.js';
import type { InferencePriority } from '../inference/inference-pool.js';
import type { SpeechGate } from './speech-gate.js';

import type { Segment, SegmentWord } from '../../../platform/db/job-records.js';

export type { Segment };

export interface TranscribedSegment {
  readonly segment: Segment;
  /** The segment's words (also on `segment.words`, in the record's shape), for diarization. */
  readonly words: readonly TimedWord[];
}

export interface TranscriptionProgress {
  readonly stage: 'transcribing';
  /** Pieces of audio finished (speech and pauses alike). */
  readonly doneSegments: number;
  /** Estimated from the audio duration and the pieces so far; equals `doneSegments` at the end. */
  readonly totalSegments: number;
  readonly processedMs: number;
  readonly durationMs: number | null;
}

export interface TranscribeOptions {
  readonly recognizer: CtcRecognizer;
  readonly segmenter?: SegmenterOptions;
  /** Pieces sent to the pool at once (their audio is held until decoded). Default 4. */
  readonly maxInFlight?: number;
  /** Expected duration (from the container) for the progress estimate; null when unknown. */
  readonly durationMs?: number | null;
  readonly priority?: InferencePriority;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: TranscriptionProgress) => void;
  readonly busyRetryMs?: number;
  /** Terms every piece's beam search boosts (checked: checkKeyterms). */
  readonly keyterms?: readonly string[] | null;
  /** The pool's figures of each recognised piece, words or not (live capacity estimation). */
  readonly onInference?: (cost: InferenceCost) => void;
  /**
   * FILE_SPEECH_GATE (speech-gate.ts): only the speech regions of each piece are decoded, each as a
   * segment of its own; a piece without speech is not decoded, and a region the model's calibrated
   * confidence puts under the gate's minimum gives no segment. Absent or null: every piece with
   * sound is decoded whole (the energy segmenter alone).
   */
  readonly speechGate?: SpeechGate | null;
}

const NOMINAL_PIECE_MS = 10_000;

interface Piece {
  readonly audio: AudioSegment;
  /** The piece's segments (none, one, or one per speech region with a speech gate), in order. */
  readonly result: Promise<(TranscribedSegment | null)[]>;
}

/**
 * Transcribes a PCM stream (16 kHz mono float32 chunks) piece by piece: the energy segmenter
 * cuts it at pauses into pieces of at most `maxSegmentMs`, up to `maxInFlight` pieces are
 * recognised concurrently (so the pool can batch them with other jobs' pieces), and segments
 * come out in order as soon as their turn is decoded. Memory is bounded by the segmenter's
 * buffer plus `maxInFlight` pieces, independent of the input's length.
 *
 * Pieces without sound, and pieces where the model recognises nothing, produce no segment; with a
 * speech gate (`speechGate`), a piece's speech regions are decoded one segment each and a piece
 * without speech produces none. Segment ids count the segments produced. Aborting `signal` (or leaving the loop) cancels the
 * pieces in flight and stops pulling `pcm`.
 */
export async function* transcribeStream(pcm: AsyncIterable<Float32Array>, options: TranscribeOptions): AsyncGenerator<TranscribedSegment, void, undefined> {
  const { recognizer } = options;
  const segmenter = new PauseSegmenter({ ...options.segmenter, sampleRate: 16_000 });
  const maxInFlight = Math.max(1, options.maxInFlight ?? 4);
  const durationMs = options.durationMs ?? null;
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const pending: Piece[] = [];
  let nextId = 0;
  let done = 0;
  let processedMs = 0;

  const report = (final: boolean): void => {
    if (!options.onProgress) return;
    let total: number;
    if (final) total = done;
    else {
      const pieceMs = done > 0 ? processedMs / done : NOMINAL_PIECE_MS;
      const remaining = durationMs !== null ? Math.max(0, durationMs - processedMs) : pieceMs;
      total = Math.max(done + pending.length, done + Math.ceil(remaining / Math.max(1, pieceMs)));
      total = Math.max(total, done + 1);
    }
    options.onProgress({ stage: 'transcribing', doneSegments: done, totalSegments: total, processedMs, durationMs });
  };

  /** One segment of `samples` (absolute start `startSample`), null when nothing is recognised. */
  const recognise = (startSample: number, samples: Float32Array): Promise<TranscribedSegment | null> => {
    const startMs = Math.round(startSample / 16);
    return recognizer
      .recognize(samples, { startMs, priority: options.priority ?? 'batch', signal, busyRetryMs: options.busyRetryMs, keyterms: options.keyterms ?? null })
      .then((recognition) => {
        options.onInference?.(recognition.inference);
        const segment = recognizedSegment(recognition, startMs, Math.round((startSample + samples.length) / 16), options.speechGate);
        return segment === null ? null : { segment, words: recognition.words };
      });
  };

  const start = (audio: AudioSegment): Piece => {
    if (!audio.speech) return { audio, result: Promise.resolve([]) };
    const gate = options.speechGate ?? null;
    const result =
      gate === null
        ? recognise(audio.startSample, audio.samples).then((out) => [out])
        : gate
            .regions(audio.samples, signal)
            .then((regions) => Promise.all(regions.map((r) => recognise(audio.startSample + r.from, audio.samples.subarray(r.from, r.to)))));
    result.catch(() => undefined); // observed when its turn comes; avoids an unhandled rejection meanwhile
    return { audio, result };
  };

  const finish = async (piece: Piece): Promise<TranscribedSegment[]> => {
    const outs = await piece.result;
    done++;
    processedMs = Math.round(piece.audio.spanEnd / 16);
    return outs.filter((out) => out !== null).map((out) => ({ segment: { ...out.segment, id: nextId++ }, words: out.words }));
  };

  try {
    report(false);
    for await (const chunk of pcm) {
      signal.throwIfAborted();
      for (const audio of segmenter.push(chunk)) {
        pending.push(start(audio));
        while (pending.length >= maxInFlight) {
          const outs = await finish(pending.shift()!);
          report(false);
          yield* outs;
        }
      }
    }
    signal.throwIfAborted();
    for (const audio of segmenter.flush()) pending.push(start(audio));
    while (pending.length > 0) {
      const outs = await finish(pending.shift()!);
      report(pending.length === 0);
      yield* outs;
    }
    if (done === 0) report(true);
  } finally {
    controller.abort(new Error('transcription stopped'));
  }
}

/** A recognised word as segments carry it (job-records.ts SegmentWord). */
/**
 * A recognised span of audio (`startMs` to `endMs`) as a segment (id -1, for the caller to
 * number); null when it holds no text or text the speech gate drops.
 */
export function recognizedSegment(recognition: Recognition, startMs: number, endMs: number, speechGate?: SpeechGate | null): Segment | null {
  if (recognition.text.length === 0) return null;
  if (speechGate && !speechGate.shouldKeep(recognition)) return null;
  return {
    id: -1,
    start_ms: startMs,
    end_ms: endMs,
    duration_ms: endMs - startMs,
    text: recognition.text,
    speaker: null,
    confidence: recognition.confidence,
    words: recognition.words.map(segmentWord),
  };
}

export function segmentWord(word: TimedWord): SegmentWord {
  return { word: word.text, start_ms: word.start_ms, end_ms: word.end_ms, confidence: word.confidence };
}

/** Collects `transcribeStream` into a list; also returns the audio length seen. */
export async function transcribeAll(
  pcm: AsyncIterable<Float32Array>,
  options: TranscribeOptions,
): Promise<{ segments: Segment[]; words: TimedWord[][]; audioMs: number }> {
  let samples = 0;
  const counted = (async function* () {
    for await (const chunk of pcm) {
      samples += chunk.length;
      yield chunk;
    }
  })();
  const segments: Segment[] = [];
  const words: TimedWord[][] = [];
  for await (const item of transcribeStream(counted, options)) {
    segments.push(item.segment);
    words.push([...item.words]);
  }
  return { segments, words, audioMs: Math.round(samples / 16) };
}
