import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile, readFile, access, constants } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { registerServerPath } from '../errors/path-redaction.js';
import { ByteLimiter } from './byte-limiter.js';
import { assertStorageKey, type ByteRange, type FileStorage, type StoredObject } from './file-storage.js';

/**
 * Files under one root folder. Each object is written to a temporary name and renamed into
 * place when complete, so a reader never sees half an object; the content type sits in a
 * `.meta` file beside it, written the same way. Nothing is kept in memory between calls, so
 * several gateway processes may share the folder (a shared volume).
 */
/** The temporary name a write goes to until it is complete. */
const temporaryName = (path: string): string => `${path}.${randomBytes(6).toString('hex')}.partial`;
/** What `temporaryName` makes, and nothing else. */
const TEMPORARY_NAME = /\.[0-9a-f]{12}\.partial$/;

/** Readers see the old text or the new, never a torn one. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = temporaryName(path);
  try {
    await writeFile(temporary, text);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export class LocalFileStorage implements FileStorage {
  readonly backend = 'local' as const;

  constructor(private readonly root: string) {
    registerServerPath(root);
  }

  private path(key: string): string {
    assertStorageKey(key);
    return join(this.root, key);
  }

  async put(key: string, body: Readable, options: { contentType: string; maxBytes: number; signal?: AbortSignal }): Promise<StoredObject> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const temporary = temporaryName(target);
    const limiter = new ByteLimiter(options.maxBytes);
    try {
      await pipeline(body, limiter, createWriteStream(temporary, { flags: 'wx' }), options.signal ? { signal: options.signal } : {});
      await writeAtomically(`${target}.meta`, JSON.stringify({ contentType: options.contentType }));
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { key, size: limiter.bytes, contentType: options.contentType };
  }

  async putBuffer(key: string, body: Buffer, contentType: string): Promise<StoredObject> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const temporary = temporaryName(target);
    await writeFile(temporary, body);
    await writeAtomically(`${target}.meta`, JSON.stringify({ contentType }));
    await rename(temporary, target);
    return { key, size: body.length, contentType };
  }

  async stat(key: string): Promise<StoredObject | null> {
    const target = this.path(key);
    try {
      const info = await stat(target);
      let contentType = 'application/octet-stream';
      try {
        contentType = (JSON.parse(await readFile(`${target}.meta`, 'utf8')) as { contentType: string }).contentType;
      } catch {
        // no metadata: generic type
      }
      return { key, size: info.size, contentType };
    } catch {
      return null;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const target = this.path(key);
    await access(target, constants.R_OK);
    return createReadStream(target, range ? { start: range.start, end: range.end } : {});
  }

  async localPath(key: string): Promise<{ path: string; release: () => Promise<void> }> {
    const target = this.path(key);
    await access(target, constants.R_OK);
    return { path: target, release: async () => undefined };
  }

  async delete(key: string): Promise<void> {
    const target = this.path(key);
    await rm(target, { force: true });
    await rm(`${target}.meta`, { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    // Another process may be writing into or removing the same folder: retry ENOTEMPTY and the like.
    await rm(this.path(prefix), { recursive: true, force: true, maxRetries: 3 });
  }

  /**
   * Temporary files are written to as their bytes arrive (and an idle connection is closed within
   * seconds), so one untouched since `before` belongs to a write that died with its process.
   */
  async sweepPartials(before: Date): Promise<number> {
    let entries: string[];
    try {
      entries = await readdir(this.root, { recursive: true });
    } catch {
      return 0; // no folder yet
    }
    let removed = 0;
    for (const entry of entries) {
      if (!TEMPORARY_NAME.test(entry)) continue;
      const path = join(this.root, entry);
      try {
        const info = await stat(path);
        if (!info.isFile() || info.mtimeMs >= before.getTime()) continue;
        await rm(path, { force: true });
        removed++;
      } catch {
        // gone meanwhile (finished or removed by another process)
      }
    }
    return removed;
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.W_OK);
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: (error as Error).message };
    }
  }
}
