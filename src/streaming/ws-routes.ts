import { Type } from '@sinclair/typebox';
import type { StreamingSettings } from '../platform/config/config.js';
import { ApiError } from '../platform/errors/api-error.js';
import { defineRoute, type RouteDefinition } from '../platform/http/route-types.js';
import { named } from '../platform/http/named-schema.js';
import { MULTICHANNEL_FORMATS, STREAM_FORMATS } from '../engines/signal/signal.js';
import { serverMessageJsonSchema } from './ws-messages.js';
import type { SessionTokens } from './ws-session-tokens.js';
import { WS_PATH } from './ws-endpoint.js';

const TAGS = ['Streaming'];

export const WsTokenSchema = named(
  'WsSessionToken',
  Type.Object({
    object: Type.Literal('ws_token'),
    token: Type.String({ description: 'Single use; pass it as the `token` query parameter of GET /v1/ws/transcribe' }),
    expires_at: Type.String({ format: 'date-time' }),
    expires_in: Type.Integer({ description: 'Seconds the token stays valid' }),
    url: Type.String({ description: 'Path and query to connect with (add the other query parameters)' }),
  }),
);

const TranscribeQuery = Type.Object({
  language: Type.Optional(Type.String({ description: 'am, om, ti or auto; default: the server default (DEFAULT_LANGUAGE)' })),
  lang: Type.Optional(Type.String({ description: 'Deprecated alias of `language`', deprecated: true })),
  model: Type.Optional(Type.String({ description: 'A model of the language; default: its default model' })),
  turn_detection: Type.Optional(Type.Literal('server_vad', { description: 'Automatic turns: one turn_detected message per turn' })),
  vad_type: Type.Optional(Type.Union([Type.Literal('energy'), Type.Literal('silero')], { description: 'default energy' })),
  format: Type.Optional(
    Type.Union(
      STREAM_FORMATS.map((f) => Type.Literal(f)),
      {
        description:
          'default pcm_s16le; pcm_s16le_8k, mulaw_8k and alaw_8k (extensions: 8 kHz telephone audio, 16-bit PCM, G.711 mu-law, G.711 A-law) are upsampled to 16 kHz',
      },
    ),
  ),
  channels: Type.Optional(
    Type.Union([Type.Literal(1), Type.Literal(2)], {
      description: `2: stereo (call-centre recording; format ${MULTICHANNEL_FORMATS.join(', ')}: interleaved frames, a stereo WAV, WebM with a stereo Opus track); one VAD and turn stream per channel, messages carry \`channel\` and \`speaker\`, \`barge_in\` and \`overlap\` messages when both speak (extension); default 1`,
    }),
  ),
  channel_names: Type.Optional(
    Type.String({ description: 'channels=2: the two speaker names, comma-separated (letters, digits, _ . -); default agent,customer' }),
  ),
  keyterms: Type.Optional(
    Type.String({
      description:
        'Keyterm boosting (extension): names and terms to favour in every turn, partial and final, comma-separated (`,` or `፣`) and/or the parameter repeated; at most 100 terms, each 1-50 characters; as `keyterms` of POST /v1/transcriptions (docs/decoding.md); the largest list (100 x 50 Ethiopic letters, about 44 KB of query) is accepted',
    }),
  ),
  partial_results: Type.Optional(Type.Boolean({ description: 'Interim `partial` messages while a turn is open (extension); default false' })),
  captions: Type.Optional(
    Type.Union([Type.Literal('webvtt'), Type.Literal('srt')], {
      description:
        'Ready-to-display `caption` messages (broadcast rules) for every committed text (extension); the finished job serves them as captions.vtt|.srt',
    }),
  ),
  record: Type.Optional(
    Type.Boolean({
      description:
        "Store the session's client messages with their times (extension; the key needs the `record` scope); the job serves them at /v1/transcriptions/{job_id}/recording; default false",
    }),
  ),
  token: Type.Optional(Type.String({ description: 'Session token from POST /v1/ws/tokens, for clients that cannot send headers (browsers)' })),
  resume_token: Type.Optional(
    Type.String({
      description:
        'Extension: resume the session of this `ready.resume_token` after its connection dropped (within WS_RESUME_WINDOW_SECONDS, same API key); the other parameters are then ignored and the first message is `resumed`',
    }),
  ),
  resume_from_bytes: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "With resume_token: byte offset of the session's audio stream where this connection's audio begins (e.g. the last chunk_received.total_bytes); bytes the server already has are dropped. Default: the server's offset (wait for `resumed`)",
    }),
  ),
  last_seq: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'With resume_token: seq of the last turn_detected, transcription or caption message received; the later ones are sent again after `resumed`',
    }),
  ),
});

export function wsRoutes(deps: { tokens: SessionTokens; streaming: StreamingSettings }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: WS_PATH,
      operationId: 'transcribeStream',
      summary: 'Real-time transcription over WebSocket (upgrade request)',
      description:
        'Upgrade with `Authorization: Bearer <API_KEY>` (or `?token=` from POST /v1/ws/tokens). The server answers 101 and sends `ready`; ' +
        'the client streams audio as binary messages and the commands FORMAT:<format>, TRANSCRIBE, END, CLEAR, PING as text. ' +
        'Server messages: see GET /v1/ws/schema and /llms-full.txt. Close codes: 1000 normal or idle, 1008 bad query or slow reader, ' +
        "1009 buffer or message size, 1013 server at capacity (retry after `retry_after` s), 4001 missing key, 4003 invalid key (or scope, IP, origin; another key's resume token), " +
        '4004 unknown or expired resume token, 4009 the session was resumed on a newer connection, 4029 rate or connection limit. ' +
        'A plain GET without the upgrade answers 426.',
      tags: TAGS,
      surface: 'unified',
      auth: 'bearer',
      scope: 'write',
      rateLimited: false,
      query: TranscribeQuery,
      responses: {
        101: { description: 'Switching protocols: the WebSocket session starts with a `ready` message' },
        426: { description: 'Not an upgrade request' },
      },
      handler: async () => {
        throw new ApiError('upgrade_required');
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/ws/tokens',
      operationId: 'createWsToken',
      summary: 'Mint a short-lived single-use token for opening a WebSocket session without headers (browsers)',
      description: `The token is valid ${deps.streaming.tokenTtlSeconds} s and for one upgrade; it carries the calling key's scopes and IP/origin allowlists.`,
      tags: TAGS,
      surface: 'unified',
      auth: 'bearer',
      scope: 'write',
      responses: { 201: { description: 'Session token', schema: WsTokenSchema } },
      handler: async ({ principal }) => {
        const minted = await deps.tokens.mint(principal!.key.id);
        return {
          status: 201,
          body: {
            object: 'ws_token',
            token: minted.token,
            expires_at: minted.expiresAt.toISOString(),
            expires_in: deps.streaming.tokenTtlSeconds,
            url: `${WS_PATH}?token=${minted.token}`,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/ws/schema',
      operationId: 'getWsMessageSchema',
      summary: 'JSON Schema of the server messages of the WebSocket endpoint',
      tags: TAGS,
      surface: 'unified',
      auth: 'none',
      responses: { 200: { description: 'JSON Schema (a oneOf-style union discriminated by `type`)' } },
      handler: async () => ({ status: 200, body: serverMessageJsonSchema() }),
    }),
  ];
}
