import { Transform, type TransformCallback } from 'node:stream';
import { sizeLimitExceeded } from '../errors/size-limit.js';

/** A pass-through stream that counts the bytes of a stored file and fails with the size-limit error past `maxBytes`. */
export class ByteLimiter extends Transform {
  /** Bytes passed so far: the file's size once the stream has ended. */
  bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(sizeLimitExceeded('The file', this.maxBytes));
      return;
    }
    callback(null, chunk);
  }
}
