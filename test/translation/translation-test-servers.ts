// The HTTPS host of translation sources: startSourceServer, or useSourceServer for a whole test file
// (started by vitest's beforeAll, closed by its afterAll after the hooks registered later).
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type RecordedRequest, type TestServer } from '../helpers/tls-servers.js';

/** One file the source server serves: bytes, content type, status. */
export interface SourceFile {
  readonly body: string | Buffer;
  readonly type?: string;
  readonly status?: number;
}

/**
 * A real HTTPS host of source files (certificate from the test CA), with files added at will and
 * paths that stall until released (to hold a job in PROCESSING).
 */
export async function startSourceServer(
  files: Record<string, SourceFile> = {},
): Promise<
  TestServer & { url: (name: string) => string; files: Record<string, SourceFile>; stall: (name: string) => () => void; fetches: (name: string) => number }
> {
  const stalled = new Map<string, ServerResponse[]>();
  const held = new Set<string>();
  const serve = (name: string, res: ServerResponse): void => {
    const file = files[name];
    if (file === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(file.status ?? 200, { 'content-type': file.type ?? 'text/plain; charset=utf-8' }).end(file.body);
  };
  const server = await startTestServer({
    tls: true,
    respond: (req: RecordedRequest, res) => {
      const name = decodeURIComponent(new URL(req.url, 'https://x').pathname.slice(1));
      if (held.has(name)) {
        stalled.set(name, [...(stalled.get(name) ?? []), res]);
        return;
      }
      serve(name, res);
    },
  });
  return Object.assign(server, {
    url: (name: string) => `${server.origin}/${name}`,
    files,
    stall: (name: string) => {
      held.add(name);
      return () => {
        held.delete(name);
        for (const res of stalled.get(name) ?? []) if (!res.destroyed) serve(name, res);
        stalled.delete(name);
      };
    },
    fetches: (name: string) => server.requests.filter((r) => decodeURIComponent(new URL(r.url, 'https://x').pathname.slice(1)) === name).length,
  });
}

export type SourceServer = Awaited<ReturnType<typeof startSourceServer>>;

/** A source server serving `files` for the test file that calls it; read it inside tests and hooks only. */
export function useSourceServer(files: Record<string, SourceFile>): Pick<SourceServer, 'files' | 'url' | 'stall' | 'fetches'> {
  let current: SourceServer | undefined;
  beforeAll(async () => {
    current = await startSourceServer(files);
  });
  afterAll(async () => current?.close());
  return { files, url: (name) => current!.url(name), stall: (name) => current!.stall(name), fetches: (name) => current!.fetches(name) };
}
