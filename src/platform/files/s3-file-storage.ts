import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ByteLimiter } from './byte-limiter.js';
import { assertStorageKey, type ByteRange, type FileStorage, type PresignedGet, type StoredObject } from './file-storage.js';

export interface S3StorageSettings {
  readonly bucket: string;
  readonly region: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2, ...); null: AWS. */
  readonly endpoint: string | null;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. */
  readonly forcePathStyle: boolean;
  /** Static credentials; null: the AWS SDK's default chain (environment, profile, instance role). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
  /** Prepended to every key (`prefix/` + key); empty: keys at the bucket's root. */
  readonly prefix: string;
  /** Signed download links redirect to presigned GETs on the bucket instead of streaming through the gateway. */
  readonly presignedDownloads: boolean;
  /** Direct uploads (GET /v1/uploads/signed-url) are presigned PUTs to the bucket instead of the gateway. */
  readonly directUploads: boolean;
}

/**
 * Objects in an S3-compatible bucket through the official AWS SDK. Keys are the storage keys
 * under `prefix`. A streamed `put` is spooled to a temporary file first (the size limit is
 * enforced there and S3 needs the length), then sent in one PutObject; an object therefore
 * appears whole or not at all. `localPath` downloads to a temporary file that `release` removes.
 * Checksums are sent only where S3 requires them, so S3-compatible servers without the newer
 * checksum headers work too.
 */
export class S3FileStorage implements FileStorage {
  readonly backend = 's3' as const;
  private readonly client: S3Client;
  private readonly prefix: string;

  constructor(private readonly settings: S3StorageSettings) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(settings.endpoint !== null ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials !== null ? { credentials: settings.credentials } : {}),
    });
    this.prefix = settings.prefix === '' ? '' : `${settings.prefix.replace(/\/+$/, '')}/`;
    if (settings.presignedDownloads) this.presignGet = (key, options) => this.presign(key, options);
    if (settings.directUploads) {
      this.presignPut = (key, options) =>
        getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), ContentType: options.contentType }), {
          expiresIn: Math.max(1, Math.floor(options.expiresInSeconds)),
        });
    }
  }

  readonly presignGet?: (key: string, options: PresignedGet) => Promise<string>;
  readonly presignPut?: (key: string, options: { readonly contentType: string; readonly expiresInSeconds: number }) => Promise<string>;

  private objectKey(key: string): string {
    assertStorageKey(key);
    return this.prefix + key;
  }

  async put(key: string, body: Readable, options: { contentType: string; maxBytes: number; signal?: AbortSignal }): Promise<StoredObject> {
    const objectKey = this.objectKey(key);
    const dir = await mkdtemp(join(tmpdir(), 's3-put-'));
    const spool = join(dir, 'body');
    try {
      const limiter = new ByteLimiter(options.maxBytes);
      await pipeline(body, limiter, createWriteStream(spool), options.signal ? { signal: options.signal } : {});
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: objectKey,
          Body: createReadStream(spool),
          ContentLength: limiter.bytes,
          ContentType: options.contentType,
        }),
        options.signal ? { abortSignal: options.signal } : {},
      );
      return { key, size: limiter.bytes, contentType: options.contentType };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async putBuffer(key: string, body: Buffer, contentType: string): Promise<StoredObject> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Body: body, ContentLength: body.length, ContentType: contentType }),
    );
    return { key, size: body.length, contentType };
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      return { key, size: head.ContentLength ?? 0, contentType: head.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const object = await this.client.send(
      new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
    );
    if (!(object.Body instanceof Readable)) throw new Error('S3 GetObject returned no stream body');
    return object.Body;
  }

  async localPath(key: string): Promise<{ path: string; release: () => Promise<void> }> {
    const dir = await mkdtemp(join(tmpdir(), 's3-get-'));
    const path = join(dir, key.split('/').pop()!);
    try {
      await pipeline(await this.read(key), createWriteStream(path));
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    return { path, release: () => rm(dir, { recursive: true, force: true }) };
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const listed = `${this.objectKey(prefix)}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: listed, ContinuationToken: token }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) await this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: keys, Quiet: true } }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /** A presigned GET straight to the bucket (Range works on it); the name and type ride in the response headers. */
  async presign(key: string, options: PresignedGet): Promise<string> {
    const disposition = `${options.disposition ?? 'inline'}; filename="${options.filename.replace(/[^\w.-]/g, '_')}"`;
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.objectKey(key),
        ResponseContentDisposition: disposition,
        ResponseContentType: options.contentType,
      }),
      { expiresIn: Math.max(1, Math.floor(options.expiresInSeconds)) },
    );
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }));
      return { ok: true };
    } catch (error) {
      // The SDK's message names the bucket at most, never credentials.
      return {
        ok: false,
        detail: error instanceof S3ServiceException ? `${error.name} (HTTP ${error.$metadata.httpStatusCode ?? '?'})` : (error as Error).message,
      };
    }
  }

  close(): void {
    this.client.destroy();
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.$metadata.httpStatusCode === 404 || error.name === 'NotFound' || error.name === 'NoSuchKey');
}
