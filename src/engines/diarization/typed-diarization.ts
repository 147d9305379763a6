import type { DiarizationFrames, DiarizationOptions, SpeakerTurn } from './diarize.js';
import { diarizationFrames, diarize, EMBEDDING_BACKENDS } from './diarize.js';
import { type TypingFrames, typingFrames } from './music-detector.js';
import { type AudioTypes, classifySpeakers, detectMusic, outsideRegions, type SegmentTypeModel, typeTurns } from './segment-type.js';
import type { SpeakerProjection } from './speaker-projection.js';
import { type ModelWindowEmbeddings, speechWindowSpans, type WindowSpan } from './speaker-windows.js';

/** The first half of a typed diarization: the typing frames and the music regions (no speech spans needed). */
export interface AudioTyping {
  /** Null without a type model, or when the typing threw (`typesWarning` says why). */
  readonly typing: { readonly frames: TypingFrames; readonly music: AudioTypes['music'][number][] } | null;
  readonly typesWarning: string | null;
}

/**
 * The typing frames and music regions of a file (with a type model): what diarizeTyped needs
 * before the clustering, and all it needs of the audio that the VAD's speech spans do not touch,
 * so the diarization thread computes it while the spans are still coming.
 */
export function typeAudio(pcm: Float32Array, model: SegmentTypeModel | null): AudioTyping {
  if (model === null) return { typing: null, typesWarning: null };
  try {
    const frames = typingFrames(pcm);
    return { typing: { frames, music: detectMusic(frames, model) }, typesWarning: null };
  } catch (error) {
    return { typing: null, typesWarning: `Segment types were not classified: ${error instanceof Error ? error.message : String(error)}` };
  }
}

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
  return diarizeTyped(pcm, options, projection, model, typeAudio(pcm, model));
}

/**
 * The options `diarize` runs with after the typing: music is nobody's speech, so the speech (energy
 * and the VAD's spans alike) is confined to the audio outside it, and the typing's pitch track
 * serves the overlap detector too (its periodicity). Without a typing, `options` as they are.
 */
export function typedOptions(pcm: Float32Array, options: DiarizationOptions, typed: AudioTyping): DiarizationOptions {
  const { typing } = typed;
  if (typing === null) return options;
  const durationMs = (pcm.length / 16_000) * 1000;
  return {
    ...options,
    periodicity: typing.frames.track.periodicity,
    ...(typing.music.length > 0 ? { within: outsideRegions(typing.music, durationMs) } : {}),
  };
}

/**
 * diarizeWithTypes's second half, on `typed` (typeAudio of the same `pcm` and `model`). With a
 * speaker-embedding network, `embedding` holds its window embeddings and `frames` the speaker frames
 * they were computed on (diarizationFrames of `typedOptions`).
 */
export function diarizeTyped(
  pcm: Float32Array,
  options: DiarizationOptions,
  embedding: SpeakerProjection | ModelWindowEmbeddings,
  model: SegmentTypeModel | null,
  typed: AudioTyping,
  frames?: DiarizationFrames,
): { turns: SpeakerTurn[]; types: AudioTypes | null; typesWarning: string | null } {
  const { typing } = typed;
  if (model === null || typing === null) return { turns: diarize(pcm, options, embedding, undefined, frames), types: null, typesWarning: typed.typesWarning };
  const turns = diarize(pcm, typedOptions(pcm, options, typed), embedding, undefined, frames);
  const speakers = classifySpeakers(typing.frames.track, turns, typing.music, model);
  const typedTurns = typeTurns(typing.frames.track, turns, typing.music, speakers, model);
  return { turns, types: { music: typing.music, speakers, turns: typedTurns }, typesWarning: null };
}

/** What embeds diarization windows with a speaker-embedding network (SpeakerEmbeddingModel.embedWindows). */
export interface WindowEmbedder {
  embedWindows(pcm: Float32Array, speech: Uint8Array, spans: readonly WindowSpan[]): Promise<ModelWindowEmbeddings>;
}

/**
 * diarizeTyped with a speaker-embedding network, as the diarization thread runs it: the speech
 * frames of the typed options, the speech windows of the backend's EMBEDDING_BACKENDS parameters,
 * their embeddings by the network (asynchronous, batched), then the pure pipeline on them.
 * `windows`: how many windows the network embedded.
 */
export async function diarizeTypedWithModel(
  pcm: Float32Array,
  options: DiarizationOptions,
  embedder: WindowEmbedder,
  model: SegmentTypeModel | null,
  typed: AudioTyping,
): Promise<{ turns: SpeakerTurn[]; types: AudioTypes | null; typesWarning: string | null; windows: number }> {
  const frames = diarizationFrames(pcm, typedOptions(pcm, options, typed));
  const spans = speechWindowSpans(frames.speech, frames.features.frames, EMBEDDING_BACKENDS[options.backend]);
  const embeddings = await embedder.embedWindows(pcm, frames.speech, spans);
  return { ...diarizeTyped(pcm, options, embeddings, model, typed, frames), windows: spans.length };
}
