/**
 * How long a file's stretches of speech are, and the backend parameters that follow from it: a
 * run is speech frames (20 ms) split by pauses longer than SHORT_TURN_PAUSE_FRAMES; the file's
 * typical run is the length that half its speech time lies in runs shorter than (a time-weighted
 * median). Conversations of short turns (backchannels, quick exchanges) have runs of 1-4 s;
 * monologues and joined-up read sentences 4-10 s. Pure.
 */
import type { BackendParameters } from './diarization-backends.js';
import { SPEAKER_FRAME_MS } from './speaker-features.js';

/** Pauses longer than this (0.2 s) end a run of speech. */
export const SHORT_TURN_PAUSE_FRAMES = Math.round(200 / SPEAKER_FRAME_MS);

/** The time-weighted median length of the speech runs in seconds (0: no speech). */
export function typicalSpeechRunSeconds(speech: Uint8Array, pauseFrames = SHORT_TURN_PAUSE_FRAMES): number {
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
  if (runs.length === 0) return 0;
  runs.sort((a, b) => a - b);
  const total = runs.reduce((sum, n) => sum + n, 0);
  let covered = 0;
  for (const n of runs) {
    covered += n;
    if (2 * covered >= total) return (n * SPEAKER_FRAME_MS) / 1000;
  }
  return (runs[runs.length - 1]! * SPEAKER_FRAME_MS) / 1000;
}

/** The parameters for a file with these speech frames: the short-turn overrides when its typical run is short. */
export function parametersForSpeech(parameters: BackendParameters, speech: Uint8Array): BackendParameters {
  const short = parameters.shortTurns;
  if (short === null) return parameters;
  const typical = typicalSpeechRunSeconds(speech);
  return typical > 0 && typical < short.belowRunSeconds ? { ...parameters, ...short.overrides } : parameters;
}
