import type { DiarizationOptions, SpeakerTurn } from './diarize.js';
import { diarize } from './diarize.js';
import { typingFrames } from './music-detector.js';
import { type AudioTypes, classifySpeakers, detectMusic, outsideRegions, type SegmentTypeModel, typeTurns } from './segment-type.js';
import type { SpeakerProjection } from './speaker-projection.js';

/**
 * Diarization with segment types, as the diarization thread runs it: music regions first (left out
 * of the clustering: music is nobody's speech), `diarize` on the rest, then each speaker's voice
 * from all its turns and each turn's type (its own voice when long enough, else its speaker's). `model` null, or a typing that throws (`typesWarning` says why): turns only.
 */
export function diarizeWithTypes(
  pcm: Float32Array,
  options: DiarizationOptions,
  projection: SpeakerProjection,
  model: SegmentTypeModel | null,
): { turns: SpeakerTurn[]; types: AudioTypes | null; typesWarning: string | null } {
  if (model === null) return { turns: diarize(pcm, options, projection), types: null, typesWarning: null };
  let typing: { frames: ReturnType<typeof typingFrames>; music: AudioTypes['music'][number][] };
  try {
    const frames = typingFrames(pcm);
    typing = { frames, music: detectMusic(frames, model) };
  } catch (error) {
    const typesWarning = `Segment types were not classified: ${error instanceof Error ? error.message : String(error)}`;
    return { turns: diarize(pcm, options, projection), types: null, typesWarning };
  }
  const durationMs = (pcm.length / 16_000) * 1000;
  // Music is nobody's speech: the speech (energy and the VAD's spans alike) is confined to the audio outside it.
  const spans = typing.music.length > 0 ? { ...options, within: outsideRegions(typing.music, durationMs) } : options;
  const turns = diarize(pcm, spans, projection);
  const speakers = classifySpeakers(typing.frames.track, turns, typing.music, model);
  const typedTurns = typeTurns(typing.frames.track, turns, typing.music, speakers, model);
  return { turns, types: { music: typing.music, speakers, turns: typedTurns }, typesWarning: null };
}
