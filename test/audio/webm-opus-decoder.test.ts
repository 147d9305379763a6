// Mono WebM/Opus files are decoded by the live stream's native front end (one decoder for the
// upload and the stream of the same bytes); everything else stays with ffmpeg.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidAudioError } from '../../src/engines/signal/files/audio-errors.js';
import { decodeToPcm } from '../../src/engines/signal/files/pcm-decoder.js';
import { decodesNatively, decodeWebmOpus } from '../../src/engines/signal/files/webm-opus-decoder.js';
import { StreamFrontEnd } from '../../src/engines/signal/live/stream-front-end.js';
import { resolveMediaTools } from '../../src/platform/subprocess/media-tools.js';
import { fixturePath } from '../helpers/fixtures.js';

const WEBM = fixturePath('audio/speech-am.webm');

async function collect(chunks: AsyncIterable<Float32Array>): Promise<{ samples: Float32Array; sizes: number[] }> {
  const parts: Float32Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  const samples = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    samples.set(p, at);
    at += p.length;
  }
  return { samples, sizes: parts.map((p) => p.length) };
}

describe('decodesNatively', () => {
  it('takes mono Opus in WebM or Matroska only', () => {
    expect(decodesNatively({ formatName: 'matroska,webm', codec: 'opus', channels: 1 })).toBe(true);
    expect(decodesNatively({ formatName: 'matroska', codec: 'opus', channels: 1 })).toBe(true);
    expect(decodesNatively({ formatName: 'matroska,webm', codec: 'opus', channels: 2 })).toBe(false);
    expect(decodesNatively({ formatName: 'matroska,webm', codec: 'vorbis', channels: 1 })).toBe(false);
    expect(decodesNatively({ formatName: 'ogg', codec: 'opus', channels: 1 })).toBe(false);
  });
});

describe('decodeWebmOpus', () => {
  it('yields the samples a live webm_opus stream of the same bytes holds, in chunks of the asked size', async () => {
    const { samples, sizes } = await collect(decodeWebmOpus(WEBM, { chunkSamples: 4000 }));
    expect(sizes.slice(0, -1).every((n) => n === 4000)).toBe(true);
    const live = new StreamFrontEnd({ format: 'webm_opus', energyVad: false });
    const bytes = readFileSync(WEBM);
    for (let at = 0; at < bytes.length; at += 1000) live.push(bytes.subarray(at, at + 1000));
    live.flush();
    const streamed = new Float32Array(live.buffered);
    live.read(streamed);
    live.close();
    expect(samples).toEqual(streamed);
  });

  it('holds the same audio as ffmpeg reads (same length: pre-skip and end padding dropped; same level)', async () => {
    const { samples } = await collect(decodeWebmOpus(WEBM));
    const { samples: reference } = await collect(decodeToPcm(WEBM, { ffmpegPath: resolveMediaTools().ffmpeg }));
    expect(samples.length).toBe(reference.length);
    const rms = (x: Float32Array): number => Math.sqrt(x.reduce((sum, v) => sum + v * v, 0) / x.length);
    expect(rms(samples) / rms(reference)).toBeGreaterThan(0.95);
    expect(rms(samples) / rms(reference)).toBeLessThan(1.05);
  });

  it('refuses a file that is not WebM with invalid_audio_format and no server path', async () => {
    const path = fixturePath('audio/speech-am.wav');
    const error = await collect(decodeWebmOpus(path)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAudioError);
    expect((error as InvalidAudioError).engineError).toBe('invalid_audio');
    expect((error as Error).message).not.toContain('/');
  });

  it('stops at once when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(collect(decodeWebmOpus(WEBM, { signal: controller.signal }))).rejects.toThrow('stopped');
  });
});
