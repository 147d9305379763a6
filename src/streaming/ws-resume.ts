// Resuming WebSocket sessions on the endpoint (docs/streaming.md "Resuming a session"): the
// glue between the pure registry (resumable-sessions.ts), the session's outbox and the sockets.
//
// - `register`: every new session gets a token for `ready` (none when WS_RESUME_WINDOW_SECONDS=0).
// - `park`: a connection that closed with 1006 (no close frame) while its session was `open`
//   leaves the session live, detached from any socket, holding its connection slot.
// - `resume`: a connection with `resume_token` of the same key attaches to the session, parked
//   or still on an older socket (a takeover: the older one is closed with 4009), and gets
//   `resumed` and what it missed.
// - `expire` / `drain`: parked sessions whose window passed (or all, at shutdown) are finished as
//   a client that left.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { ApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY } from '../platform/errors/error-registry.js';
import { websocketClose } from '../platform/errors/error-rendering.js';
import type { Uws } from '../platform/http/uws.js';
import { ResumableSessions } from './resumable-sessions.js';
import { errorMessage } from './session-errors.js';
import type { WsMetrics } from './ws-metrics.js';
import type { WsSender } from './ws-sender.js';
import { logRefusal } from './ws-session-log.js';
import type { StreamSession } from './ws-session.js';
import type { Accepted, LiveSession, ResumeRequest, SocketData } from './ws-socket-data.js';

/** Parked sessions at most (each also holds its key's connection slot); beyond, the one parked longest is finished. */
const MAX_PARKED_SESSIONS = 10_000;

export interface ResumptionDeps {
  readonly windowSeconds: number;
  readonly logger: Logger;
  readonly metrics: WsMetrics | null;
  /** A sender for a socket that carries `session` (registered with the endpoint). */
  readonly newSender: (ws: Uws.WebSocket<SocketData>, session: StreamSession) => WsSender<SocketData>;
  /** One `error` message, then the error's close code. */
  readonly refuse: (ws: Uws.WebSocket<SocketData>, error: ApiError) => void;
  readonly releaseSlot: (accepted: Accepted) => void;
}

export class SessionResumption {
  private readonly registry: ResumableSessions<LiveSession>;

  constructor(private readonly deps: ResumptionDeps) {
    this.registry = new ResumableSessions({ windowMs: deps.windowSeconds * 1000, maxParked: MAX_PARKED_SESSIONS });
  }

  get enabled(): boolean {
    return this.registry.enabled;
  }

  get parkedCount(): number {
    return this.registry.parkedCount;
  }

  /** The `ready` message's resume fields for a new session, or null when resuming is off. */
  register(live: LiveSession): { token: string; windowSeconds: number } | null {
    if (!this.registry.enabled) return null;
    const registered = this.registry.register(live.accepted.principal.key.id, live);
    live.handle = registered.handle;
    return { token: registered.token, windowSeconds: this.deps.windowSeconds };
  }

  /** The session ended: its token resumes nothing; ended while parked, its slot is given back here. */
  ended(live: LiveSession): void {
    if (live.handle) this.registry.remove(live.handle);
    if (live.socket === null && live.slotHeld) {
      live.log.socketClosed(1006, 'connection dropped; the session ended while parked');
      this.releaseLiveSlot(live);
    }
  }

  /** The socket closed with `code`: true when the session was parked (the caller leaves it be). */
  park(live: LiveSession, code: number): boolean {
    // 1006: the connection dropped without a close frame (network, client crash): the session waits for its client.
    if (live.handle === null || code !== 1006 || !live.session.resumable) return false;
    live.outbox.detach();
    live.socket = null;
    live.parkedAt = performance.now();
    for (const evicted of this.registry.park(live.handle, live.parkedAt)) this.finishParked(evicted, 'client_disconnected');
    live.log.parked(code, this.deps.windowSeconds);
    this.deps.metrics?.resumeEvents.inc({ event: 'parked' });
    return true;
  }

  /** A connection with `resume_token`: attaches to the session (parked, or still on an older socket) or is refused. */
  resume(ws: Uws.WebSocket<SocketData>, data: SocketData, request: ResumeRequest): void {
    const now = performance.now();
    const keyId = request.principal.key.id;
    const refuse = (error: ApiError): void => {
      logRefusal(this.deps.logger, error, websocketClose(error).code, keyId);
      this.deps.refuse(ws, error);
    };
    const found = this.registry.find(request.token, keyId, now);
    if (!found.ok) return refuse(new ApiError(found.reason === 'wrong_key' ? 'resume_token_forbidden' : 'resume_token_invalid'));
    const live = found.value;
    const session = live.session;
    if (!session.resumable) return refuse(new ApiError('resume_token_invalid'));
    const discardBytes = session.resumeFrom(request.fromBytes);
    if (discardBytes === null) {
      const held = session.receivedBytes;
      const message = `resume_from_bytes ${request.fromBytes} is beyond the ${held} audio bytes the server holds; resend from ${held} (or leave resume_from_bytes out and wait for \`resumed\`).`;
      return refuse(new ApiError('resume_offset_unavailable', { message, param: 'resume_from_bytes' }));
    }
    const previous = live.socket;
    if (previous !== null) {
      // The older connection still looks open (its drop not noticed yet, or a client that reconnected anyway): it is closed, and its close changes nothing.
      const old = previous.getUserData();
      old.superseded = true;
      const code = ERROR_REGISTRY.session_resumed_elsewhere.wsClose!;
      old.sender?.send(errorMessage(new ApiError('session_resumed_elsewhere'), code));
      old.sender?.abort(code, 'session_resumed_elsewhere');
    }
    const detachedMs = previous === null ? Math.round(now - live.parkedAt) : 0;
    live.outbox.detach();
    this.registry.attach(live.handle!);
    live.socket = ws;
    live.resumes++;
    const sender = this.deps.newSender(ws, session);
    Object.assign(data, { accepted: live.accepted, session, sender, live, log: live.log });
    if (live.recording) data.recording = live.recording;
    const replay = live.outbox.attach(sender, request.lastSeq, (summary) => ({
      type: 'resumed',
      session_id: session.id,
      job_id: session.jobId,
      resume_from_bytes: session.receivedBytes,
      discard_bytes: discardBytes,
      stream_ms: session.streamMs,
      last_seq: summary.lastSeq,
      replayed_messages: summary.replayed,
      missed_messages: summary.missed,
      detached_ms: detachedMs,
    }));
    this.deps.metrics?.resumeEvents.inc({ event: previous === null ? 'resumed' : 'taken_over' });
    live.log.resumed({ detachedMs, tookOver: previous !== null, discardBytes, replayed: replay.replayed, missed: replay.missed });
  }

  /** Finishes the parked sessions whose window has passed (the endpoint's ticker). */
  expire(now: number): void {
    for (const live of this.registry.expire(now)) {
      this.deps.metrics?.resumeEvents.inc({ event: 'expired' });
      this.finishParked(live, 'client_disconnected');
    }
  }

  /** Shutdown: every parked session is finished. */
  drain(): void {
    for (const live of this.registry.drainParked()) this.finishParked(live, 'server_shutdown');
  }

  /** Gives the session's connection slot back, once. */
  releaseLiveSlot(live: LiveSession): void {
    if (!live.slotHeld) return;
    live.slotHeld = false;
    this.deps.releaseSlot(live.accepted);
  }

  /** A parked session nobody resumed: finished as if its client had left now. */
  private finishParked(live: LiveSession, reason: 'client_disconnected' | 'server_shutdown'): void {
    live.log.socketClosed(1006, reason === 'server_shutdown' ? 'parked; server shutting down' : 'connection dropped; resume window passed');
    this.releaseLiveSlot(live);
    live.session.onSocketClosed(reason);
  }
}
