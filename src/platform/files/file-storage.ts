import type { Readable } from 'node:stream';

export interface StoredObject {
  readonly key: string;
  readonly size: number;
  readonly contentType: string;
}

export interface ByteRange {
  /** Inclusive. */
  readonly start: number;
  /** Inclusive. */
  readonly end: number;
}

/**
 * Where audio, transcripts and uploads live. Keys are relative paths made of
 * `[A-Za-z0-9._-]` segments joined by `/`. Implementations: local files (embedded) and
 * S3-compatible object storage (distributed).
 */
export interface FileStorage {
  readonly backend: 'local' | 's3';
  /** Streams `body` into `key`; fails (and stores nothing) when it exceeds `maxBytes`. */
  put(key: string, body: Readable, options: { contentType: string; maxBytes: number; signal?: AbortSignal }): Promise<StoredObject>;
  putBuffer(key: string, body: Buffer, contentType: string): Promise<StoredObject>;
  stat(key: string): Promise<StoredObject | null>;
  /** The object's bytes, or a range of them. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** A local path for tools that need one (ffmpeg); local storage returns the file itself. */
  localPath(key: string): Promise<{ path: string; release: () => Promise<void> }>;
  delete(key: string): Promise<void>;
  /** Deletes every object under `prefix/`. */
  deletePrefix(prefix: string): Promise<void>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  /**
   * Removes temporary files of writes that never finished (a process killed mid-upload) last
   * touched before `before`; returns how many. Absent where writes leave nothing behind (S3).
   */
  sweepPartials?(before: Date): Promise<number>;
  /**
   * A URL that serves the object (with Range) straight from the backend, valid `expiresInSeconds`;
   * absent where the gateway must serve the bytes itself (local files).
   */
  presignGet?(key: string, options: PresignedGet): Promise<string>;
  /**
   * A URL to PUT the object straight into the backend with this Content-Type, valid
   * `expiresInSeconds`; absent where uploads go through the gateway (local files).
   */
  presignPut?(key: string, options: { readonly contentType: string; readonly expiresInSeconds: number }): Promise<string>;
}

export interface PresignedGet {
  readonly expiresInSeconds: number;
  readonly filename: string;
  readonly contentType: string;
  readonly disposition?: 'inline' | 'attachment';
}

const KEY_PATTERN = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

export function assertStorageKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new Error(`invalid storage key: ${key}`);
  }
}

/** Parses an HTTP Range header against a size; null when absent, 'unsatisfiable' when out of bounds. */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null; // unsupported forms (multi-range) → whole body
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
