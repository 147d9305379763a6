/**
 * The diarization pipeline, who spoke when: 16 kHz mono PCM in, speaker turns in ms out. It
 * composes the stages (each in its own file, working on 20 ms speaker frames): speech frames
 * (speech-mask.ts), window embeddings (speaker-windows.ts), the windows' speakers
 * (window-clustering.ts), a speaker per frame (frame-labels.ts), overlapped speech's second
 * speakers (overlap-detector.ts) and turns (speaker-turns.ts). Also the entry point's contract:
 * its options, and the types and backends its importers read here.
 */
import { BACKENDS, type BackendParameters, type DiarizationBackend, EMBEDDING_BACKENDS, MAX_SPEAKERS } from './diarization-backends.js';
import { speakerCount, speakerFrameLabels, votedFrameLabels } from './frame-labels.js';
import { type OverlapDetector, overlapFrameFeatures, overlapProbabilities, overlapRegions } from './overlap-detector.js';
import { type PitchTrack, trackPitch } from './pitch-track.js';
import { centredFrames, MFCC_COEFFICIENTS, type SpeakerFrames, speakerFrames } from './speaker-features.js';
import type { SpeakerProjection } from './speaker-projection.js';
import { pauselessChangeRegions, secondSpeakers, type SpeakerTurn, toTurns } from './speaker-turns.js';
import { embeddedWindows, type ModelWindowEmbeddings } from './speaker-windows.js';
import { parametersForSpeech } from './speech-runs.js';
import { energyRangeDb, energySpeechMask, type SpeechSpan } from './speech-mask.js';
import { vbResegment } from './vb-resegmentation.js';
import { mergeSameVoices } from './voice-merge.js';
import { clusterWindows } from './window-clustering.js';
import { withPitch } from './window-pitch.js';

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
  /** The file's pitch track (pitch-track.ts, every 10 ms) when the caller has it (the segment typing's); computed when the windows' pitch or the overlap detector needs it otherwise. */
  readonly pitch?: PitchTrack;
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
  const embedded = chosen.ivectorFrameMs === 10 && projection.kind === 'ivector' ? halfFrameWindows(pcm, speech, chosen, projection) : embeddedWindows(features, speech, chosen, projection);
  const { centred } = embedded;
  if (embedded.windows.length === 0) return [];
  let pitch = options.pitch ?? null;
  const track = (): PitchTrack => (pitch ??= trackPitch(pcm));
  const windows = chosen.pitchWeight > 0 ? withPitch(embedded.windows, track().f0, speech, chosen) : embedded.windows;
  let labels = clusterWindows(
    windows.map((w) => w.embedding),
    options.minSpeakers,
    options.maxSpeakers,
    chosen,
    chosen.clusterPauseFrames > 0 ? windows.map((w) => !hasPause(speech, w.startFrame, w.endFrame, chosen.clusterPauseFrames)) : undefined,
  );
  const countOpen = (options.minSpeakers ?? 1) < (options.maxSpeakers ?? MAX_SPEAKERS);
  if (chosen.voiceMergeSimilarity !== null && countOpen && projection.kind === 'ivector' && centred !== null) {
    const voted = votedFrameLabels(features.frames, speech, windows, labels);
    labels = mergeSameVoices(centred, MFCC_COEFFICIENTS, speech, voted, labels, chosen.voiceMergeSimilarity, options.minSpeakers ?? 1);
  }
  const reseg = chosen.resegmentation;
  const refine =
    reseg !== null && projection.kind === 'ivector' && centred !== null ? (initial: Int32Array) => vbResegment(projection, centred, speech, initial, reseg) : undefined;
  const primary = speakerFrameLabels(features.frames, speech, windows, labels, options.minSpeakers, chosen, refine);
  const detector = options.overlapDetector;
  if (chosen.changeOverlapFrames > 0 && speakerCount(primary) >= 2) return toTurns(primary, secondSpeakers(primary, pauselessChangeRegions(primary, chosen.changeOverlapFrames)));
  if (!chosen.overlapAware || detector === undefined || speakerCount(primary) < 2) return toTurns(primary);
  // The detector learnt clean conversations: on a noisy file its marks are mostly wrong.
  if (energyRangeDb(features) < chosen.overlapMinRangeDb) return toTurns(primary);
  // The MFCCs centred on the file's speech: the i-vector path's when it computed them.
  const inputs = overlapFrameFeatures(features, centred ?? centredFrames(features, speech), speech, track().periodicity);
  const regions = overlapRegions(overlapProbabilities(inputs, detector), speech, detector.threshold, detector.minFrames);
  return toTurns(primary, secondSpeakers(primary, regions));
}

/** Whether [start, end) holds a run of at least `minFrames` non-speech frames between two speech frames. */
function hasPause(speech: Uint8Array, start: number, end: number, minFrames: number): boolean {
  let seenSpeech = false;
  let gap = 0;
  for (let t = start; t < end; t++) {
    if (speech[t] === 0) {
      gap++;
      continue;
    }
    if (seenSpeech && gap >= minFrames) return true;
    seenSpeech = true;
    gap = 0;
  }
  return false;
}

/** The windows' i-vectors from speaker frames every 10 ms (twice the statistics of the 20 ms frames), window bounds in 20 ms frames. */
function halfFrameWindows(pcm: Float32Array, speech: Uint8Array, parameters: BackendParameters, projection: SpeakerProjection): ReturnType<typeof embeddedWindows> {
  const fine = speakerFrames(pcm, 10);
  const fineSpeech = new Uint8Array(fine.frames);
  for (let t = 0; t < fine.frames; t++) fineSpeech[t] = speech[t >> 1] ?? 0;
  const { windows } = embeddedWindows(fine, fineSpeech, { ...parameters, windowFrames: 2 * parameters.windowFrames, hopFrames: 2 * parameters.hopFrames }, projection);
  return { windows: windows.map((w) => ({ ...w, startFrame: w.startFrame >> 1, endFrame: Math.min(speech.length, (w.endFrame + 1) >> 1) })), centred: null };
}
