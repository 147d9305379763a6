import { Type } from '@sinclair/typebox';
import type { Limits } from '../../platform/config/config.js';
import type { UrlSigner } from '../../platform/auth/url-signer.js';
import { ApiError } from '../../platform/errors/api-error.js';
import { readMultipart } from '../../platform/http/body-readers.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import { ACCEPTED_FORMATS_TEXT } from '../../media/audio-check.js';
import { uploadPath, type MediaLibrary } from '../../media/media-library.js';
import type { MediaRecord } from '../../platform/db/media-records.js';
import { mediaView } from '../../media/media-views.js';
import { requireValidSignature } from '../signed-urls.js';
import { FileIdParams, MediaFileSchema, SignedUploadQuery, SignedUploadSchema, UploadMultipart } from './media-schemas.js';
import { BEARER_WRITE, SIGNED } from '../route-access.js';

export interface UploadRouteDeps {
  readonly library: MediaLibrary;
  readonly signer: () => UrlSigner;
  readonly limits: Limits;
}

const TAGS = ['Uploads'];
/** Room for the multipart framing around one file. */
const MULTIPART_OVERHEAD = 1_000_000;

export function uploadRoutes(deps: UploadRouteDeps): RouteDefinition[] {
  const { library, limits } = deps;
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/uploads',
      operationId: 'uploadFile',
      summary: 'Upload an audio file (multipart); it becomes a media asset',
      description:
        `Multipart with one file part named \`file\`, streamed to storage. The content is checked: ${ACCEPTED_FORMATS_TEXT}, ` +
        `recognised by its bytes (not its name), with an audio stream whose first 10 seconds decode → else 400 invalid_audio_format (the message says why). Larger than MAX_AUDIO_BYTES → 413 payload_too_large. ` +
        'Use `file_url` as `audio_url` of POST /v1/transcriptions, or `svc_uri` in the `audio_urls` of a batch.',
      tags: TAGS,
      ...BEARER_WRITE,
      body: { kind: 'multipart', schema: UploadMultipart },
      maxBodyBytes: limits.maxAudioBytes + MULTIPART_OVERHEAD,
      sizeLimit: { bytes: limits.maxAudioBytes, subject: 'The file' },
      responses: {
        201: { description: 'The stored file (status ready)', schema: MediaFileSchema },
        422: { description: 'validation_error' },
      },
      handler: async ({ exchange, principal, signal }) => {
        const form = await readMultipart<MediaRecord>(exchange, {
          maxFileBytes: limits.maxAudioBytes,
          maxFiles: 1,
          // The signal: a client gone mid-upload stops the write (its temporary file is removed).
          onFile: (file) => library.upload(principal!, file, file.field, signal),
          discard: (record) => library.delete(record.id, record.accountId),
        });
        const record = form.files[0];
        if (record === undefined) throw new ApiError('missing_required_field', { message: "Missing required field 'file' (the audio file).", param: 'file' });
        exchange.setHeader('Location', `/v1/media/${record.id}`);
        return { status: 201, body: mediaView(library, record) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/uploads/signed-url',
      operationId: 'createSignedUpload',
      summary: 'A signed URL to PUT a file directly (for large files)',
      description:
        'Flow: (1) this call; (2) `PUT` the bytes to `upload_url` with the same `Content-Type` (and exactly `content_length` bytes when given), no credential; ' +
        `(3) use \`file_url\` as \`audio_url\` (or \`svc_uri\` in a batch), and call POST /v1/uploads/{file_id}/finalize to keep it as a media asset. ` +
        'Uploads never finalized are deleted after UPLOAD_RETENTION_SECONDS (24 hours). ' +
        'A query problem (no `filename`, a `content_type` that is not audio or video, a `content_length` below 1) → 422 validation_error naming the parameter; ' +
        '`content_length` over MAX_AUDIO_BYTES → 413 payload_too_large, as every size limit.',
      tags: TAGS,
      ...BEARER_WRITE,
      query: SignedUploadQuery,
      responses: {
        200: { description: 'The signed upload URL', schema: SignedUploadSchema },
        413: { description: 'payload_too_large: content_length over MAX_AUDIO_BYTES' },
      },
      handler: async ({ query, principal }) => {
        const { record, uploadUrl, expiresAt } = await library.createSignedUpload(principal!, {
          filename: query.filename,
          contentType: query.content_type ?? 'audio/mpeg',
          contentLength: query.content_length ?? null,
        });
        return {
          status: 200,
          body: {
            upload_url: uploadUrl,
            file_url: library.fileUrl(record.id),
            file_id: record.id,
            svc_uri: library.svcUri(record.id),
            method: 'PUT',
            headers: { 'Content-Type': record.contentType },
            expires_at: expiresAt.toISOString(),
          },
        };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/v1/files/uploads/{file_id}',
      operationId: 'putSignedUpload',
      summary: 'Receive the bytes of a direct upload (the signed upload_url)',
      description:
        'Needs no credential: `expires`, `sig`, `content_type` (and `content_length`) authorise it and cannot be altered (403). ' +
        'Content-Type other than the signed one → 415; a length other than the signed one → 400 invalid_field_value (param Content-Length); ' +
        `over MAX_AUDIO_BYTES → 413; not audio → 400 invalid_audio_format. A PUT again replaces the bytes until the upload is finalized (then 409 upload_finalized).`,
      tags: ['Files'],
      ...SIGNED,
      params: FileIdParams,
      query: Type.Object({
        expires: Type.Optional(Type.String()),
        sig: Type.Optional(Type.String()),
        content_type: Type.Optional(Type.String()),
        content_length: Type.Optional(Type.String()),
      }),
      body: { kind: 'raw', description: 'The file bytes, with the Content-Type the URL was issued for' },
      maxBodyBytes: limits.maxAudioBytes,
      sizeLimit: { bytes: limits.maxAudioBytes, subject: 'The file' },
      responses: {
        200: { description: 'Received (status uploaded)', schema: MediaFileSchema },
        403: { description: 'invalid_signature or expired_signature' },
        404: { description: 'file_not_found: the upload expired or was deleted' },
        409: { description: 'upload_finalized' },
      },
      handler: async ({ params, exchange, signal }) => {
        const names = exchange.query.has('content_length') ? ['content_type', 'content_length'] : ['content_type'];
        requireValidSignature(deps.signer().verify('PUT', uploadPath(params.file_id), exchange, names));
        const boundLength = exchange.query.get('content_length');
        const body = exchange.body();
        // The body may fail (over the limit, client gone) before it is read; its error then waits in
        // the stream for the reader instead of going unhandled.
        body.on('error', () => undefined);
        const record = await library.receiveSignedUpload(
          params.file_id,
          { contentType: exchange.header('content-type') ?? '', contentLength: exchange.contentLength, body, signal },
          { contentType: exchange.query.get('content_type') ?? '', contentLength: boundLength === null ? null : Number(boundLength) },
        );
        return { status: 200, body: mediaView(library, record) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/uploads/{file_id}/finalize',
      operationId: 'finalizeUpload',
      summary: 'Register a directly uploaded file as a media asset',
      description:
        'No request body. Answers the media asset (status ready); calling it again answers the same record. ' +
        '409 upload_not_complete when the bytes were not PUT yet; 404 file_not_found for an unknown or expired upload.',
      tags: TAGS,
      ...BEARER_WRITE,
      params: FileIdParams,
      responses: {
        200: { description: 'The media asset', schema: MediaFileSchema },
        404: { description: 'file_not_found' },
        409: { description: 'upload_not_complete' },
      },
      handler: async ({ params, principal }) => ({ status: 200, body: mediaView(library, await library.finalize(params.file_id, principal!.accountId)) }),
    }),
  ];
}
