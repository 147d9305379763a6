import type { TSchema } from '@sinclair/typebox';
import type { Limits } from '../config/config.js';
import { ERROR_REGISTRY } from '../errors/error-registry.js';
import type { RouteDefinition } from './route-types.js';

/** Extra prose a module contributes to /llms-full.txt (e.g. the WebSocket protocol). */
export interface DocumentSection {
  readonly title: string;
  readonly body: string;
}

const AUTH_TEXT: Record<RouteDefinition['auth'], string> = {
  none: 'none',
  bearer: 'Authorization: Bearer <API_KEY>',
  'x-api-key': 'X-API-Key: <API_KEY>',
  'form-key': 'form field `key`',
  signed: 'signed URL (no credential)',
};

export function buildLlmsIndex(routes: readonly RouteDefinition[], baseUrl: string, sections: readonly DocumentSection[]): string {
  const lines = [
    '# Speech gateway for Amharic, Oromo and Tigrinya',
    '',
    '> Speech-to-text over HTTP and WebSocket for am, om and ti (and language detection with `auto`):',
    '> transcription jobs, batches, uploads, media, webhooks, usage and real-time streaming;',
    '> file translation jobs and text translation (`POST /translate/v1`) between am, en and ti.',
    '',
    `- [OpenAPI 3.1 document](${baseUrl}/openapi.json)`,
    `- [Full reference as text](${baseUrl}/llms-full.txt)`,
    '',
    '## Endpoints',
    '',
  ];
  for (const route of routes) {
    if (route.hidden) continue;
    lines.push(`- \`${route.method} ${route.path}\`: ${route.summary}`);
  }
  if (sections.length > 0) {
    lines.push('', '## Guides', '');
    for (const section of sections) lines.push(`- ${section.title} (see llms-full.txt)`);
  }
  return `${lines.join('\n')}\n`;
}

export function buildLlmsFull(routes: readonly RouteDefinition[], baseUrl: string, limits: Limits, sections: readonly DocumentSection[]): string {
  const out: string[] = [
    '# Speech gateway for Amharic, Oromo and Tigrinya: full reference',
    '',
    `Base URL: ${baseUrl}. Machine-readable description: ${baseUrl}/openapi.json.`,
    '',
    '## Authentication',
    '',
    '- Unified API (`/v1/...`): `Authorization: Bearer <API_KEY>`. `GET /health` needs no credential.',
    '- Job API (`/transcribe`, `/translate`): `X-API-Key: <API_KEY>`.',
    '- Text translation (`POST /translate/v1`): the form field `key`.',
    '- Signed URLs (audio, transcript, media playback, direct upload, translation outputs) carry their own authorization.',
    '- Keys carry scopes (`read`, `write`, `admin`), may expire, may be revoked, and may be bound to IP ranges and browser origins.',
    '',
    '## Errors',
    '',
    'Unified API errors: `{"error": {"type", "code", "message", "param"?, "retry_after"?}}`.',
    'Job API errors: `{"detail": "..."}`; validation failures (422): `{"detail": [{"loc", "msg", "type"}]}`.',
    '',
    '| code | status | type | meaning |',
    '|---|---|---|---|',
    ...Object.entries(ERROR_REGISTRY).map(([code, def]) => `| ${code} | ${def.status} | ${def.type} | ${def.message} |`),
    '',
    '## Limits',
    '',
    `- REST requests: ${limits.requestsPerMinute} per minute per key; every keyed response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix seconds); a 429 also carries Retry-After.`,
    `- Concurrent transcription jobs: ${limits.concurrentJobs} per key; daily audio: ${limits.dailyAudioMinutes} minutes per key.`,
    `- Files per batch: ${limits.batchMaxFiles}; audio and upload size: ${limits.maxAudioBytes} bytes.`,
    `- WebSocket: ${limits.wsConnectionsPerKey} connections per key, ${limits.wsSessionSeconds} s per session, ${limits.wsMessagesPerSecond} messages/s, ${limits.wsBytesPerSecond} bytes/s, ${limits.wsMaxMessageBytes} bytes per message, ${limits.wsMaxBufferBytes} bytes of buffered audio, ${limits.wsIdleTimeoutSeconds} s idle.`,
    `- Signed audio and transcript URLs: ${limits.signedUrlTtlSeconds} s.`,
    `- File translation: 1 to 100 source URIs and 1 to 5 targets per job, at most ${limits.translationMaxUnits} units; ${limits.translationMaxSourceBytes} bytes per source; 3 retries per unit; output links ${limits.translationOutputUrlTtlSeconds} s; jobs removed ${limits.translationJobExpiryHours} h after submission.`,
    '',
    '## Endpoints',
    '',
  ];
  for (const route of routes) {
    if (route.hidden) continue;
    out.push(`### ${route.method} ${route.path}`, '', route.summary);
    if (route.description) out.push('', route.description);
    out.push('', `Authentication: ${AUTH_TEXT[route.auth]}.`);
    const params = describeFields(route.params, 'Path parameters');
    const query = describeFields(route.query, 'Query parameters');
    if (params) out.push('', params);
    if (query) out.push('', query);
    if (route.body) {
      if (route.body.kind === 'json') out.push('', describeFields(route.body.schema, 'JSON body') ?? '');
      if (route.body.kind === 'form') out.push('', describeFields(route.body.schema, 'Form body') ?? '');
      if (route.body.kind === 'multipart') out.push('', describeFields(route.body.schema, 'Multipart body') ?? '');
      if (route.body.kind === 'json-or-multipart') {
        out.push('', describeFields(route.body.json, 'JSON body') ?? '', '', describeFields(route.body.multipart, 'Multipart body') ?? '');
      }
      if (route.body.kind === 'raw') out.push('', `Body: ${route.body.description}`);
    }
    out.push(
      '',
      `Responses: ${Object.entries(route.responses)
        .map(([s, r]) => `${s} ${r.description}`)
        .join('; ')}.`,
      '',
    );
  }
  for (const section of sections) out.push(`## ${section.title}`, '', section.body.trim(), '');
  return `${out.join('\n')}\n`;
}

function describeFields(schema: TSchema | undefined, title: string): string | null {
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties;
  if (!properties || Object.keys(properties).length === 0) return null;
  const required = new Set((schema as { required?: string[] }).required ?? []);
  const lines = [`${title}:`];
  for (const [name, property] of Object.entries(properties)) {
    const p = property as { type?: string; enum?: unknown[]; description?: string; default?: unknown; anyOf?: { const?: unknown }[] };
    const values = p.enum ?? p.anyOf?.map((a) => a.const).filter((v) => v !== undefined);
    const type = values && values.length > 0 ? values.map((v) => JSON.stringify(v)).join(' | ') : (p.type ?? 'value');
    const extras = [required.has(name) ? 'required' : 'optional', p.default !== undefined ? `default ${JSON.stringify(p.default)}` : '']
      .filter(Boolean)
      .join(', ');
    lines.push(`- \`${name}\` (${type}; ${extras})${p.description ? `: ${p.description}` : ''}`);
  }
  return lines.join('\n');
}
