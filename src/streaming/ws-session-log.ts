// Log lines of the WebSocket endpoint: one child logger per session (sessionId, jobId, keyId,
// format, language) with one open line and one close line, and one line per refused upgrade.
//
// Rules: never audio, API keys, session tokens or URLs with their query (a token or signed
// URL may ride in it); ids, codes and counts only. The close line is written once both the
// socket's close (code, reason) and the session's completion (audio, turns) are known, in
// whichever order they come.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ApiError } from '../platform/errors/api-error.js';
import type { Principal } from '../platform/auth/principal.js';
import type { SessionSettings } from './ws-query.js';
import type { SessionOutcome } from './ws-session.js';

export function sessionLogger(logger: Logger, ids: { sessionId: string; jobId: string }, principal: Principal, settings: SessionSettings): Logger {
  return logger.child({
    sessionId: ids.sessionId,
    jobId: ids.jobId,
    keyId: principal.key.id,
    format: settings.format,
    language: settings.language,
  });
}

/** A refused upgrade: its reason (error code, close code), and the key when it was authenticated. */
export function logRefusal(logger: Logger, error: ApiError, closeCode: number, keyId: string | null): void {
  logger.info(
    { code: error.code, closeCode, reason: error.message, ...(error.param !== undefined ? { param: error.param } : {}), keyId },
    'WebSocket session refused',
  );
}

export class SessionLog {
  readonly #startedAt = performance.now();
  #closed: { code: number; reason: string } | null = null;
  #outcome: SessionOutcome | null = null;

  constructor(readonly logger: Logger) {}

  opened(settings: SessionSettings): void {
    this.logger.info(
      { model: settings.model, vadType: settings.vadType, turnDetection: settings.serverVad ? 'server_vad' : 'none', partialResults: settings.partialResults },
      'WebSocket session opened',
    );
  }

  /** The connection dropped without a close frame: the session waits for its client to resume it. */
  parked(code: number, windowSeconds: number): void {
    this.logger.info({ code, windowSeconds }, 'WebSocket session parked');
  }

  /** A new connection carries the session on (never the token). */
  resumed(figures: { detachedMs: number; tookOver: boolean; discardBytes: number; replayed: number; missed: number }): void {
    this.logger.info(figures, 'WebSocket session resumed');
  }

  socketClosed(code: number, reason: string): void {
    if (this.#closed !== null) return;
    this.#closed = { code, reason };
    this.#write();
  }

  completed(outcome: SessionOutcome): void {
    if (this.#outcome !== null) return;
    this.#outcome = outcome;
    this.#write();
  }

  #write(): void {
    const closed = this.#closed;
    const outcome = this.#outcome;
    if (closed === null || outcome === null) return;
    this.logger.info(
      {
        code: closed.code,
        reason: closed.reason,
        durationMs: Math.round(performance.now() - this.#startedAt),
        audioSeconds: Math.round(outcome.audioSeconds * 1000) / 1000,
        turns: outcome.stats.turns,
        transcriptions: outcome.stats.transcriptions,
        status: outcome.status,
        ...(outcome.error !== null ? { errorCode: outcome.error.code } : {}),
        detectedLanguage: outcome.language,
        model: outcome.model,
        droppedAudioMs: outcome.stats.dropped_audio_ms,
      },
      'WebSocket session closed',
    );
  }
}
