// Silero VAD over a whole file (offline): the speech probability of every 32 ms window, and the
// speech spans they give. The file is cut into lanes (contiguous stretches of at least
// MIN_LANE_WINDOWS windows), each fed as a stream of the shared SileroVad, so the lanes of one
// file (and any live streams) meet in the worker's batches; every lane but the first starts
// WARMUP_WINDOWS windows early, so its recurrent state has settled when its own windows begin.
// Feeding keeps at most two chunks of a lane queued or in flight (backpressure), well under the
// per-stream queue bound. All inference runs in the VAD worker thread, never on the event loop.
import { SILERO_SAMPLE_RATE, SILERO_WINDOW } from './silero-model.js';
import type { SileroVad } from './silero-vad.js';

/** Windows of a lane's warm-up (0.5 s), the shortest lane (about 5 s) and the most lanes (the shared VAD's batch). */
const WARMUP_WINDOWS = 16;
const MIN_LANE_WINDOWS = 160;
const MAX_LANES = 64;
/** Windows fed per call of a lane. */
const CHUNK_WINDOWS = 32;
/** How often a waiting file checks whether the VAD has failed or closed. */
const HEALTH_CHECK_MS = 100;

export const SILERO_WINDOW_MS = (SILERO_WINDOW / SILERO_SAMPLE_RATE) * 1000;

export interface SileroFileOptions {
  readonly signal?: AbortSignal;
  /** Most lanes (streams) the file is split into; default 64. */
  readonly maxLanes?: number;
}

/**
 * The speech probability of each whole 512-sample window of 16 kHz mono `pcm` (window i covers
 * samples [512 i, 512 (i + 1))). Rejects when the VAD fails or closes, or with the signal's reason.
 */
export function sileroProbabilities(vad: SileroVad, pcm: Float32Array, options: SileroFileOptions = {}): Promise<Float32Array> {
  options.signal?.throwIfAborted();
  const windows = Math.floor(pcm.length / SILERO_WINDOW);
  const out = new Float32Array(windows);
  if (windows === 0) return Promise.resolve(out);
  const lanes = Math.max(1, Math.min(options.maxLanes ?? MAX_LANES, Math.floor(windows / MIN_LANE_WINDOWS)));
  const per = Math.ceil(windows / lanes);
  return new Promise<Float32Array>((resolve, reject) => {
    const streams: ReturnType<SileroVad['openStream']>[] = [];
    let pending = lanes;
    let settled = false;
    const finish = (error: unknown): void => {
      if (settled) return;
      settled = true;
      clearInterval(health);
      options.signal?.removeEventListener('abort', onAbort);
      for (const s of streams) s.close();
      if (error === null) resolve(out);
      else reject(error);
    };
    const onAbort = (): void => finish(options.signal!.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const health = setInterval(() => {
      if (vad.closed) finish(vad.failure ?? new Error('the Silero VAD closed'));
    }, HEALTH_CHECK_MS);
    try {
      for (let lane = 0; lane < lanes; lane++) {
        const from = lane * per;
        const to = Math.min(windows, from + per);
        const first = Math.max(0, from - WARMUP_WINDOWS);
        let fed = first;
        let answered = first;
        const feedChunk = (): void => {
          if (fed >= to) return;
          const next = Math.min(to, fed + CHUNK_WINDOWS);
          const result = stream.feed(pcm.subarray(fed * SILERO_WINDOW, next * SILERO_WINDOW));
          if (result !== 'ok') {
            finish(vad.failure ?? new Error(`the Silero VAD refused audio (${result})`));
            return;
          }
          fed = next;
        };
        const stream = vad.openStream({
          onProbability: (probability) => {
            if (settled) return;
            if (answered >= from) out[answered] = probability;
            answered++;
            if (answered === to) {
              pending--;
              if (pending === 0) finish(null);
            } else if (fed - answered <= CHUNK_WINDOWS) feedChunk();
          },
        });
        streams.push(stream);
        feedChunk();
        feedChunk();
      }
    } catch (error) {
      finish(error);
    }
  });
}

export interface SpeechSpanOptions {
  /** A window at or over this probability starts speech. */
  readonly threshold: number;
  /** Speech goes on until the probability falls below this. */
  readonly negativeThreshold: number;
  /** Silences shorter than this inside speech are kept as speech. */
  readonly minSilenceMs: number;
  /** Spans shorter than this (after bridging) are dropped. */
  readonly minSpeechMs: number;
  /** Each span is widened by this on both sides (merged where they meet). */
  readonly padMs: number;
}

/**
 * Runs of speech windows, [from, to) in window indices, by hysteresis: a window at or over
 * `threshold` starts a run, which goes on until a window under `negativeThreshold`; a run still
 * open at the end ends at `probabilities.length`.
 */
export function speechWindowRuns(probabilities: ArrayLike<number>, threshold: number, negativeThreshold: number): { from: number; to: number }[] {
  const runs: { from: number; to: number }[] = [];
  let start = -1;
  for (let i = 0; i < probabilities.length; i++) {
    const p = probabilities[i]!;
    if (start < 0 && p >= threshold) start = i;
    else if (start >= 0 && p < negativeThreshold) {
      runs.push({ from: start, to: i });
      start = -1;
    }
  }
  if (start >= 0) runs.push({ from: start, to: probabilities.length });
  return runs;
}

/** Spans in ms from window probabilities (hysteresis, short silences bridged, short spans dropped, padded), as Silero's get_speech_timestamps does. */
export function speechSpans(
  probabilities: Float32Array,
  options: SpeechSpanOptions,
  durationMs = probabilities.length * SILERO_WINDOW_MS,
): { startMs: number; endMs: number }[] {
  const raw = speechWindowRuns(probabilities, options.threshold, options.negativeThreshold).map((run) => ({
    startMs: run.from * SILERO_WINDOW_MS,
    endMs: run.to * SILERO_WINDOW_MS,
  }));
  const bridged: { startMs: number; endMs: number }[] = [];
  for (const span of raw) {
    const last = bridged[bridged.length - 1];
    if (last !== undefined && span.startMs - last.endMs < options.minSilenceMs) last.endMs = span.endMs;
    else bridged.push({ ...span });
  }
  const out: { startMs: number; endMs: number }[] = [];
  for (const span of bridged) {
    if (span.endMs - span.startMs < options.minSpeechMs) continue;
    const padded = { startMs: Math.max(0, span.startMs - options.padMs), endMs: Math.min(durationMs, span.endMs + options.padMs) };
    const last = out[out.length - 1];
    if (last !== undefined && padded.startMs <= last.endMs) last.endMs = Math.max(last.endMs, padded.endMs);
    else out.push(padded);
  }
  return out;
}

/**
 * The spans diarization adds to its energy gate (chosen on the development speaker groups'
 * synthetic conversations only: bench/diarization.ts --tune-vad; figures in docs/diarization.md).
 */
export const DIARIZATION_SPEECH_SPANS: SpeechSpanOptions = {
  threshold: 0.5,
  negativeThreshold: 0.35,
  minSilenceMs: 300,
  minSpeechMs: 250,
  padMs: 0,
};
