// A `ws` client for the streaming tests: collects server messages, waits for them, and
// reports the close code.
import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import WebSocket from 'ws';
import { ServerMessageSchema, type ServerMessage } from '../../src/streaming/ws-messages.js';
import { wavData } from '../helpers/fixtures.js';

export type Message = ServerMessage & Record<string, unknown>;

export interface StreamClient {
  readonly socket: WebSocket;
  readonly messages: Message[];
  readonly closed: Promise<{ code: number; reason: string }>;
  waitFor<T extends Message['type']>(
    type: T,
    predicate?: (m: Extract<Message, { type: T }>) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<Message, { type: T }>>;
  ofType<T extends Message['type']>(type: T): Extract<Message, { type: T }>[];
  send(data: Buffer | string): void;
  close(): void;
}

export function wsUrl(httpUrl: string, query: Record<string, string> = {}): string {
  const url = new URL('/v1/ws/transcribe', httpUrl.replace(/^http/, 'ws'));
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url.toString();
}

/** Connects and waits for the session's `ready` message. */
export async function connectReady(url: string, headers: Record<string, string> = {}): Promise<StreamClient> {
  const client = connect(url, headers);
  await client.waitFor('ready');
  return client;
}

export function connect(url: string, headers: Record<string, string> = {}): StreamClient {
  const socket = new WebSocket(url, { headers, maxPayload: 64 * 1024 * 1024 });
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data, isBinary) => {
    if (isBinary) throw new Error('the server sent a binary message');
    const message = JSON.parse(data.toString()) as Message;
    // Every message the server sends must match the documented union (a mismatch fails the run).
    const problems = [...Value.Errors(ServerMessageSchema, message)].map((e) => `${e.path} ${e.message}`);
    if (problems.length > 0) throw new Error(`server message outside the documented schema: ${JSON.stringify(message).slice(0, 300)}: ${problems.join('; ')}`);
    messages.push(message);
    for (const w of [...waiters]) w();
  });
  // The client's own errors (a frame it rejected) end in close 1006: keep the last one so that a
  // failure says which it was. `ws` does not emit the TCP socket's errors (a reset connection) on
  // the WebSocket, so they are read from the socket itself, as is a server's FIN without a close frame.
  let lastError = '';
  socket.on('error', (error: Error & { code?: string }) => {
    lastError = `client error ${error.code ?? error.name}: ${error.message}`;
  });
  socket.on('upgrade', (response) => {
    const tcp = response.socket;
    tcp.on('error', (error: Error & { code?: string }) => {
      lastError = `TCP error ${error.code ?? error.name}: ${error.message}`;
    });
    tcp.on('end', () => {
      if (lastError === '') lastError = `the server ended the TCP connection after ${messages.length} messages`;
    });
  });
  let closedWith = '';
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      closedWith = ` (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''}${lastError === '' ? '' : `; ${lastError}`})`;
      resolve({ code, reason: reason.toString() });
      for (const w of [...waiters]) w();
    });
  });
  const client: StreamClient = {
    socket,
    messages,
    closed,
    ofType: (type) => messages.filter((m) => m.type === type) as never,
    waitFor: (type, predicate, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = messages.find((m) => m.type === type && (!predicate || predicate(m as never)));
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found as never);
            return true;
          }
          if (socket.readyState === WebSocket.CLOSED) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`socket closed${closedWith} before a '${type}' message; got ${messages.map((m) => m.type).join(', ')}`));
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no '${type}' message within ${timeoutMs} ms; got ${messages.map((m) => m.type).join(', ')}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    send: (data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(data, { binary: typeof data !== 'string' });
      else socket.once('open', () => socket.send(data, { binary: typeof data !== 'string' }));
    },
    close: () => socket.close(),
  };
  return client;
}

/** 16-bit mono PCM of a WAV file (header skipped). */
export function wavPcm(path: string): { rate: number; pcm: Buffer } {
  return wavData(readFileSync(path));
}

/** What a session's final `full_text` holds: the non-empty texts of its pieces (turns, transcriptions), space-joined. */
export function joinedText(pieces: readonly { readonly text: string }[]): string {
  return pieces
    .map((piece) => piece.text)
    .filter((text) => text.length > 0)
    .join(' ');
}

export function chunks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, Math.min(bytes.length, at + size)));
  return out;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends chunks spaced `intervalMs` apart (real-time pacing when intervalMs is the chunk duration). */
export async function paced(client: StreamClient, parts: Buffer[], intervalMs: number): Promise<void> {
  for (const part of parts) {
    client.send(part);
    if (intervalMs > 0) await sleep(intervalMs);
  }
}
