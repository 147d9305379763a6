import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Principal } from '../platform/auth/principal.js';
import type { UrlSigner } from '../platform/auth/url-signer.js';
import type { Limits } from '../platform/config/config.js';
import { sizeLimitExceeded } from '../platform/errors/size-limit.js';
import { ApiError, isApiError } from '../platform/errors/api-error.js';
import type { StoredAudioResolver } from '../jobs/audio-fetcher.js';
import type { Asr } from '../engines/asr/asr.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import { checkStoredAudio, storeCheckedAudio } from './audio-check.js';
import type { MediaRecord, MediaStore } from '../platform/db/media-records.js';

export function newFileId(): string {
  return `file_${randomBytes(12).toString('hex')}`;
}

export const SVC_PREFIX = 'svc://media/';
const FILE_ID = /^file_[0-9a-f]{24}$/;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/**
 * A temporary file untouched this long is left over from a killed process: a live upload writes
 * to it as bytes arrive, and an idle connection is closed within seconds.
 */
const STALE_PARTIAL_MS = 60 * 60 * 1000;

export interface MediaLibraryDeps {
  readonly store: MediaStore;
  readonly storage: FileStorage;
  /** The container check of uploads. */
  readonly asr: Pick<Asr, 'sniff'>;
  readonly ffprobe: string;
  /** Decodes the start of each upload before it is accepted. */
  readonly ffmpeg: string;
  readonly limits: Limits;
  readonly logger: Logger;
  /** PUBLIC_BASE_URL (or this host and port), known once the server listens. */
  readonly baseUrl: () => string;
  readonly signer: () => UrlSigner;
}

/** The signed-PUT path of an upload; the signature binds content_type (and content_length when given). */
export const uploadPath = (fileId: string): string => `/v1/files/uploads/${fileId}`;
export const playbackPath = (fileId: string): string => `/v1/files/media/${fileId}`;

/**
 * Uploaded files and media assets: storing and checking uploads, signed upload and playback
 * URLs, and resolving `file_url` / `svc://` references to stored audio of the same account.
 * Files live under `accounts/<account>/media/<file_id>/`, apart from any job, so deleting a job
 * never deletes them.
 */
export class MediaLibrary {
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly deps: MediaLibraryDeps) {}

  get store(): MediaStore {
    return this.deps.store;
  }

  storageKey(accountId: string, fileId: string): string {
    return `accounts/${accountId}/media/${fileId}/file`;
  }

  fileUrl(fileId: string): string {
    return `${this.deps.baseUrl()}/v1/media/${fileId}`;
  }

  svcUri(fileId: string): string {
    return `${SVC_PREFIX}${fileId}`;
  }

  /** What a gateway reference (svc://media/<id> or this gateway's file_url) names after its prefix; null for other URLs. */
  referencedId(url: string): string | null {
    if (url.startsWith(SVC_PREFIX)) return url.slice(SVC_PREFIX.length);
    const prefix = `${this.deps.baseUrl()}/v1/media/`;
    return url.startsWith(prefix) ? url.slice(prefix.length) : null;
  }

  /** The audio resolver the job runner uses for file_url and svc:// inputs. */
  readonly resolveStored: StoredAudioResolver = async (url, accountId) => {
    const id = this.referencedId(url);
    if (id === null) return null;
    const record = FILE_ID.test(id) ? await this.deps.store.get(id) : null;
    if (record === null || record.accountId !== accountId) {
      throw new ApiError('audio_download_failed', { message: `${url} names no uploaded file of this account.` });
    }
    const adopted = (await this.adoptDirectUpload(record)) ?? record;
    if (adopted.status === 'pending' || adopted.sizeBytes === null) {
      throw new ApiError('audio_download_failed', { message: `The bytes of ${record.id} were never uploaded (PUT them to its upload_url first).` });
    }
    return { key: adopted.storageKey, size: adopted.sizeBytes };
  };

  /** A file of this account, or 404 file_not_found. */
  async getOwned(fileId: string, accountId: string): Promise<MediaRecord> {
    const record = FILE_ID.test(fileId) ? await this.deps.store.get(fileId) : null;
    if (record === null || record.accountId !== accountId) throw new ApiError('file_not_found', { message: `No uploaded file ${fileId}.` });
    return record;
  }

  private checkDeps() {
    const { storage, asr, ffprobe, ffmpeg } = this.deps;
    return { storage, asr, ffprobe, ffmpeg, probeTimeoutSeconds: this.deps.limits.probeTimeoutSeconds };
  }

  /**
   * POST /v1/uploads: one multipart file, streamed to storage and checked; a ready media asset.
   * `signal` (the client went away) stops the write and removes what was written.
   */
  async upload(
    principal: Principal,
    file: { filename: string; mimeType: string; stream: Readable },
    param: string,
    signal?: AbortSignal,
  ): Promise<MediaRecord> {
    const id = newFileId();
    const key = this.storageKey(principal.accountId, id);
    let checked;
    try {
      checked = await storeCheckedAudio(this.checkDeps(), key, file.stream, {
        maxBytes: this.deps.limits.maxAudioBytes,
        describe: file.filename || 'The file',
        param,
        declaredType: file.mimeType,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (isApiError(error) && error.code === 'payload_too_large') {
        throw sizeLimitExceeded(file.filename ? `The file '${file.filename}'` : 'The file', this.deps.limits.maxAudioBytes, param);
      }
      throw error;
    }
    const now = new Date().toISOString();
    const record: MediaRecord = {
      ...newRecord(principal, id, now),
      status: 'ready',
      source: 'upload',
      storageKey: key,
      filename: cleanFilename(file.filename) || `${id}.${checked.format}`,
      contentType: checked.contentType,
      expectedBytes: null,
      sizeBytes: checked.object.size,
      format: checked.format,
      durationSeconds: checked.durationSeconds,
      uploadedAt: now,
      finalizedAt: now,
    };
    try {
      await this.deps.store.insert(record);
    } catch (error) {
      await this.deps.storage.delete(key).catch(() => undefined);
      throw error;
    }
    return record;
  }

  /** GET /v1/uploads/signed-url: a pending record and a PUT URL bound to its type and length. */
  async createSignedUpload(
    principal: Principal,
    input: { filename: string; contentType: string; contentLength: number | null },
  ): Promise<{ record: MediaRecord; uploadUrl: string; expiresAt: Date }> {
    const filename = cleanFilename(input.filename);
    // These are query parameters (GET /v1/uploads/signed-url): like every query problem, 422 validation_error.
    if (filename === '') throw new ApiError('validation_error', { message: "Invalid value for 'filename': must name a file.", param: 'filename' });
    const contentType = normaliseMediaType(input.contentType);
    if (contentType === null || !/^(audio\/|video\/|application\/(ogg|octet-stream)$)/.test(contentType)) {
      throw new ApiError('validation_error', {
        message: `Invalid value for 'content_type': must be an audio or video media type such as audio/mpeg, got '${input.contentType}'.`,
        param: 'content_type',
      });
    }
    if (input.contentLength !== null && input.contentLength > this.deps.limits.maxAudioBytes) {
      throw sizeLimitExceeded(`'content_length' (${input.contentLength} bytes)`, this.deps.limits.maxAudioBytes, 'content_length');
    }
    const id = newFileId();
    const record: MediaRecord = {
      ...newRecord(principal, id, new Date().toISOString()),
      status: 'pending',
      source: 'signed_upload',
      storageKey: this.storageKey(principal.accountId, id),
      filename,
      contentType,
      expectedBytes: input.contentLength,
      sizeBytes: null,
      format: null,
      durationSeconds: null,
      uploadedAt: null,
      finalizedAt: null,
    };
    await this.deps.store.insert(record);
    const bound: Record<string, string> = { content_type: contentType };
    if (input.contentLength !== null) bound['content_length'] = String(input.contentLength);
    const ttl = this.deps.limits.signedUrlTtlSeconds;
    const { presignPut } = this.deps.storage;
    if (presignPut !== undefined) {
      // Straight to the bucket: the bytes are checked when the upload is finalized or first used.
      const uploadUrl = await presignPut(record.storageKey, { contentType, expiresInSeconds: ttl });
      return { record, uploadUrl, expiresAt: new Date(Date.now() + ttl * 1000) };
    }
    const signed = this.deps.signer().sign('PUT', uploadPath(id), ttl, bound);
    return { record, uploadUrl: signed.url, expiresAt: signed.expiresAt };
  }

  /**
   * The signed PUT: the request's Content-Type must be the bound one and its length the bound
   * length (when one was given) and within the upload limit. Replaces earlier bytes until the
   * upload is finalized.
   */
  async receiveSignedUpload(
    fileId: string,
    request: { contentType: string; contentLength: number | null; body: Readable; signal: AbortSignal },
    bound: { contentType: string; contentLength: number | null },
  ): Promise<MediaRecord> {
    const record = FILE_ID.test(fileId) ? await this.deps.store.get(fileId) : null;
    if (record === null) throw new ApiError('file_not_found', { message: `No upload ${fileId}; it may have expired or been deleted.` });
    if (record.status === 'ready') throw new ApiError('upload_finalized');
    if (normaliseMediaType(request.contentType) !== bound.contentType) {
      throw new ApiError('unsupported_content_type', {
        message: `This upload URL was issued for Content-Type ${bound.contentType}; the request sent ${request.contentType || '(none)'}.`,
        param: 'Content-Type',
      });
    }
    const max = this.deps.limits.maxAudioBytes;
    if (request.contentLength !== null && request.contentLength > max) {
      throw sizeLimitExceeded('The file', max);
    }
    if (bound.contentLength !== null && request.contentLength !== null && request.contentLength !== bound.contentLength) {
      throw new ApiError('invalid_field_value', {
        message: `This upload URL was issued for ${bound.contentLength} bytes; the request is ${request.contentLength} bytes.`,
        param: 'Content-Length',
      });
    }
    let checked;
    try {
      checked = await storeCheckedAudio(this.checkDeps(), record.storageKey, request.body, {
        maxBytes: bound.contentLength ?? max,
        describe: record.filename,
        param: 'body',
        declaredType: bound.contentType,
        signal: request.signal,
      });
    } catch (error) {
      if (isApiError(error) && error.code === 'payload_too_large') {
        if (bound.contentLength !== null && bound.contentLength < max) {
          throw new ApiError('invalid_field_value', {
            message: `The body is longer than the ${bound.contentLength} bytes this upload URL was issued for.`,
            param: 'Content-Length',
          });
        }
        throw sizeLimitExceeded('The file', max);
      }
      throw error;
    }
    if (bound.contentLength !== null && checked.object.size !== bound.contentLength) {
      await this.deps.storage.delete(record.storageKey).catch(() => undefined);
      throw new ApiError('invalid_field_value', {
        message: `This upload URL was issued for ${bound.contentLength} bytes; ${checked.object.size} arrived.`,
        param: 'Content-Length',
      });
    }
    const now = new Date().toISOString();
    const updated = await this.deps.store.update(
      fileId,
      {
        status: 'uploaded',
        sizeBytes: checked.object.size,
        format: checked.format,
        contentType: checked.contentType,
        durationSeconds: checked.durationSeconds,
        uploadedAt: now,
      },
      ['pending', 'uploaded'],
    );
    if (updated === null) {
      // Finalized or deleted while the bytes streamed in: those bytes are not wanted.
      const current = await this.deps.store.get(fileId);
      if (current === null) await this.deps.storage.delete(record.storageKey).catch(() => undefined);
      throw current === null ? new ApiError('file_not_found', { message: `The upload ${fileId} was deleted.` }) : new ApiError('upload_finalized');
    }
    return updated;
  }

  /**
   * A pending direct upload whose bytes went straight to the bucket (presigned PUT): once they
   * are there, the same checks as a PUT through the gateway (size, bound length, audio content),
   * then `uploaded`. Null while nothing arrived; the record as it is when not a pending direct upload.
   */
  private async adoptDirectUpload(record: MediaRecord): Promise<MediaRecord | null> {
    if (record.status !== 'pending' || this.deps.storage.presignPut === undefined) return record;
    const object = await this.deps.storage.stat(record.storageKey);
    if (object === null) return null;
    const max = this.deps.limits.maxAudioBytes;
    if (object.size > max || (record.expectedBytes !== null && object.size !== record.expectedBytes)) {
      await this.deps.storage.delete(record.storageKey).catch(() => undefined);
      throw object.size > max
        ? sizeLimitExceeded('The file', max)
        : new ApiError('invalid_field_value', {
            message: `This upload URL was issued for ${record.expectedBytes} bytes; ${object.size} arrived.`,
            param: 'Content-Length',
          });
    }
    const head =
      object.size === 0
        ? Buffer.alloc(0)
        : Buffer.concat(await (await this.deps.storage.read(record.storageKey, { start: 0, end: Math.min(object.size, 64) - 1 })).toArray());
    const checked = await checkStoredAudio(this.checkDeps(), object, head, { describe: record.filename, param: 'body' });
    const updated = await this.deps.store.update(
      record.id,
      {
        status: 'uploaded',
        sizeBytes: object.size,
        format: checked.format,
        contentType: checked.contentType,
        durationSeconds: checked.durationSeconds,
        uploadedAt: new Date().toISOString(),
      },
      ['pending'],
    );
    return updated ?? (await this.deps.store.get(record.id));
  }

  /** POST /v1/uploads/{file_id}/finalize: the uploaded file becomes a media asset. Idempotent. */
  async finalize(fileId: string, accountId: string): Promise<MediaRecord> {
    const record = (await this.adoptDirectUpload(await this.getOwned(fileId, accountId))) ?? (await this.getOwned(fileId, accountId));
    if (record.status === 'ready') return record;
    if (record.status === 'pending') throw new ApiError('upload_not_complete');
    return (await this.deps.store.update(fileId, { status: 'ready', finalizedAt: new Date().toISOString() }, ['uploaded'])) ?? this.getOwned(fileId, accountId);
  }

  /** A signed playback URL (GET with Range, no credential) valid `ttlSeconds`. */
  playbackUrl(record: MediaRecord, ttlSeconds: number): { url: string; expiresAt: Date } {
    return this.deps.signer().sign('GET', playbackPath(record.id), ttlSeconds);
  }

  async delete(fileId: string, accountId: string): Promise<void> {
    const record = await this.getOwned(fileId, accountId);
    await this.deps.store.delete(record.id);
    await this.deps.storage.delete(record.storageKey).catch(() => undefined);
  }

  /** Deletes direct uploads never finalized within UPLOAD_RETENTION_SECONDS. Returns how many. */
  async sweep(now: number = Date.now()): Promise<number> {
    const before = new Date(now - this.deps.limits.uploadRetentionSeconds * 1000).toISOString();
    let removed = 0;
    for (;;) {
      const batch = await this.deps.store.findUnfinalized(before, 100);
      for (const record of batch) {
        // The record goes first, and only while still unfinalized: a finalize landing now (in
        // this process or another) keeps its file, and two sweepers never both count one upload.
        if (!(await this.deps.store.delete(record.id, ['pending', 'uploaded']))) continue;
        await this.deps.storage.delete(record.storageKey).catch(() => undefined);
        removed++;
      }
      if (batch.length < 100) break;
    }
    if (removed > 0) this.deps.logger.info({ removed }, 'removed direct uploads that were never finalized');
    return removed;
  }

  /** Removes temporary files of uploads that died with their process (untouched for STALE_PARTIAL_MS). Returns how many. */
  async sweepPartials(now: number = Date.now()): Promise<number> {
    const removed = (await this.deps.storage.sweepPartials?.(new Date(now - STALE_PARTIAL_MS))) ?? 0;
    if (removed > 0) this.deps.logger.info({ removed }, 'removed temporary files of unfinished uploads');
    return removed;
  }

  /** Sweeps at start and hourly: unfinalized direct uploads, and temporary files a killed process left. */
  start(): void {
    const run = (): void => {
      void this.sweep().catch((error: unknown) => this.deps.logger.error({ err: error }, 'upload sweep failed'));
      void this.sweepPartials().catch((error: unknown) => this.deps.logger.error({ err: error }, 'temporary file sweep failed'));
    };
    run();
    this.sweeper = setInterval(run, SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  async close(): Promise<void> {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}

/** The fields every new media record starts with: its id, owner and creation time. */
function newRecord(principal: Principal, id: string, now: string): Pick<MediaRecord, 'id' | 'accountId' | 'keyId' | 'createdAt' | 'updatedAt'> {
  return { id, accountId: principal.accountId, keyId: principal.key.id, createdAt: now, updatedAt: now };
}

/** The last path segment, without control characters, at most 255 characters. */
export function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
}

/** `Audio/MPEG; charset=x` → `audio/mpeg`; null when it is no `type/subtype`. */
export function normaliseMediaType(value: string): string | null {
  const type = value.split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type) ? type : null;
}
