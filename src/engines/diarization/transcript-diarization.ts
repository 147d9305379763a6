import type { Segment } from '../../platform/db/job-records.js';
import { DiarizationError, type DiarizedAudio } from './diarization-thread.js';
import type { DiarizationBackend, DiarizationOptions, SpeechSpan } from './diarize.js';
import { typeSegments } from './segment-typing.js';
import { assignSpeakers, type AssignableWord, type SpeakerSummary, speakerLabel } from './speaker-assignment.js';
import type { SpeakerTurn } from './speaker-turns.js';

/** The longest audio kept for diarization (its 16 kHz samples stay in memory: about 230 MB an hour). */
export const MAX_DIARIZATION_SECONDS = 3 * 3600;

/** Diarization as a caller asks for it (the APIs' `diarization_config`). */
export interface DiarizationRequest {
  readonly backend: DiarizationBackend;
  /** 1-20; null: the clustering decides. */
  readonly minSpeakers: number | null;
  readonly maxSpeakers: number | null;
}

/**
 * What became of a requested diarization: speakers, or the warning saying why there are none;
 * with speakers, a warning says the segment types could not be classified (they stay `speech`),
 * overlaps were not marked, or fewer speakers were found than min_speakers asks for.
 */
export interface FileDiarization {
  readonly speakers: SpeakerSummary | null;
  readonly warning: string | null;
}

/**
 * Runs the diarization core on a whole file's PCM (off the event loop) and answers its speaker
 * turns and segment types. `speech`: the VAD's speech spans, still being computed: the diarizer
 * adds them to `options.speech` when they come (null or a rejection: none), and may do meanwhile
 * what does not need them.
 */
export type Diarizer = (
  pcm: Float32Array,
  options: DiarizationOptions,
  signal: AbortSignal,
  speech?: Promise<readonly SpeechSpan[] | null>,
) => Promise<DiarizedAudio>;

/** How a requested diarization ended: speakers found, failed, ran past its time limit, or not run (a file over MAX_DIARIZATION_SECONDS). */
export type DiarizationOutcome = 'ok' | 'failed' | 'timeout' | 'too_long';

/** What diarizing a file's audio gave: the diarizer's answer, or the warning saying why there are no speakers. */
export type AudioDiarization =
  /** `warning`: speakers were found, but fewer than min_speakers asked for (minSpeakersNote). */
  | { readonly audio: DiarizedAudio; readonly warning: string | null; readonly outcome: 'ok' }
  | { readonly audio: null; readonly warning: string; readonly outcome: Exclude<DiarizationOutcome, 'ok'> };

/**
 * Diarizes a transcribed file and puts the speakers onto its segments: diarizeAudio, then
 * assignDiarization (which say how).
 */
export async function diarizeTranscript(
  pcm: Float32Array | null,
  segments: Segment[],
  words: readonly (readonly AssignableWord[])[],
  request: DiarizationRequest,
  diarizer: Diarizer,
  signal: AbortSignal,
  speech: readonly SpeechSpan[] | null = null,
): Promise<{ segments: Segment[]; diarization: FileDiarization }> {
  return assignDiarization(await diarizeAudio(pcm, request, diarizer, signal, speech), segments, words);
}

/**
 * Diarizes a file's audio (it needs no transcript, so it can run beside recognition). The failure
 * rule: a diarization that fails or times out answers a warning instead of throwing; only an abort
 * (the signal) is rethrown. `pcm` null: the samples were not kept (longer than
 * MAX_DIARIZATION_SECONDS): a warning too. `speech`: the VAD's speech spans (ms), added to the
 * diarizer's energy gate, or a promise of them (handed to the diarizer, which starts meanwhile);
 * null: the energy gate alone.
 */
export async function diarizeAudio(
  pcm: Float32Array | null,
  request: DiarizationRequest,
  diarizer: Diarizer,
  signal: AbortSignal,
  speech: readonly SpeechSpan[] | null | Promise<readonly SpeechSpan[] | null> = null,
): Promise<AudioDiarization> {
  if (pcm === null) {
    return {
      audio: null,
      warning: `Speaker diarization takes at most ${MAX_DIARIZATION_SECONDS / 3600} hours of audio. The transcript has no speaker labels.`,
      outcome: 'too_long',
    };
  }
  try {
    const options = { backend: request.backend, minSpeakers: request.minSpeakers, maxSpeakers: request.maxSpeakers };
    let audio: DiarizedAudio;
    if (speech instanceof Promise) {
      speech.catch(() => undefined); // an abort: the diarizer rejects with it
      audio = await diarizer(pcm, options, signal, speech);
    } else {
      audio = await diarizer(pcm, speech !== null ? { ...options, speech } : options, signal);
    }
    return { audio, warning: minSpeakersNote(audio.turns, request.minSpeakers), outcome: 'ok' };
  } catch (error) {
    if (signal.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const outcome = error instanceof DiarizationError && error.timedOut ? 'timeout' : 'failed';
    return { audio: null, warning: `${sentenceOf(reason)} The transcript has no speaker labels.`, outcome };
  }
}

/**
 * The warning when the diarizer told fewer speakers apart than `min_speakers` asks for (a short
 * file has too few speech windows to hold more); null when the minimum was met or none was asked.
 */
export function minSpeakersNote(turns: readonly SpeakerTurn[], minSpeakers: number | null): string | null {
  if (minSpeakers === null) return null;
  const found = new Set(turns.map((turn) => turn.speaker)).size;
  if (found >= minSpeakers) return null;
  const speakers = found === 1 ? '1 speaker' : `${found} speakers`;
  return `min_speakers is ${minSpeakers}, but only ${speakers} could be told apart: the audio holds too little speech for more.`;
}

/**
 * Puts a file's diarization onto its transcribed segments (split at word times where the speaker
 * changes, `SPEAKER_NN` by first appearance, null on segments without speech) and, when the
 * diarizer classified them, their types (segment-typing.ts: `male`, `female`, `speech`, `music`;
 * music that no segment covers becomes segments of its own; without types every segment is
 * `speech`). A diarization that gave only a warning (or an assignment that throws: a warning too)
 * leaves the segments as they were.
 */
export function assignDiarization(
  diarized: AudioDiarization,
  segments: Segment[],
  words: readonly (readonly AssignableWord[])[],
): { segments: Segment[]; diarization: FileDiarization } {
  if (diarized.audio === null) return { segments, diarization: { speakers: null, warning: diarized.warning } };
  try {
    const { turns, types, typesWarning, overlapWarning } = diarized.audio;
    const assigned = assignSpeakers(segments, words, turns);
    const overlapNote = overlapWarning === null ? null : `${sentenceOf(overlapWarning)} Overlapping speech has one speaker.`;
    const notes = (...more: (string | null)[]): string | null => [diarized.warning, ...more].filter((note) => note !== null).join(' ') || null;
    if (types === null) {
      const typesNote = typesWarning === null ? null : `${sentenceOf(typesWarning)} Segments are typed \`speech\`.`;
      const warning = notes(typesNote, overlapNote);
      return { segments: assigned.segments.map((s) => ({ ...s, type: 'speech' as const })), diarization: { speakers: assigned.speakers, warning } };
    }
    // Segments typed music lose their speaker: number the speakers again by first appearance.
    const typed = renumberSpeakers(typeSegments(assigned.segments, types), assigned.speakers);
    return { segments: typed.segments, diarization: { speakers: typed.speakers, warning: notes(overlapNote) } };
  } catch (error) {
    // Never fails the transcription (as a failed diarization does not).
    const reason = error instanceof Error ? error.message : String(error);
    return {
      segments,
      diarization: { speakers: null, warning: `Speakers could not be assigned: ${sentenceOf(reason)} The transcript has no speaker labels.` },
    };
  }
}

/**
 * `SPEAKER_NN` again in order of first appearance on the segments, then the speakers without a
 * segment in their old order (the count stays).
 */
export function renumberSpeakers(segments: readonly Segment[], speakers: SpeakerSummary): { segments: Segment[]; speakers: SpeakerSummary } {
  const order: string[] = [];
  for (const s of segments) if (s.speaker !== null && !order.includes(s.speaker)) order.push(s.speaker);
  for (const label of speakers.labels) if (!order.includes(label)) order.push(label);
  const renamed = new Map(order.map((label, i) => [label, speakerLabel(i)]));
  return {
    segments: segments.map((s) => (s.speaker === null ? s : { ...s, speaker: renamed.get(s.speaker)! })),
    speakers: { count: speakers.count, labels: order.map((_, i) => speakerLabel(i)) },
  };
}

const sentenceOf = (reason: string): string => (/[.!?]$/.test(reason) ? reason : `${reason}.`);
