/**
 * The diarization pipeline, who spoke when: 16 kHz mono PCM in, speaker turns in ms out. It
 * composes the stages (each in its own file, working on 20 ms speaker frames): speech frames
 * (speech-mask.ts), window embeddings (speaker-windows.ts), the windows' speakers
 * (window-clustering.ts), a speaker per frame (frame-labels.ts), overlapped speech's second
 * speakers (overlap-detector.ts) and turns (speaker-turns.ts). Also the entry point's contract:
 * its options, and the types and backends its importers read here.
 */
import { BACKENDS, type BackendParameters, type DiarizationBackend, EMBEDDING_BACKENDS } from './diarization-backends.js';
import { speakerCount, speakerFrameLabels } from './frame-labels.js';
import { type OverlapDetector, overlapFrameFeatures, overlapProbabilities, overlapRegions } from './overlap-detector.js';
import { trackPitch } from './pitch-track.js';
import { centredFrames, type SpeakerFrames, speakerFrames } from './speaker-features.js';
import type { SpeakerProjection } from './speaker-projection.js';
import { secondSpeakers, type SpeakerTurn, toTurns } from './speaker-turns.js';
import { embeddedWindows, type ModelWindowEmbeddings } from './speaker-windows.js';
import { parametersForSpeech } from './speech-runs.js';
import { energyRangeDb, energySpeechMask, type SpeechSpan } from './speech-mask.js';
import { clusterWindows } from './window-clustering.js';

export {
  BACKENDS,
  type BackendParameters,
  DIARIZATION_BACKENDS,
  type DiarizationBackend,
  EMBEDDING_BACKENDS,
  MAX_SPEAKERS,
} from './diarization-backends.js';
export type { SpeakerTurn } from './speaker-turns.js';
export type { SpeechSpan } from './speech-mask.js';

export interface DiarizationOptions {
  readonly backend: DiarizationBackend;
  /** 1-20; null lets the threshold decide. */
  readonly minSpeakers: number | null;
  readonly maxSpeakers: number | null;
  /**
   * Speech spans in ms from a VAD (the Silero VAD's): their frames are speech whatever their level
   * (a quiet speaker the energy gate misses), added to the energy gate's speech. Absent: the energy gate alone.
   */
  readonly speech?: readonly SpeechSpan[];
  /** Regions in ms speech is confined to (the audio outside music); frames outside them are never given a speaker. Absent: all the audio. */
  readonly within?: readonly SpeechSpan[];
  /** Overlap-aware backends (backend_a): the overlapped-speech detector; absent: one speaker per frame. */
  readonly overlapDetector?: OverlapDetector;
  /** The file's pitch-track periodicity (pitch-track.ts, every 10 ms) when the caller has it (the segment typing's); computed when the detector needs it otherwise. */
  readonly periodicity?: Float32Array;
}

/** What diarize computes of the audio before the windows: the speaker frames and which of them are speech. */
export interface DiarizationFrames {
  readonly features: SpeakerFrames;
  readonly speech: Uint8Array;
}

/** The file's speaker frames and speech mask (the energy gate, the VAD's spans, confined to `within`). */
export function diarizationFrames(pcm: Float32Array, options: Pick<DiarizationOptions, 'speech' | 'within'>): DiarizationFrames {
  const features = speakerFrames(pcm);
  return { features, speech: energySpeechMask(features, options.speech, options.within) };
}

/** A backend's parameters for these speaker embeddings: EMBEDDING_BACKENDS' for a speaker-embedding network, BACKENDS' otherwise. */
export function diarizationParameters(backend: DiarizationBackend, speakers: SpeakerProjection | ModelWindowEmbeddings): BackendParameters {
  return speakers.kind === 'model' ? EMBEDDING_BACKENDS[backend] : BACKENDS[backend];
}

/**
 * Who spoke when, from 16 kHz mono PCM: an embedding per window (with the i-vector model: the
 * i-vector of the window's speech frames on the file's principal directions; with a linear
 * projection: projected MFCC means and deviations; with a speaker-embedding network: its
 * embeddings of the windows' speech, computed beforehand on `frames`), the speaker count by the eigengap (or a
 * threshold) within the speaker bounds, spectral clustering (or cosine agglomerative), Viterbi re-segmentation
 * of the windows against the clusters' centroids, a label per speech frame from the windows
 * covering it, short pauses bridged and short runs merged into their neighbours.
 * Synchronous and CPU-bound: call it from a worker (the inference pool), not the event loop.
 */
export function diarize(
  pcm: Float32Array,
  options: DiarizationOptions,
  projection: SpeakerProjection | ModelWindowEmbeddings,
  parameters: BackendParameters = diarizationParameters(options.backend, projection),
  frames: DiarizationFrames = diarizationFrames(pcm, options),
): SpeakerTurn[] {
  const { features, speech } = frames;
  // Short-turn conversations take their own windows and clustering (a network's windows are fixed beforehand).
  const chosen = projection.kind === 'model' ? parameters : parametersForSpeech(parameters, speech);
  const { windows, centred } = embeddedWindows(features, speech, chosen, projection);
  if (windows.length === 0) return [];
  const labels = clusterWindows(
    windows.map((w) => w.embedding),
    options.minSpeakers,
    options.maxSpeakers,
    chosen,
  );
  const primary = speakerFrameLabels(features.frames, speech, windows, labels, options.minSpeakers, chosen);
  const detector = options.overlapDetector;
  if (!chosen.overlapAware || detector === undefined || speakerCount(primary) < 2) return toTurns(primary);
  // The detector learnt clean conversations: on a noisy file its marks are mostly wrong.
  if (energyRangeDb(features) < chosen.overlapMinRangeDb) return toTurns(primary);
  const periodicity = options.periodicity ?? trackPitch(pcm).periodicity;
  // The MFCCs centred on the file's speech: the i-vector path's when it computed them.
  const inputs = overlapFrameFeatures(features, centred ?? centredFrames(features, speech), speech, periodicity);
  const regions = overlapRegions(overlapProbabilities(inputs, detector), speech, detector.threshold, detector.minFrames);
  return toTurns(primary, secondSpeakers(primary, regions));
}
