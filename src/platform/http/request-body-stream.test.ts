import { describe, expect, it } from 'vitest';
import { RequestBodyStream } from './request-body-stream.js';
import type { Uws } from './uws.js';

/** A uWS response that records whether its socket is paused (a paused socket never sees the client leave). */
function recordingResponse() {
  const calls: string[] = [];
  const res = { pause: () => calls.push('pause'), resume: () => calls.push('resume') } as unknown as Uws.HttpResponse;
  const paused = () => calls.filter((c) => c === 'pause').length > calls.filter((c) => c === 'resume').length;
  return { res, paused };
}

const LIMIT = { bytes: 10_000_000, subject: 'The request body' };
const chunk = (bytes: number) => new Uint8Array(bytes).buffer;

describe('RequestBodyStream', () => {
  it('pauses the socket while the reader lags, and resumes it when the reader asks for more', async () => {
    const { res, paused } = recordingResponse();
    const body = new RequestBodyStream(res, LIMIT.bytes, LIMIT, () => false);
    body.pushChunk(chunk(300 * 1024), false);
    expect(paused()).toBe(true);
    body.read();
    await new Promise((resolve) => setImmediate(resolve));
    expect(paused()).toBe(false);
  });

  it('never leaves the socket paused after the last chunk, however far behind the reader is', async () => {
    // A socket paused after the whole body has arrived is never read again: its close goes
    // unseen, so a client that leaves while its request is being served is never noticed.
    const { res, paused } = recordingResponse();
    const body = new RequestBodyStream(res, LIMIT.bytes, LIMIT, () => false);
    body.pushChunk(chunk(100 * 1024), false);
    body.pushChunk(chunk(300 * 1024), true);
    expect(paused()).toBe(false);
    let bytes = 0;
    for await (const part of body) bytes += (part as Buffer).length;
    expect(bytes).toBe(400 * 1024);
    expect(paused()).toBe(false);
  });
});
