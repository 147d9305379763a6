import { PCM_SAMPLE_RATE } from '../../signal/files/pcm-decoder.js';

/**
 * Reads a decoded PCM stream ahead of its consumer into one buffer that keeps every sample: a
 * diarized file needs the whole file, and diarization can start on it as soon as the file is
 * decoded, while recognition is still working through it. The decoder is drained eagerly into the
 * buffer and `stream()` hands recognition the very same chunks from it (copied out one at a time),
 * so the file is in memory once, as it was when the samples were only collected. The buffer is a
 * SharedArrayBuffer (a diarization thread reads it without a copy), sized from the probed
 * duration and grown when that was short.
 *
 * Too long (past `maxSamples`, or memory for the samples cannot be had): it reads ahead no more and
 * lets the samples go; `complete` answers null (only diarization goes without) and the stream
 * hands over the samples read ahead and then reads the decoder itself, as a plain pass-through.
 * A probed duration already too long: a pass-through from the start.
 */
export class PcmReadAhead {
  /**
   * The whole file's samples once it is decoded (a view at the start of the shared buffer); null
   * when they were not kept (too long), when decoding failed (the stream throws its error) or when
   * the stream was closed before the end. Never rejects.
   */
  readonly complete: Promise<Float32Array | null>;
  private readonly iterator: AsyncIterator<Float32Array>;
  private buffer: Float32Array | null = null;
  private length = 0;
  /** Lengths of the chunks read ahead and not yet handed out, in order. */
  private readonly chunkLengths: number[] = [];
  private chunkAt = 0;
  private handedOut = 0;
  /** The chunk that did not fit when the samples were let go (handed out after the buffer's). */
  private overflow: Float32Array | null = null;
  private state: 'reading' | 'done' | 'failed' | 'passing' | 'closed' = 'reading';
  private failure: unknown = null;
  private wake: (() => void) | null = null;
  private streamed = false;

  constructor(
    source: AsyncIterable<Float32Array>,
    durationSeconds: number | null,
    private readonly maxSamples: number,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
    const expected = Math.ceil((durationSeconds ?? 60) * PCM_SAMPLE_RATE) + PCM_SAMPLE_RATE;
    this.buffer = expected > maxSamples + PCM_SAMPLE_RATE ? null : allocateShared(expected);
    if (this.buffer === null) {
      this.state = 'passing';
      this.complete = Promise.resolve(null);
    } else {
      this.complete = this.readAhead();
    }
  }

  /** The decoded chunks, in order (one reader); ending it early stops the decoder. */
  async *stream(): AsyncGenerator<Float32Array, void, undefined> {
    if (this.streamed) throw new Error('PcmReadAhead: the stream is read once');
    this.streamed = true;
    try {
      for (;;) {
        if (this.chunkAt < this.chunkLengths.length) {
          const size = this.chunkLengths[this.chunkAt]!;
          const chunk = this.buffer!.slice(this.handedOut, this.handedOut + size);
          this.chunkAt++;
          this.handedOut += size;
          yield chunk;
          continue;
        }
        if (this.state === 'passing') {
          // The samples read ahead are all out: the buffer goes, the decoder is read directly.
          this.buffer = null;
          if (this.overflow !== null) {
            const chunk = this.overflow;
            this.overflow = null;
            yield chunk;
          }
          for (;;) {
            const next = await this.iterator.next();
            if (next.done) {
              this.state = 'done';
              return;
            }
            yield next.value;
          }
        }
        if (this.state === 'done') return;
        if (this.state === 'failed') throw this.failure;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
    } finally {
      if (this.state === 'reading' || this.state === 'passing') {
        this.state = 'closed';
        this.notify();
        await this.iterator.return?.();
      }
    }
  }

  private async readAhead(): Promise<Float32Array | null> {
    try {
      while (this.state === 'reading') {
        const next = await this.iterator.next();
        if (this.state !== 'reading') break;
        if (next.done) {
          this.state = 'done';
          break;
        }
        this.append(next.value);
        this.notify();
      }
    } catch (error) {
      if (this.state === 'reading') {
        this.state = 'failed';
        this.failure = error;
      }
    }
    this.notify();
    return this.state === 'done' && this.buffer !== null ? this.buffer.subarray(0, this.length) : null;
  }

  private append(chunk: Float32Array): void {
    const buffer = this.buffer!;
    const needed = this.length + chunk.length;
    let target: Float32Array | null = buffer;
    if (needed > buffer.length) {
      target = needed > this.maxSamples ? null : allocateShared(Math.min(this.maxSamples, Math.max(needed, Math.ceil(buffer.length * 1.5))));
      if (target === null) {
        // Too long: keep what is not handed out yet (the buffer, until it is) and this chunk.
        this.overflow = chunk;
        this.state = 'passing';
        return;
      }
      target.set(buffer.subarray(0, this.length));
      this.buffer = target;
    }
    target.set(chunk, this.length);
    this.length += chunk.length;
    this.chunkLengths.push(chunk.length);
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

function allocateShared(samples: number): Float32Array | null {
  try {
    return new Float32Array(new SharedArrayBuffer(samples * Float32Array.BYTES_PER_ELEMENT));
  } catch {
    return null;
  }
}
