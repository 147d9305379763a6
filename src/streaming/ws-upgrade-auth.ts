// Authentication of the WebSocket upgrade (spec: Authentication rule 2): the Bearer header,
// or a session token from POST /v1/ws/tokens in `?token=`. Runs before res.upgrade; the
// caller turns a thrown ApiError into the close code of the registry (4001 missing, 4003
// invalid, revoked, expired, scope, IP or origin).
import type { Authenticator, CallerContext } from '../platform/auth/authenticator.js';
import type { Principal } from '../platform/auth/principal.js';
import { ApiError } from '../platform/errors/api-error.js';
import type { ApiKeyStore } from '../platform/db/store-types.js';
import type { SessionTokens } from './ws-session-tokens.js';

export interface UpgradeCredentials {
  /** The Authorization header ('' when absent). */
  readonly authorization: string;
  /** The `token` query parameter ('' when absent). */
  readonly token: string;
  readonly caller: CallerContext;
}

export interface UpgradeAuthDeps {
  readonly authenticator: Authenticator;
  readonly tokens: SessionTokens;
  readonly keys: ApiKeyStore;
}

/** Streaming creates a transcription job: the session needs the `write` scope. */
export const WS_SCOPE = 'write' as const;

export async function authenticateUpgrade(deps: UpgradeAuthDeps, credentials: UpgradeCredentials): Promise<Principal> {
  const header = credentials.authorization.trim();
  if (header !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null) throw new ApiError('invalid_api_key', { message: 'The Authorization header must be "Bearer <API_KEY>".' });
    return deps.authenticator.authenticate(match[1], credentials.caller, WS_SCOPE);
  }
  if (credentials.token !== '') {
    const keyId = await deps.tokens.redeem(credentials.token);
    if (keyId === null) throw new ApiError('invalid_session_token');
    const record = await deps.keys.get(keyId);
    if (record === null) throw new ApiError('invalid_api_key');
    return deps.authenticator.authorize(record, credentials.caller, WS_SCOPE);
  }
  throw new ApiError('missing_api_key', {
    message: 'Missing API key. Send "Authorization: Bearer <API_KEY>" on the upgrade, or a session token from POST /v1/ws/tokens as ?token=.',
  });
}
