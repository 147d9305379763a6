// What the WebSocket endpoint keeps per connection (uWS user data) and per session across the
// connections that carry it (resumable sessions).
import type { Principal } from '../platform/auth/principal.js';
import type { ApiError } from '../platform/errors/api-error.js';
import type { Uws } from '../platform/http/uws.js';
import type { SileroVad } from '../engines/vad/vad.js';
import type { ResumeHandle } from './resumable-sessions.js';
import type { SessionOutbox } from './session-outbox.js';
import type { SessionRecording } from './session-recording.js';
import type { ResumeQuery, SessionSettings } from './ws-query.js';
import type { WsSender } from './ws-sender.js';
import type { SessionLog } from './ws-session-log.js';
import type { StreamSession } from './ws-session.js';

export interface Accepted {
  /** The session id, also the connection slot it holds. */
  readonly sessionId: string;
  readonly principal: Principal;
  readonly settings: SessionSettings;
  readonly silero: SileroVad | null;
  /** The Silero of the speech gate (LIVE_SPEECH_GATE=on and Silero available); null: no gate. */
  readonly speechGate: SileroVad | null;
  /** The query without `token`, kept for a `record=true` session's recording. */
  readonly query: Record<string, string>;
}

/** A connection that asks to resume a session (authenticated; the session is looked up on open). */
export interface ResumeRequest extends ResumeQuery {
  readonly principal: Principal;
}

/** A session as the endpoint holds it, across the connections that carry it. */
export interface LiveSession {
  readonly session: StreamSession;
  readonly outbox: SessionOutbox;
  readonly accepted: Accepted;
  readonly log: SessionLog;
  readonly recording: SessionRecording | null;
  /** Null when resuming is off. */
  handle: ResumeHandle | null;
  /** The connection carrying the session now; null while parked. */
  socket: Uws.WebSocket<SocketData> | null;
  parkedAt: number;
  resumes: number;
  /** The connection slot is still held (given back once, by the last socket's close or when a parked session ends). */
  slotHeld: boolean;
}

/** An upgraded socket whose admission has not settled yet (ws-endpoint.ts, upgrade rules). */
export interface Admitting {
  /** Messages that arrived meanwhile (copies), in order. */
  readonly early: { readonly message: ArrayBuffer; readonly isBinary: boolean }[];
  bytes: number;
  /** The socket closed before admission settled. */
  closed: boolean;
  /** Set by `open`, which uWS runs inside the upgrade. */
  socket: Uws.WebSocket<SocketData> | null;
}

export interface SocketData {
  /** Set by admission, or on open for a resumed connection (the session's own). */
  accepted: Accepted | null;
  /** Set by admission. */
  refused: ApiError | null;
  resume: ResumeRequest | null;
  /** Until admission settles. */
  admitting?: Admitting;
  session: StreamSession | null;
  sender: WsSender<SocketData> | null;
  live?: LiveSession;
  recording?: SessionRecording;
  log?: SessionLog;
  /** The session moved on to a newer connection: this socket's close changes nothing. */
  superseded?: boolean;
}
