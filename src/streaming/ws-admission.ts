// Admission of a GET /v1/ws/transcribe upgrade, before any session exists: authentication
// (ws-upgrade-auth.ts), then either a resume request (which keeps its session's settings,
// quota admission and connection slot) or the session query, the record scope, the key's daily
// quota, the shared Silero VAD (vad_type=silero, and for the speech gate) and one of the key's
// connection slots.
// Never throws: the result is the socket's data, accepted (holding a slot the endpoint gives
// back when the socket closes), a resume request, or refused (logged here; the endpoint sends
// the error and closes with its code once the handshake completes).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Authenticator } from '../platform/auth/authenticator.js';
import type { Principal } from '../platform/auth/principal.js';
import type { GatewayConfig } from '../platform/config/config.js';
import { ApiError, asApiError } from '../platform/errors/api-error.js';
import { websocketClose } from '../platform/errors/error-rendering.js';
import type { ConnectionSlots } from '../platform/limits/connection-slots.js';
import type { ApiKeyStore } from '../platform/db/store-types.js';
import type { Asr } from '../engines/asr/asr.js';
import type { SileroVad, Vad } from '../engines/vad/vad.js';
import { recordableQuery } from './session-recording.js';
import { parseResumeQuery, parseSessionQuery } from './ws-query.js';
import { logRefusal } from './ws-session-log.js';
import type { SessionTokens } from './ws-session-tokens.js';
import type { SocketData } from './ws-socket-data.js';
import { authenticateUpgrade, type UpgradeCredentials } from './ws-upgrade-auth.js';

export interface AdmissionDeps {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly authenticator: Authenticator;
  readonly keys: ApiKeyStore;
  readonly tokens: SessionTokens;
  /** Model rules (the query's language and model). */
  readonly asr: Pick<Asr, 'resolveModel'>;
  /** The shared Silero VAD (vad_type=silero, and the speech gate of LIVE_SPEECH_GATE=on). */
  readonly vad: Pick<Vad, 'shared' | 'available'>;
  /** Throws daily_quota_exceeded (4029) when the key's audio minutes for today are used up. */
  readonly admitQuota: (principal: Principal) => Promise<void>;
  /** Open sessions per key: this process's, or every gateway's through Redis. */
  readonly connections: ConnectionSlots;
}

/** Authentication, query, quota, connection limit: an accepted, resuming or refused socket's data. */
export async function admitUpgrade(deps: AdmissionDeps, credentials: UpgradeCredentials, query: URLSearchParams): Promise<SocketData> {
  let keyId: string | null = null;
  const refuse = (error: ApiError): SocketData => {
    logRefusal(deps.logger, error, websocketClose(error).code, keyId);
    return { accepted: null, refused: error, resume: null, session: null, sender: null };
  };
  try {
    const { authenticator, tokens, keys, asr, vad, config } = deps;
    const principal = await authenticateUpgrade({ authenticator, tokens, keys }, credentials);
    keyId = principal.key.id;
    // A resume keeps the session's settings, quota admission and connection slot.
    const resume = parseResumeQuery(query);
    if (resume !== null) return { accepted: null, refused: null, resume: { ...resume, principal }, session: null, sender: null };
    const settings = parseSessionQuery(query, { language: config.defaultLanguage }, asr);
    if (settings.record && !principal.hasScope('record')) {
      throw new ApiError('insufficient_scope', { message: "record=true requires an API key with the 'record' scope." });
    }
    await deps.admitQuota(principal);
    const silero = settings.vadType === 'silero' ? await vad.shared() : null;
    const speechGate = config.streaming.liveSpeechGate ? (silero ?? (await gateSilero(vad, deps.logger))) : null;
    const limit = principal.key.limits.wsConnections ?? config.limits.wsConnectionsPerKey;
    const sessionId = `ws_${randomBytes(12).toString('hex')}`;
    let taken: boolean;
    try {
      taken = await deps.connections.tryAcquire(principal.key.id, sessionId, limit);
    } catch (error) {
      deps.logger.error({ err: error, backend: deps.connections.backend }, 'WebSocket connection limit unavailable');
      return refuse(new ApiError('service_unavailable', { message: 'The connection limit cannot be checked right now; retry shortly.' }));
    }
    if (!taken) {
      return refuse(new ApiError('connection_limit_exceeded', { message: `This API key already has ${limit} open WebSocket sessions (the limit).` }));
    }
    return {
      accepted: { sessionId, principal, settings, silero, speechGate, query: recordableQuery(query) },
      refused: null,
      resume: null,
      session: null,
      sender: null,
    };
  } catch (error) {
    const refusal = asApiError(error);
    if (refusal !== null) return refuse(refusal);
    deps.logger.error({ err: error }, 'WebSocket upgrade failed');
    return refuse(new ApiError('internal_error'));
  }
}

/**
 * The shared Silero VAD for the speech gate of an energy-VAD session; null (the session runs
 * without the gate, logged) when Silero is not installed or cannot start: the gate never refuses
 * a session the energy VAD could serve.
 */
async function gateSilero(vad: Pick<Vad, 'shared' | 'available'>, logger: Logger): Promise<SileroVad | null> {
  if (!vad.available().silero) return null;
  try {
    return await vad.shared();
  } catch (error) {
    logger.warn({ err: error }, 'LIVE_SPEECH_GATE: Silero is unavailable, this session runs without the speech gate');
    return null;
  }
}
