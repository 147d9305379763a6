import { spawnSync } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveMediaTools } from '../../src/platform/subprocess/media-tools.js';
import { fixturePath } from './fixtures.js';

export const AUDIO_FIXTURES = fixturePath('audio');
export const audioFixture = (name: string): string => fixturePath(`audio/${name}`);

/** Runs ffmpeg (quiet, overwriting) with `args`, whose last is the file it makes; throws with ffmpeg's errors when it fails. */
export function runFfmpeg(args: readonly string[]): void {
  const made = spawnSync(resolveMediaTools().ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
  if (made.status !== 0) throw new Error(`ffmpeg could not build ${args.at(-1)}: ${made.stderr.toString()}`);
}

/** Loops a committed fixture `loops` times into a long FLAC file made at test time (never committed). */
export function loopAudio(target: string, loops: number, source = audioFixture('speech-am.flac')): string {
  runFfmpeg(['-stream_loop', String(loops - 1), '-i', source, '-c:a', 'flac', target]);
  return target;
}

/** Loops a committed fixture into a long file of about `minutes` (the fixture is 8.14 s). */
export function makeLongAudio(target: string, minutes: number, source = audioFixture('speech-am.flac')): string {
  return loopAudio(target, Math.ceil((minutes * 60) / 8.14), source);
}

/** A plain HTTP server on loopback that serves files by name and answers 404 otherwise. */
export async function startFileServer(files: Record<string, string>): Promise<{ url: (name: string) => string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').slice(1).split('?')[0]!);
    const path = files[name];
    if (path === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(path).size });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (name) => `http://127.0.0.1:${port}/${encodeURIComponent(name)}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * An HTTP server whose responses send headers and a little audio, then stall until closed:
 * jobs fetching from it stay `processing` (downloading) for as long as a test needs.
 */
export async function startStallingServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const open = new Set<import('node:http').ServerResponse>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(10_000_000) });
    res.write(Buffer.alloc(1024));
    open.add(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/stalled.mp3`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
      }),
  };
}
