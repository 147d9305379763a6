// 16-bit PCM mono WAV files as prepare_data.py writes them, read whole into float samples (offline only).
import { readFileSync } from 'node:fs';

/** 16-bit PCM mono WAV (as prepare_data.py writes) to float samples. */
export function readWav(path: string): Float32Array {
  const buf = readFileSync(path);
  let at = 12;
  while (at + 8 <= buf.length) {
    const id = buf.toString('ascii', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    if (id === 'data') {
      const n = Math.floor(Math.min(size, buf.length - at - 8) / 2);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(at + 8 + 2 * i) / 32768;
      return out;
    }
    at += 8 + size + (size & 1);
  }
  throw new Error(`${path}: no data chunk`);
}
