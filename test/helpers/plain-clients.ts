import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const URLLIB_SCRIPT = join(import.meta.dirname, 'urllib-request.py');

export interface PlainAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export type PlainClient = (method: string, url: string, headers: Record<string, string>, bodyBytes: number) => Promise<PlainAnswer>;

/** Node's fetch (undici), the whole body given as one buffer. */
export const viaFetch: PlainClient = async (method, url, headers, bodyBytes) => {
  const response = await fetch(url, { method, headers, body: bodyBytes > 0 ? Buffer.alloc(bodyBytes, 'a') : undefined });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
};

/** node:http, the body written in 64 KiB pieces before the answer is read. */
export const viaNodeHttp: PlainClient = (method, url, headers, bodyBytes) =>
  new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, 'content-length': String(bodyBytes) } });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    const piece = Buffer.alloc(64 * 1024, 'a');
    let left = bodyBytes;
    const writeMore = (): void => {
      while (left > 0) {
        const next = piece.subarray(0, Math.min(piece.length, left));
        left -= next.length;
        if (!req.write(next)) {
          req.once('drain', writeMore);
          return;
        }
      }
      req.end();
    };
    writeMore();
  });

/** Python's urllib.request in a child process (python3 must be on PATH). */
export const viaPythonUrllib: PlainClient = async (method, url, headers, bodyBytes) => {
  const args = [URLLIB_SCRIPT, method, url, String(bodyBytes), ...Object.entries(headers).map(([k, v]) => `${k}=${v}`)];
  const { stdout } = await run('python3', args, { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as PlainAnswer;
};

export const PLAIN_CLIENTS: readonly (readonly [string, PlainClient])[] = [
  ['fetch', viaFetch],
  ['node:http', viaNodeHttp],
  ['python urllib', viaPythonUrllib],
];
