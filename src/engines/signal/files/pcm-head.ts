import { open } from 'node:fs/promises';

/** The first `bytes` of a file (fewer when it is shorter). */
export async function readHead(path: string, bytes: number): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Reads the first `samples` of a PCM stream for language detection and returns them with a
 * stream that replays them and then continues, so the file is decoded once.
 */
export async function splitHead(
  source: AsyncIterable<Float32Array>,
  samples: number,
): Promise<{ head: Float32Array; stream: AsyncIterable<Float32Array>; close: () => Promise<void> }> {
  const iterator = source[Symbol.asyncIterator]();
  const taken: Float32Array[] = [];
  let count = 0;
  let ended = false;
  while (count < samples) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    taken.push(next.value);
    count += next.value.length;
  }
  const head = new Float32Array(Math.min(count, samples));
  let at = 0;
  for (const chunk of taken) {
    if (at >= head.length) break;
    const part = chunk.subarray(0, head.length - at);
    head.set(part, at);
    at += part.length;
  }
  const close = async (): Promise<void> => {
    if (!ended) {
      ended = true;
      await iterator.return?.();
    }
  };
  const stream = (async function* () {
    try {
      while (taken.length > 0) yield taken.shift()!;
      while (!ended) {
        const next = await iterator.next();
        if (next.done) {
          ended = true;
          return;
        }
        yield next.value;
      }
    } finally {
      await close();
    }
  })();
  return { head, stream, close };
}
