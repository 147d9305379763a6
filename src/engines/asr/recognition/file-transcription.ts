import { stat } from 'node:fs/promises';
import type { Segment } from '../../../platform/db/job-records.js';
import { AudioTooLargeError, AudioTooLongError, ChannelCountError, InvalidAudioError } from '../../signal/files/audio-errors.js';
import { sniffAudioFormat, unsupportedAudioMessage } from '../../signal/files/audio-format.js';
import { checkProbedAudio, probeAudio } from '../../signal/files/audio-probe.js';
import type { SegmenterOptions } from './pause-segmenter.js';
import { readHead, splitHead } from '../../signal/files/pcm-head.js';
import { decodeToPcm, PCM_SAMPLE_RATE } from '../../signal/files/pcm-decoder.js';
import { decodesNatively, decodeWebmOpus } from '../../signal/files/webm-opus-decoder.js';
import { audioBandOf, type ModelRegistry } from '../models/model-registry.js';
import { mergeChannelSegments } from './channel-segments.js';
import type { CtcRecognizer } from './ctc-recognizer.js';
import { DETECTION_SECONDS, type LanguageDetection } from './language-detector.js';
import { transcribeAll } from './transcriber.js';
import type { SpeechGate } from './speech-gate.js';
import {
  type AudioDiarization,
  assignDiarization,
  diarizeAudio,
  MAX_DIARIZATION_SECONDS,
  type DiarizationRequest,
  type Diarizer,
  type FileDiarization,
  type DiarizationEvent,
  type SpeechSpan,
} from '../../diarization/diarization.js';
import { PcmReadAhead } from './pcm-read-ahead.js';

export interface FileTranscriptionProgress {
  readonly doneSegments: number;
  /** Estimated from the audio duration; grows if the estimate was short. */
  readonly totalSegments: number;
  readonly stage: 'decoding' | 'detecting_language' | 'transcribing' | 'diarizing';
}

export interface FileTranscriptionRequest {
  /** A local file holding the audio in any supported container. */
  readonly audioPath: string;
  /** `am`, `om`, `ti` or `auto`. */
  readonly language: string;
  /** A model name valid for the language, or null for the language's default. */
  readonly model: string | null;
  readonly signal: AbortSignal;
  readonly onProgress: (progress: FileTranscriptionProgress) => void;
  /** Called once the language is known (detected for `auto`) and the model chosen. */
  readonly onLanguage?: (language: string, model: string) => void;
  /**
   * channels=2: the speaker name of each channel. Each channel is decoded and transcribed on its
   * own and the segments merged in time order with `channel` and `speaker`; a file with fewer
   * channels is refused (ChannelCountError). Absent: all channels mixed to one.
   */
  readonly channelNames?: readonly string[];
  /** Speaker diarization (beside recognition, once the file is decoded); absent or null: none (segments keep `speaker: null`). With channelNames the channels name the speakers and diarization is not run (a warning says so). */
  readonly diarization?: DiarizationRequest | null;
  /**
   * Terms to boost (names, product terms): at most KEYTERM_LIMITS.maxTerms, checked by checkKeyterms
   * (decoding/keyterm-bias.ts); every piece is decoded by a beam search that favours them.
   */
  readonly keyterms?: readonly string[] | null;
  /**
   * Called once the file is probed and passed the server's checks, before any decoding, with its
   * probed duration (null when the container states none): may throw to refuse the file (a key's
   * daily quota), and answers this request's own bound on decoded audio, or null for none.
   */
  readonly admitAudio?: (probedSeconds: number | null) => Promise<AudioAllowance | null>;
}

/** A request's bound on decoded audio: decoding past `maxSeconds` stops with `refuse()`'s error. */
export interface AudioAllowance {
  readonly maxSeconds: number;
  refuse(): Error;
}

/** The longest audio accepted per file when the server sets none (MAX_AUDIO_SECONDS). */
export const DEFAULT_MAX_AUDIO_SECONDS = 4 * 3600;

export interface FileTranscription {
  readonly language: string;
  readonly model: string;
  readonly durationSeconds: number;
  readonly segments: Segment[];
  /** How `auto` was answered; null when the language was given. */
  readonly detection: LanguageDetection | null;
  /** Speakers (or the warning of a failed diarization) when diarization was requested; null otherwise. */
  readonly diarization: FileDiarization | null;
}

/** What a file transcription runs on (held by the Speech façade). */
export interface FileTranscriptionParts {
  readonly registry: ModelRegistry;
  readonly ffmpeg: string;
  readonly ffprobe: string;
  readonly maxAudioBytes: number;
  /** The longest audio accepted per file, probed and decoded (AudioTooLongError past it). Default DEFAULT_MAX_AUDIO_SECONDS. */
  readonly maxAudioSeconds?: number;
  readonly segmenter?: SegmenterOptions;
  readonly maxInFlightPerJob?: number;
  /** FILE_SPEECH_GATE: decode only the speech of each pause-cut piece (speech-gate.ts); absent or null: every piece with sound. */
  readonly speechGate?: SpeechGate | null;
  /** Runs diarization off the event loop (required only for requests that ask for it). */
  readonly diarize?: Diarizer;
  /**
   * The speech spans (ms) of a file's PCM by the Silero VAD (off the event loop), which diarization
   * adds to its energy gate's speech; null when Silero is unavailable or failed (the energy gate
   * alone then). Rejects only with the signal's reason. Absent: the energy gate alone.
   */
  readonly speechSpans?: (pcm: Float32Array, signal: AbortSignal) => Promise<readonly SpeechSpan[] | null>;
  /** Told how each requested diarization ended (metrics); not for aborted ones. */
  readonly onDiarized?: (event: DiarizationEvent) => void;
  recognizerFor(model: string): CtcRecognizer;
  detectLanguage(pcm: Float32Array, signal: AbortSignal): Promise<LanguageDetection>;
}

const SNIFF_HEAD_BYTES = 64;
const CHANNELS_NAME_SPEAKERS = 'Diarization was not run: with channels=2 each channel is one speaker (segments carry `channel` and `speaker`).';

/**
 * Transcribes a stored audio file: size and container checks, ffprobe for the duration, ffmpeg
 * decoding to 16 kHz PCM, language detection on the first seconds for `auto` (the file is
 * decoded once), then pause-cut pieces through the batched pool. Throws errors with registry
 * codes: AudioTooLargeError and AudioTooLongError (`file_too_large`; the duration is bounded
 * on the probe before decoding and on the samples decoded, so a lying header costs no more than
 * the maximum), InvalidAudioError (`invalid_audio_format`; also a stated sample rate under 8 kHz
 * or over 192 kHz), whatever `admitAudio` throws or its allowance refuses with,
 * ChannelCountError (`invalid_field_value`, channels=2 on a mono file),
 * ModelSelectionError (`INVALID_FIELD`, `UNSUPPORTED_*`), ModelRunError (`model_error`),
 * InferenceBusyError (`service_unavailable`, after retrying for a minute); the signal's reason
 * when aborted.
 */
export async function transcribeFile(parts: FileTranscriptionParts, request: FileTranscriptionRequest): Promise<FileTranscription> {
  const { audioPath, signal } = request;
  const { registry } = parts;
  signal.throwIfAborted();
  let choice = registry.resolve(request.language, request.model);
  const size = (await stat(audioPath)).size;
  if (size > parts.maxAudioBytes) throw new AudioTooLargeError(size, parts.maxAudioBytes);
  if (size === 0 || sniffAudioFormat(await readHead(audioPath, SNIFF_HEAD_BYTES)) === null) {
    throw new InvalidAudioError(unsupportedAudioMessage('The file', size));
  }
  request.onProgress({ stage: 'decoding', doneSegments: 0, totalSegments: 0 });
  const probe = await probeAudio(audioPath, { ffprobePath: parts.ffprobe, signal });
  const maxSeconds = parts.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS;
  checkProbedAudio(probe, maxSeconds);
  const names = request.channelNames ?? null;
  if (names !== null && probe.channels < names.length) throw new ChannelCountError(names.length, probe.channels);
  const allowance = (await request.admitAudio?.(probe.durationSeconds)) ?? null;
  signal.throwIfAborted();
  // Narrow-band audio with no model named runs on the default's telephone model (model-registry.ts `resolve`).
  const band = audioBandOf(probe.sampleRate);
  if (choice.model !== null) choice = registry.resolve(choice.language, request.model, band);
  // Decoding stops at the smaller bound: the server's maximum or the request's allowance.
  const bounded = (stream: AsyncIterable<Float32Array>): AsyncGenerator<Float32Array, void, undefined> =>
    allowance !== null && allowance.maxSeconds < maxSeconds
      ? boundDecoded(stream, allowance.maxSeconds, () => allowance.refuse())
      : boundDecoded(stream, maxSeconds, () => new AudioTooLongError(null, maxSeconds));
  // channels=2: language detection (auto) listens to channel 0.
  let pcm: AsyncIterable<Float32Array> = bounded(
    names === null && decodesNatively(probe)
      ? nativeThenFfmpeg(audioPath, parts.ffmpeg, signal)
      : decodeToPcm(audioPath, { ffmpegPath: parts.ffmpeg, signal, ...(names !== null ? { channel: 0 } : {}) }),
  );
  let detection: LanguageDetection | null = null;
  let closeHead: (() => Promise<void>) | null = null;
  try {
    if (choice.model === null) {
      request.onProgress({ stage: 'detecting_language', doneSegments: 0, totalSegments: 0 });
      const split = await splitHead(pcm, DETECTION_SECONDS * PCM_SAMPLE_RATE);
      pcm = split.stream;
      closeHead = split.close;
      detection = await parts.detectLanguage(split.head, signal);
      choice = registry.resolve(detection.language, null, band);
    }
    const model = choice.model!;
    request.onLanguage?.(choice.language, model);
    const options = {
      recognizer: parts.recognizerFor(model),
      segmenter: parts.segmenter,
      maxInFlight: parts.maxInFlightPerJob,
      speechGate: parts.speechGate ?? null,
      durationMs: probe.durationSeconds !== null ? probe.durationSeconds * 1000 : null,
      signal,
      keyterms: request.keyterms ?? null,
    };
    if (names === null) {
      // Diarization needs no transcript: it starts on the whole file as soon as it is decoded (read
      // ahead of recognition) and runs beside recognition; its speakers are put onto the segments after.
      let diarizing: RunningDiarization | null = null;
      if (request.diarization) {
        if (!parts.diarize) throw new Error('file transcription: diarization requested without a diarizer');
        const ahead = new PcmReadAhead(pcm, probe.durationSeconds, MAX_DIARIZATION_SECONDS * PCM_SAMPLE_RATE);
        pcm = ahead.stream();
        diarizing = startDiarization(ahead.complete, request.diarization, { ...parts, diarize: parts.diarize }, signal);
      }
      let transcribed: Awaited<ReturnType<typeof transcribeAll>>;
      try {
        transcribed = await transcribeAll(pcm, {
          ...options,
          onProgress: (p) => request.onProgress({ stage: 'transcribing', doneSegments: p.doneSegments, totalSegments: p.totalSegments }),
        });
      } catch (error) {
        diarizing?.stop(error);
        throw error;
      }
      const { segments, words, audioMs } = transcribed;
      closeHead = null;
      const result = { language: choice.language, model, durationSeconds: audioMs / 1000, segments, detection, diarization: null };
      if (diarizing === null) return result;
      if (!diarizing.settled) request.onProgress({ stage: 'diarizing', doneSegments: segments.length, totalSegments: segments.length });
      const diarized = assignDiarization(await diarizing.result, segments, words);
      return { ...result, segments: diarized.segments, diarization: diarized.diarization };
    }
    // One pass per channel, at the same time (their pieces meet in the pool's batches); progress
    // adds up. The first failure stops the other channel (its decoder is killed).
    const progress = names.map(() => ({ done: 0, total: 0 }));
    const both = new AbortController();
    const stop = (): void => both.abort(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    let results: Awaited<ReturnType<typeof transcribeAll>>[];
    try {
      results = await Promise.all(
        names.map((_, channel) =>
          transcribeAll(channel === 0 ? pcm : bounded(decodeToPcm(audioPath, { ffmpegPath: parts.ffmpeg, signal: both.signal, channel })), {
            ...options,
            signal: both.signal,
            onProgress: (p) => {
              progress[channel] = { done: p.doneSegments, total: p.totalSegments };
              const sum = (key: 'done' | 'total'): number => progress.reduce((total, one) => total + one[key], 0);
              request.onProgress({ stage: 'transcribing', doneSegments: sum('done'), totalSegments: sum('total') });
            },
          }).catch((error: unknown) => {
            both.abort(error);
            throw error;
          }),
        ),
      );
    } finally {
      signal.removeEventListener('abort', stop);
    }
    closeHead = null;
    const audioMs = Math.max(...results.map((result) => result.audioMs));
    const segments = mergeChannelSegments(
      results.map((result) => result.segments),
      names,
    );
    const diarization = request.diarization ? { speakers: null, warning: CHANNELS_NAME_SPEAKERS } : null;
    return { language: choice.language, model, durationSeconds: audioMs / 1000, segments, detection, diarization };
  } finally {
    if (closeHead) await closeHead();
  }
}

/** A file's diarization running beside its recognition. */
interface RunningDiarization {
  /** Rejects only with the job signal's reason or the reason given to stop(). */
  readonly result: Promise<AudioDiarization>;
  /** Whether `result` has settled. */
  readonly settled: boolean;
  /** Ends the diarization (recognition failed: its answer is not wanted). */
  stop(reason: unknown): void;
}

/**
 * Once the whole file is decoded (`samples`; null: not kept): the Silero speech spans and the
 * diarizer (its thread, which types the audio while the spans come), under the job's signal. A diarization failure or timeout is a warning
 * in the result, as diarizeAudio says.
 */
function startDiarization(
  samples: Promise<Float32Array | null>,
  request: DiarizationRequest,
  parts: Pick<FileTranscriptionParts, 'speechSpans' | 'onDiarized'> & { readonly diarize: Diarizer },
  signal: AbortSignal,
): RunningDiarization {
  const { diarize: diarizer, speechSpans } = parts;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let settled = false;
  const result = (async () => {
    const pcm = await samples;
    controller.signal.throwIfAborted();
    // The spans (the shared VAD's thread) and the diarization thread's typing run at the same time.
    const speech = pcm !== null && speechSpans ? speechSpans(pcm, controller.signal) : null;
    const startedAt = performance.now();
    const diarized = await diarizeAudio(pcm, request, diarizer, controller.signal, speech);
    parts.onDiarized?.({
      backend: request.backend,
      outcome: diarized.outcome,
      seconds: (performance.now() - startedAt) / 1000,
      audioSeconds: pcm === null ? 0 : pcm.length / PCM_SAMPLE_RATE,
      speakers: diarized.audio === null ? null : new Set(diarized.audio.turns.map((turn) => turn.speaker)).size,
    });
    return diarized;
  })().finally(() => {
    settled = true;
    signal.removeEventListener('abort', onAbort);
  });
  // Awaited once recognition is done; when recognition fails first, nobody awaits it.
  result.catch(() => undefined);
  return {
    result,
    get settled() {
      return settled;
    },
    stop: (reason) => controller.abort(reason),
  };
}

/**
 * Passes decoded PCM through until it holds more than `maxSeconds`, then throws `tooLong()`
 * (leaving the source's loop, which stops its decoder): what is really decoded is bounded,
 * whatever the container claims.
 */
async function* boundDecoded(source: AsyncIterable<Float32Array>, maxSeconds: number, tooLong: () => Error): AsyncGenerator<Float32Array, void, undefined> {
  const maxSamples = Math.floor(maxSeconds * PCM_SAMPLE_RATE);
  let samples = 0;
  for await (const chunk of source) {
    samples += chunk.length;
    if (samples > maxSamples) throw tooLong();
    yield chunk;
  }
}

/**
 * Mono WebM/Opus by the live path's native decoder (see webm-opus-decoder.ts); a file the native
 * demuxer refuses before yielding any audio (a Matroska feature it does not read) goes to ffmpeg.
 */
async function* nativeThenFfmpeg(audioPath: string, ffmpegPath: string, signal: AbortSignal): AsyncGenerator<Float32Array, void, undefined> {
  let yielded = false;
  try {
    for await (const chunk of decodeWebmOpus(audioPath, { signal })) {
      yielded = true;
      yield chunk;
    }
    return;
  } catch (error) {
    if (yielded || !(error instanceof InvalidAudioError)) throw error;
  }
  yield* decodeToPcm(audioPath, { ffmpegPath, signal });
}
