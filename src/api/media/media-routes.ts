import type { UrlSigner } from '../../platform/auth/url-signer.js';
import type { Limits } from '../../platform/config/config.js';
import { ApiError } from '../../platform/errors/api-error.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import { playbackPath, type MediaLibrary } from '../../media/media-library.js';
import { mediaView } from '../../media/media-views.js';
import type { MediaProber } from '../../media/probe/media-prober.js';
import { FileIdParams, mediaGetQuery, MediaListQuery, MediaListSchema, MediaPlaybackSchema, ProbeRequestSchema, ProbeResultSchema } from './media-schemas.js';
import { DeletedSchema } from '../transcriptions/transcription-schemas.js';
import { requireValidSignature, SIGNED_URL_DESCRIPTION, SignedUrlQuery, signedDownloadResponses } from '../signed-urls.js';
import { cursorPageBody, readKeysetPage, withPageSize } from '../list-paging.js';
import type { FileStorage } from '../../platform/files/file-storage.js';
import { serveStoredObject } from '../../platform/http/serve-object.js';
import { BEARER_READ, BEARER_WRITE, SIGNED } from '../route-access.js';

export interface MediaRouteDeps {
  readonly library: MediaLibrary;
  readonly prober: MediaProber;
  readonly storage: FileStorage;
  readonly signer: () => UrlSigner;
  readonly limits: Limits;
}

const TAGS = ['Media'];

export function mediaRoutes(deps: MediaRouteDeps): RouteDefinition[] {
  const { library, limits } = deps;
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/media/probe',
      operationId: 'probeMedia',
      summary: 'Duration, title, thumbnail, uploader and live flag of a remote media URL, without downloading it',
      description:
        'Body `{"url": "https://..."}`. Direct audio/video URLs are read with ffprobe (only the bytes it needs, with Range requests), HLS playlists ' +
        'from the playlist, streaming-site pages with yt-dlp when the server has it (YTDLP_PATH; otherwise 422 unsupported_media). ' +
        'Every connection, redirects included, passes the private-network guard (400 url_not_allowed). Errors: 400 invalid_url (malformed or not http/https), ' +
        '404 media_not_found (the server answered 404/410), 403 media_unavailable (401/403/451: private, region-blocked or sign-in), ' +
        '422 unsupported_media (not audio or video), 502 upstream_error (the server or the probe tool failed), 504 probe_timeout (over PROBE_TIMEOUT_SECONDS, 20 s). ' +
        'Results are cached for PROBE_CACHE_TTL_SECONDS (5 minutes; `cached: true`). At most 8 probes run at once per server; up to 64 more wait ' +
        'within their window, beyond that 500 service_unavailable (retry with backoff).',
      tags: TAGS,
      ...BEARER_READ,
      body: { kind: 'json', schema: ProbeRequestSchema },
      responses: {
        200: { description: 'The probe result', schema: ProbeResultSchema },
        403: { description: 'media_unavailable' },
        404: { description: 'media_not_found' },
        422: { description: 'unsupported_media, validation_error' },
        502: { description: 'upstream_error' },
        504: { description: 'probe_timeout' },
      },
      handler: async ({ body }) => ({ status: 200, body: await deps.prober.probe(body.url) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/media',
      operationId: 'listMedia',
      summary: "List the account's uploaded files and media assets, newest first",
      tags: TAGS,
      ...BEARER_READ,
      query: withPageSize(MediaListQuery, limits.listMaxLimit),
      responses: { 200: { description: 'List envelope', schema: MediaListSchema } },
      handler: async ({ query, principal }) => {
        const page = await readKeysetPage(query, limits.listMaxLimit, (paging) =>
          library.store.list({ accountId: principal!.accountId, ...paging, ...(query.status !== undefined ? { status: query.status } : {}) }),
        );
        return {
          status: 200,
          body: cursorPageBody(
            page.items.map((r) => mediaView(library, r)),
            page,
          ),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/media/{file_id}',
      operationId: 'getMedia',
      summary: 'A media asset with a fresh signed playback URL',
      description:
        `\`expires_in\` is in seconds: default MEDIA_URL_DEFAULT_TTL_SECONDS (${limits.mediaUrlDefaultTtlSeconds}), 1 to MEDIA_URL_MAX_TTL_SECONDS (${limits.mediaUrlMaxTtlSeconds}); outside that range → 422 validation_error. ` +
        '`playback_url` needs no credential and supports HTTP Range (206) and HEAD. 409 upload_not_complete while a direct upload has no bytes yet.',
      tags: TAGS,
      ...BEARER_READ,
      params: FileIdParams,
      query: mediaGetQuery(limits.mediaUrlDefaultTtlSeconds, limits.mediaUrlMaxTtlSeconds),
      responses: {
        200: { description: 'The media asset and its playback URL', schema: MediaPlaybackSchema },
        404: { description: 'file_not_found' },
        409: { description: 'upload_not_complete' },
        422: { description: 'validation_error (expires_in)' },
      },
      handler: async ({ params, query, principal, exchange }) => {
        // The schema holds expires_in to 1..MEDIA_URL_MAX_TTL_SECONDS; the default is within it (config).
        const ttl = query.expires_in ?? limits.mediaUrlDefaultTtlSeconds;
        const record = await library.getOwned(params.file_id, principal!.accountId);
        if (record.status === 'pending') throw new ApiError('upload_not_complete');
        const signed = library.playbackUrl(record, ttl);
        exchange.setHeader('Cache-Control', 'no-store');
        return {
          status: 200,
          body: { ...mediaView(library, record), playback_url: signed.url, expires_at: signed.expiresAt.toISOString(), expires_in: ttl },
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/media/{file_id}',
      operationId: 'deleteMedia',
      summary: 'Delete an uploaded file or media asset and its bytes',
      description: 'Jobs that already transcribed it keep their transcripts; their audio links stop working. Jobs still waiting for it fail.',
      tags: TAGS,
      ...BEARER_WRITE,
      params: FileIdParams,
      responses: { 200: { description: 'Deleted', schema: DeletedSchema }, 404: { description: 'file_not_found' } },
      handler: async ({ params, principal }) => {
        await library.delete(params.file_id, principal!.accountId);
        return { status: 200, body: { id: params.file_id, object: 'media', deleted: true } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/files/media/{file_id}',
      operationId: 'playMedia',
      summary: 'Media playback through a signed URL (supports Range and HEAD)',
      description: SIGNED_URL_DESCRIPTION,
      tags: ['Files'],
      ...SIGNED,
      params: FileIdParams,
      query: SignedUrlQuery,
      responses: signedDownloadResponses('audio/*', 'file_not_found'),
      handler: async ({ params, exchange }) => {
        requireValidSignature(deps.signer().verify('GET', playbackPath(params.file_id), exchange));
        const record = await library.store.get(params.file_id);
        const info = record === null || record.status === 'pending' ? null : await deps.storage.stat(record.storageKey);
        if (record === null || info === null) throw new ApiError('file_not_found', { message: 'The file no longer exists.' });
        await serveStoredObject(exchange, deps.storage, { ...info, contentType: record.contentType }, { filename: record.filename });
      },
    }),
  ];
}
