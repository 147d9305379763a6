// The contract between the WebSocket endpoint and a streaming session: what a session needs
// (recognizer, Silero, limits, logger, observers) and what it hands back when it is over.
import type { Logger } from 'pino';
import type { Limits, StreamingSettings } from '../platform/config/config.js';
import type { Segment } from '../platform/db/job-records.js';
import type { InferenceCost, Asr } from '../engines/asr/asr.js';
import type { SileroVad } from '../engines/vad/vad.js';
import type { PieceKind } from './piece-queue.js';
import type { SessionStatsMessage } from './ws-messages.js';
import type { MainThreadParts } from './main-thread-parts.js';

/** A session's native front-end counters, summed over its channels (read at metrics scrapes). */
export interface FrontEndCounters {
  /** 16 kHz samples the front ends produced (decoded, resampled). */
  decodedSamples: number;
  /** Opus packets decoded and rejected (Opus formats; 0 for PCM). */
  packetsDecoded: number;
  packetsRejected: number;
  /** Samples dropped: the audio buffer full, or the Silero VAD's queue. */
  droppedSamples: number;
}

export const zeroFrontEndCounters = (): FrontEndCounters => ({ decodedSamples: 0, packetsDecoded: 0, packetsRejected: 0, droppedSamples: 0 });

/** Adds `b` into `a` (returns `a`). */
export function addFrontEndCounters(a: FrontEndCounters, b: FrontEndCounters): FrontEndCounters {
  a.decodedSamples += b.decodedSamples;
  a.packetsDecoded += b.packetsDecoded;
  a.packetsRejected += b.packetsRejected;
  a.droppedSamples += b.droppedSamples;
  return a;
}

export interface SessionOutcome {
  readonly status: 'completed' | 'failed';
  readonly text: string;
  readonly segments: readonly Segment[];
  readonly language: string;
  readonly model: string | null;
  readonly audioSeconds: number;
  readonly error: { type: string; code: string; message: string } | null;
  /**
   * Why the session ended: end (END), session_duration_exceeded, idle_timeout, client_closed
   * (the client closed without END), client_disconnected (the connection dropped and was not
   * resumed in time), server_shutdown, or the error code of a failure.
   */
  readonly endReason: string;
  readonly stats: SessionStatsMessage;
}

export interface SessionDeps {
  /** `openPartialStream` absent: partials re-run the open turn. */
  readonly recognizer: Pick<Asr, 'recognizePiece' | 'transcribePiece' | 'detectLanguage'> & Partial<Pick<Asr, 'openPartialStream'>>;
  /** The shared Silero VAD (only used with vad_type=silero; created before the session). */
  readonly silero: SileroVad | null;
  /** The shared Silero of the speech gate (LIVE_SPEECH_GATE=on; session-speech-gate.ts); null or absent: no gate. */
  readonly speechGate?: SileroVad | null;
  readonly limits: Limits;
  readonly streaming: StreamingSettings;
  readonly logger: Logger;
  /** Called once, when the session is over and its last piece is recognised. */
  readonly onComplete: (outcome: SessionOutcome) => void;
  readonly observe?: {
    turnLatency?(ms: number): void;
    /** A recognised piece: queue + recognition ms, its audio seconds, the pool's figures (null when nothing ran). */
    piece?(kind: PieceKind, ms: number, audioSeconds: number, inference: InferenceCost | null): void;
    /**
     * A turn, TRANSCRIBE or final piece's wait before recognition: `session_queue` from its cut
     * to its start (behind its session's piece in flight), `speech_verdict` for the speech gate.
     */
    pieceWait?(kind: Exclude<PieceKind, 'partial'>, stage: 'session_queue' | 'speech_verdict', ms: number): void;
    /** A partial result not computed under overload, and the audio seconds it would have decoded. */
    partialSkipped?(audioSeconds: number): void;
  };
  /** The bytes of memory the session's audio takes now (rings and pieces), for the process bound; 0 once failed or done. */
  readonly heldAudio?: (bytes: number) => void;
  /** Overload: one due partial in this many is computed now (1 every one, 0 none; finals and turns always run). */
  readonly partialEvery?: () => number;
  /** The endpoint's event-loop time by part (main-thread-parts.ts); absent: not timed. */
  readonly mainThread?: MainThreadParts;
}
