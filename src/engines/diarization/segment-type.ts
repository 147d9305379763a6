/**
 * Segment types (the job API's `type`: `speech`, `male`, `female`, `music`) from the audio: the
 * pitch track (pitch-track.ts), music regions (music-detector.ts), and for each speaker the
 * statistics of F0 over all its voiced frames outside music, read by a logistic model as
 * P(female). Inside the model's confidence band the speaker stays `speech`.
 */
import { readFile } from 'node:fs/promises';
import type { SegmentType } from '../../platform/db/job-records.js';
import { type LogisticModel, logisticProbability, networkProbability, parseLogisticModel, parseTinyNetwork, type TinyNetwork } from './small-classifiers.js';
import { MUSIC_FEATURES, type MusicRegion, musicProbabilities, musicRegions, type TypingFrames } from './music-detector.js';
import { PITCH_HOP_MS, type PitchTrack } from './pitch-track.js';

export type { SegmentType };

export const VOICE_FEATURES = ['medianLogF0', 'p10LogF0', 'p90LogF0'] as const;

export interface SegmentTypeModel {
  readonly name: string;
  readonly voice: LogisticModel;
  /** P(music) of a 2 s window's MUSIC_FEATURES. */
  readonly music: TinyNetwork;
  /** P(female) at or below `male` is male, at or above `female` is female; between: speech. */
  readonly voiceBand: { readonly male: number; readonly female: number };
  /** A frame is music at P(music) >= this. */
  readonly musicThreshold: number;
  /** Fewer voiced frames (10 ms) than this: the speaker stays `speech`. */
  readonly minVoicedFrames: number;
}

/** Reads models/segment-types/*.json (written by training/segment-types/segment-types.ts). */
export async function loadSegmentTypeModel(path: string): Promise<SegmentTypeModel> {
  return parseSegmentTypeModel(JSON.parse(await readFile(path, 'utf8')));
}

export function parseSegmentTypeModel(raw: unknown): SegmentTypeModel {
  const r = (raw ?? {}) as Record<string, unknown>;
  const band = (r['voice_band'] ?? {}) as Record<string, unknown>;
  const male = Number(band['male']);
  const female = Number(band['female']);
  if (!(male >= 0 && male <= female && female <= 1)) throw new Error('segment type model: voice_band needs 0 <= male <= female <= 1');
  const musicThreshold = Number(r['music_threshold']);
  if (!(musicThreshold > 0 && musicThreshold < 1)) throw new Error('segment type model: music_threshold must be in (0, 1)');
  const minVoicedFrames = Number(r['min_voiced_frames']);
  if (!Number.isInteger(minVoicedFrames) || minVoicedFrames < 1) throw new Error('segment type model: min_voiced_frames must be a positive integer');
  return {
    name: typeof r['name'] === 'string' ? r['name'] : 'segment-types',
    voice: parseLogisticModel(r['voice'], VOICE_FEATURES, 'segment type model voice'),
    music: parseTinyNetwork(r['music'], MUSIC_FEATURES, 'segment type model music'),
    voiceBand: { male, female },
    musicThreshold,
    minVoicedFrames,
  };
}

/** Music regions of a tracked file. */
export function detectMusic(frames: TypingFrames, model: SegmentTypeModel): MusicRegion[] {
  return musicRegions(
    musicProbabilities(frames, (x) => networkProbability(model.music, x)),
    model.musicThreshold,
    PITCH_HOP_MS,
  );
}

/** [0, durationMs) less the music regions: the spans diarization may give speakers. */
export function outsideRegions(regions: readonly MusicRegion[], durationMs: number): MusicRegion[] {
  const out: MusicRegion[] = [];
  let at = 0;
  for (const region of regions) {
    if (region.startMs > at) out.push({ startMs: at, endMs: region.startMs });
    at = Math.max(at, region.endMs);
  }
  if (at < durationMs) out.push({ startMs: at, endMs: durationMs });
  return out;
}

/** Quantile q of the sorted values (linear interpolation). */
function quantile(sorted: Float64Array, q: number): number {
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** VOICE_FEATURES of pooled F0 values (Hz); null when there are none. */
export function voiceFeatures(f0: ArrayLike<number>): Float64Array | null {
  if (f0.length === 0) return null;
  const logs = new Float64Array(f0.length);
  for (let i = 0; i < f0.length; i++) logs[i] = Math.log2(f0[i]!);
  logs.sort();
  return Float64Array.of(quantile(logs, 0.5), quantile(logs, 0.1), quantile(logs, 0.9));
}

export interface VoiceDecision {
  readonly type: SegmentType;
  /** P(female) from the model; null when too few voiced frames. */
  readonly pFemale: number | null;
  readonly medianF0: number | null;
  readonly voicedFrames: number;
}

/** `male` / `female` / `speech` for pooled voiced F0 values (Hz). */
export function classifyVoice(f0: ArrayLike<number>, model: SegmentTypeModel): VoiceDecision {
  const x = voiceFeatures(f0);
  if (x === null || f0.length < model.minVoicedFrames)
    return { type: 'speech', pFemale: null, medianF0: x === null ? null : 2 ** x[0]!, voicedFrames: f0.length };
  const p = logisticProbability(model.voice, x);
  const type: SegmentType = p <= model.voiceBand.male ? 'male' : p >= model.voiceBand.female ? 'female' : 'speech';
  return { type, pFemale: p, medianF0: 2 ** x[0]!, voicedFrames: f0.length };
}

/** 1 on the frames inside music regions. */
export function musicMask(track: PitchTrack, music: readonly MusicRegion[]): Uint8Array {
  const mask = new Uint8Array(track.frames);
  for (const region of music)
    mask.fill(1, Math.max(0, Math.floor(region.startMs / PITCH_HOP_MS)), Math.min(track.frames, Math.ceil(region.endMs / PITCH_HOP_MS)));
  return mask;
}

/** The voiced F0 values of the frames inside `spans` (which do not overlap) and outside the music of `mask`; visits only the spans' frames. */
export function voicedF0Within(track: PitchTrack, spans: readonly MusicRegion[], mask: Uint8Array): Float64Array {
  const range = (span: MusicRegion): [number, number] => [
    Math.max(0, Math.floor(span.startMs / PITCH_HOP_MS)),
    Math.min(track.frames, Math.ceil(span.endMs / PITCH_HOP_MS)),
  ];
  let n = 0;
  for (const span of spans) {
    const [from, to] = range(span);
    for (let t = from; t < to; t++) if (mask[t] === 0 && track.f0[t]! > 0) n++;
  }
  const out = new Float64Array(n);
  n = 0;
  for (const span of spans) {
    const [from, to] = range(span);
    for (let t = from; t < to; t++) if (mask[t] === 0 && track.f0[t]! > 0) out[n++] = track.f0[t]!;
  }
  return out;
}

/** A speaker's (diarization's number) voice. */
export interface SpeakerVoice extends VoiceDecision {
  readonly speaker: number;
}

/** The type of every speaker in `turns`, from all its voiced frames outside music. */
export function classifySpeakers(
  track: PitchTrack,
  turns: readonly { readonly startMs: number; readonly endMs: number; readonly speaker: number }[],
  music: readonly MusicRegion[],
  model: SegmentTypeModel,
): SpeakerVoice[] {
  const speakers = [...new Set(turns.map((t) => t.speaker))].sort((a, b) => a - b);
  const mask = musicMask(track, music);
  return speakers.map((speaker) => ({
    speaker,
    ...classifyVoice(
      voicedF0Within(
        track,
        turns.filter((t) => t.speaker === speaker),
        mask,
      ),
      model,
    ),
  }));
}

/** A speaker turn with its type. */
export interface TypedTurn {
  readonly startMs: number;
  readonly endMs: number;
  readonly speaker: number;
  readonly type: SegmentType;
}

/** Voiced frames (10 ms) a turn needs for a voice decision of its own (1 s). */
export const MIN_TURN_VOICED_FRAMES = 100;

/**
 * Each turn's type: its own voice decision when it holds at least MIN_TURN_VOICED_FRAMES voiced
 * frames and that decision is sure, else its speaker's (pooled over all the speaker's turns). A
 * turn long enough to judge on its own survives a clustering that put a man and a woman in one
 * speaker; short turns lean on the speaker.
 */
export function typeTurns(
  track: PitchTrack,
  turns: readonly { readonly startMs: number; readonly endMs: number; readonly speaker: number }[],
  music: readonly MusicRegion[],
  speakers: readonly SpeakerVoice[],
  model: SegmentTypeModel,
): TypedTurn[] {
  const pooled = new Map(speakers.map((s) => [s.speaker, s.type]));
  const mask = musicMask(track, music);
  return turns.map((turn) => {
    const f0 = voicedF0Within(track, [turn], mask);
    const own = f0.length >= MIN_TURN_VOICED_FRAMES ? classifyVoice(f0, model).type : 'speech';
    return { startMs: turn.startMs, endMs: turn.endMs, speaker: turn.speaker, type: own !== 'speech' ? own : (pooled.get(turn.speaker) ?? 'speech') };
  });
}

/** What the audio says about segment types: its music regions, each speaker's voice and each turn's type. */
export interface AudioTypes {
  readonly music: MusicRegion[];
  readonly speakers: SpeakerVoice[];
  readonly turns: TypedTurn[];
}
