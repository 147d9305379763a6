/**
 * How often a file's speech stops and starts, and the backend parameters that follow from it: a
 * run is speech frames (20 ms) split by pauses longer than SHORT_TURN_PAUSE_FRAMES, and the rate
 * is runs per minute of speech. Conversations of short turns (backchannels, quick exchanges,
 * overlap) start a new run every 2-4.5 s of speech (13-31 a minute on the realistic development
 * set); monologues and joined-up read sentences every 6-7.5 s (8-10 a minute). Pure.
 */
import type { BackendParameters } from './diarization-backends.js';
import { SPEAKER_FRAME_MS } from './speaker-features.js';

/** Pauses longer than this (0.2 s) end a run of speech. */
export const SHORT_TURN_PAUSE_FRAMES = Math.round(200 / SPEAKER_FRAME_MS);

/** The lengths of the runs of speech, in frames, in time order. */
export function speechRuns(speech: Uint8Array, pauseFrames = SHORT_TURN_PAUSE_FRAMES): number[] {
  const runs: number[] = [];
  let start = -1;
  let lastSpeech = -1;
  for (let t = 0; t <= speech.length; t++) {
    if (t < speech.length && speech[t] !== 0) {
      if (start < 0) start = t;
      lastSpeech = t;
    } else if (start >= 0 && (t === speech.length || t - lastSpeech > pauseFrames)) {
      runs.push(lastSpeech - start + 1);
      start = -1;
    }
  }
  return runs;
}

/** Runs of speech per minute of speech (0: no speech). */
export function speechRunsPerMinute(speech: Uint8Array, pauseFrames = SHORT_TURN_PAUSE_FRAMES): number {
  const runs = speechRuns(speech, pauseFrames);
  const speechFrames = runs.reduce((sum, n) => sum + n, 0);
  return speechFrames === 0 ? 0 : runs.length / ((speechFrames * SPEAKER_FRAME_MS) / 60_000);
}

/** The parameters for a file with these speech frames: the short-turn overrides when its speech starts and stops often. */
export function parametersForSpeech(parameters: BackendParameters, speech: Uint8Array): BackendParameters {
  const short = parameters.shortTurns;
  if (short === null) return parameters;
  return speechRunsPerMinute(speech) >= short.minRunsPerMinute ? { ...parameters, ...short.overrides } : parameters;
}
