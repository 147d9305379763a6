import { describe, expect, it } from 'vitest';
import { PcmReadAhead } from './pcm-read-ahead.js';

/** `count` chunks of varied lengths with distinct samples; `pulled` counts the chunks taken from the source, `returned` whether it was closed early. */
function decoder(count: number, options: { failAt?: number; signal?: AbortSignal } = {}) {
  const chunks = Array.from({ length: count }, (_, c) => Float32Array.from({ length: 1000 + ((c * 337) % 900) }, (_, i) => Math.sin(c * 1000 + i)));
  const state = { pulled: 0, returned: false, finished: false };
  const source = (async function* () {
    try {
      for (const [c, chunk] of chunks.entries()) {
        await new Promise((resolve) => setImmediate(resolve));
        options.signal?.throwIfAborted();
        if (c === options.failAt) throw new Error('ffmpeg failed');
        state.pulled++;
        yield chunk;
      }
      state.finished = true;
    } finally {
      if (!state.finished) state.returned = true;
    }
  })();
  const all = new Float32Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return { chunks, source, state, all };
}

async function readAll(stream: AsyncIterable<Float32Array>): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe('PcmReadAhead', () => {
  it('drains the decoder ahead of the reader, which gets exactly the same chunks; complete answers the whole file in a shared buffer', async () => {
    const { chunks, source, state, all } = decoder(40);
    // A probed duration far too short: the buffer grows.
    const ahead = new PcmReadAhead(source, 0.01, 16_000 * 60);
    const samples = await ahead.complete;
    expect(state.pulled).toBe(40); // read ahead: nothing has read the stream yet
    expect(samples).toEqual(all);
    expect(samples!.buffer).toBeInstanceOf(SharedArrayBuffer);
    const read = await readAll(ahead.stream());
    expect(read).toEqual(chunks);
    // Copies: the reader may keep or hand them on without touching the kept samples.
    read[0]!.fill(0);
    expect(samples).toEqual(all);
  });

  it('lets the reader keep up while the decoder is still being read', async () => {
    const { chunks, source } = decoder(30);
    const ahead = new PcmReadAhead(source, 5, 16_000 * 60);
    const read = await readAll(ahead.stream());
    expect(read).toEqual(chunks);
    expect(await ahead.complete).not.toBeNull();
  });

  it('a file probed too long is a plain pass-through: nothing read ahead, complete null', async () => {
    const { chunks, source, state } = decoder(10);
    const ahead = new PcmReadAhead(source, 3600, 16_000 * 60);
    expect(await ahead.complete).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.pulled).toBe(0);
    expect(await readAll(ahead.stream())).toEqual(chunks);
  });

  it('a file found too long while reading lets the samples go; the reader still gets every chunk', async () => {
    const { chunks, source, all } = decoder(40);
    const ahead = new PcmReadAhead(source, null, Math.floor(all.length / 2));
    expect(await ahead.complete).toBeNull();
    expect(await readAll(ahead.stream())).toEqual(chunks);
  });

  it('a decoding failure reaches the reader after the chunks before it; complete null', async () => {
    const { chunks, source } = decoder(10, { failAt: 6 });
    const ahead = new PcmReadAhead(source, 1, 16_000 * 60);
    expect(await ahead.complete).toBeNull();
    const read: Float32Array[] = [];
    await expect(
      (async () => {
        for await (const chunk of ahead.stream()) read.push(chunk);
      })(),
    ).rejects.toThrow('ffmpeg failed');
    expect(read).toEqual(chunks.slice(0, 6));
  });

  it('a reader that stops early closes the decoder and complete answers null', async () => {
    const { source, state } = decoder(200);
    const ahead = new PcmReadAhead(source, 1, 16_000 * 600);
    for await (const _ of ahead.stream()) break;
    expect(await ahead.complete).toBeNull();
    expect(state.returned).toBe(true);
    expect(state.pulled).toBeLessThan(200);
  });

  it('an abort (the decoder throws the reason) reaches the reader', async () => {
    const controller = new AbortController();
    // A decoder that yields ten chunks and then waits (a slow ffmpeg) until the job is cancelled.
    const source = (async function* () {
      for (let c = 0; c < 10; c++) yield new Float32Array(1000).fill(c);
      if (!controller.signal.aborted) await new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true }));
      controller.signal.throwIfAborted();
    })();
    const ahead = new PcmReadAhead(source, 1, 16_000 * 600);
    const received: Float32Array[] = [];
    const reading = (async () => {
      for await (const chunk of ahead.stream()) {
        received.push(chunk);
        if (received.length === 3) controller.abort(new Error('job cancelled'));
      }
    })();
    await expect(reading).rejects.toThrow('job cancelled');
    expect(received.length).toBeGreaterThanOrEqual(3);
    expect(await ahead.complete).toBeNull();
  });
});
