// What every FileStorage backend must do; run against local files and against a real
// S3-protocol server (s3rver), like the store contract runs on SQLite and PostgreSQL.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import type { FileStorage } from '../../src/platform/files/file-storage.js';

export function storageContract(name: string, open: () => FileStorage): void {
  const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
  const body = (): Readable => Readable.from([bytes.subarray(0, 30_000), bytes.subarray(30_000)]);

  describe(`FileStorage contract: ${name}`, () => {
    it('puts a stream, stats it and reads it back whole and by range', async () => {
      const storage = open();
      const stored = await storage.put('accounts/a/jobs/j1/audio.wav', body(), { contentType: 'audio/wav', maxBytes: 1_000_000 });
      expect(stored).toEqual({ key: 'accounts/a/jobs/j1/audio.wav', size: bytes.length, contentType: 'audio/wav' });
      expect(await storage.stat('accounts/a/jobs/j1/audio.wav')).toEqual(stored);
      const whole = Buffer.concat(await (await storage.read('accounts/a/jobs/j1/audio.wav')).toArray());
      expect(whole.equals(bytes)).toBe(true);
      const part = Buffer.concat(await (await storage.read('accounts/a/jobs/j1/audio.wav', { start: 100, end: 199 })).toArray());
      expect(part.equals(bytes.subarray(100, 200))).toBe(true);
    });

    it('puts a buffer (transcripts) with its content type', async () => {
      const storage = open();
      const json = Buffer.from(JSON.stringify({ text: 'ሰላም' }));
      await storage.putBuffer('accounts/a/jobs/j2/transcript.json', json, 'application/json');
      expect(await storage.stat('accounts/a/jobs/j2/transcript.json')).toEqual({
        key: 'accounts/a/jobs/j2/transcript.json',
        size: json.length,
        contentType: 'application/json',
      });
      expect(JSON.parse(await text(await storage.read('accounts/a/jobs/j2/transcript.json')))).toEqual({ text: 'ሰላም' });
    });

    it('refuses a stream over maxBytes and stores nothing', async () => {
      const storage = open();
      await expect(storage.put('accounts/a/uploads/big.bin', body(), { contentType: 'application/octet-stream', maxBytes: 50_000 })).rejects.toMatchObject({
        code: 'payload_too_large',
      });
      expect(await storage.stat('accounts/a/uploads/big.bin')).toBeNull();
    });

    it('hands out a local path for tools (ffmpeg) with the same bytes', async () => {
      const storage = open();
      await storage.put('accounts/a/jobs/j3/audio.mp3', body(), { contentType: 'audio/mpeg', maxBytes: 1_000_000 });
      const local = await storage.localPath('accounts/a/jobs/j3/audio.mp3');
      try {
        expect(readFileSync(local.path).equals(bytes)).toBe(true);
      } finally {
        await local.release();
      }
    });

    it('deletes one object, and every object under a prefix (not its neighbours)', async () => {
      const storage = open();
      for (const key of [
        'accounts/b/jobs/j4/audio.wav',
        'accounts/b/jobs/j4/transcript.json',
        'accounts/b/jobs/j40/audio.wav',
        'accounts/b/jobs/j5/audio.wav',
      ]) {
        await storage.putBuffer(key, Buffer.from(key), 'text/plain');
      }
      await storage.delete('accounts/b/jobs/j5/audio.wav');
      expect(await storage.stat('accounts/b/jobs/j5/audio.wav')).toBeNull();
      await storage.deletePrefix('accounts/b/jobs/j4');
      expect(await storage.stat('accounts/b/jobs/j4/audio.wav')).toBeNull();
      expect(await storage.stat('accounts/b/jobs/j4/transcript.json')).toBeNull();
      expect(await storage.stat('accounts/b/jobs/j40/audio.wav')).not.toBeNull();
      // Deleting what is not there is not an error.
      await storage.delete('accounts/b/jobs/nothing.wav');
      await storage.deletePrefix('accounts/b/jobs/nothing');
    });

    it('answers null for a missing object, fails reading one, and refuses keys that leave the root', async () => {
      const storage = open();
      expect(await storage.stat('accounts/a/missing.wav')).toBeNull();
      await expect(storage.read('accounts/a/missing.wav')).rejects.toThrow();
      for (const key of ['../escape', 'a/../../b', '/abs', 'a//b', 'a/b c']) {
        await expect(storage.stat(key)).rejects.toThrow(/invalid storage key/);
      }
    });

    it('reports health', async () => {
      expect(await open().health()).toEqual({ ok: true });
    });
  });
}
