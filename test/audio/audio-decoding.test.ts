import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { AudioTooLargeError, InvalidAudioError } from '../../src/engines/signal/files/audio-errors.js';
import { probeAudio } from '../../src/engines/signal/files/audio-probe.js';
import { resolveMediaTools } from '../../src/platform/subprocess/media-tools.js';
import { PauseSegmenter } from '../../src/engines/asr/recognition/pause-segmenter.js';
import { decodeToPcm } from '../../src/engines/signal/files/pcm-decoder.js';
import { AUDIO } from '../inference/fixtures.js';
import { concat } from '../native/audio-helpers.js';

const tools = resolveMediaTools();

async function decodeAll(
  input: string | Readable,
  options: { chunkSamples?: number; maxInputBytes?: number; signal?: AbortSignal } = {},
): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const chunk of decodeToPcm(input, { ffmpegPath: tools.ffmpeg, ...options })) parts.push(chunk);
  return concat(parts);
}

/** 10 ms RMS envelope. */
function envelope(pcm: Float32Array): number[] {
  const out: number[] = [];
  for (let i = 0; i + 160 <= pcm.length; i += 160) {
    let s = 0;
    for (let k = 0; k < 160; k++) s += pcm[i + k]! ** 2;
    out.push(Math.sqrt(s / 160));
  }
  return out;
}

/** Best Pearson correlation of two envelopes over lags of up to 10 frames (codec delay). */
function envelopeCorrelation(a: number[], b: number[]): number {
  let best = -1;
  for (let lag = -10; lag <= 10; lag++) {
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < a.length; i++) if (i + lag >= 0 && i + lag < b.length) pairs.push([a[i]!, b[i + lag]!]);
    const n = pairs.length;
    const ma = pairs.reduce((s, p) => s + p[0], 0) / n;
    const mb = pairs.reduce((s, p) => s + p[1], 0) / n;
    let num = 0;
    let da = 0;
    let db = 0;
    for (const [x, y] of pairs) {
      num += (x - ma) * (y - mb);
      da += (x - ma) ** 2;
      db += (y - mb) ** 2;
    }
    best = Math.max(best, num / Math.sqrt(da * db));
  }
  return best;
}

describe('decodeToPcm (bundled ffmpeg)', () => {
  let reference: Float32Array;
  beforeAll(async () => {
    reference = await decodeAll(AUDIO('speech-am.wav'));
  });

  it('decodes the 16-bit WAV exactly', async () => {
    const wav = await readFile(AUDIO('speech-am.wav'));
    const dataAt = wav.indexOf('data') + 8;
    const samples = (wav.length - dataAt) / 2;
    expect(reference.length).toBe(samples);
    for (let i = 0; i < samples; i += 997) expect(reference[i]).toBeCloseTo(wav.readInt16LE(dataAt + 2 * i) / 32768, 6);
  });

  it('decodes FLAC bit-exactly to the same samples as the WAV', async () => {
    const flac = await decodeAll(AUDIO('speech-am.flac'));
    expect(flac.length).toBe(reference.length);
    let worst = 0;
    for (let i = 0; i < flac.length; i++) worst = Math.max(worst, Math.abs(flac[i]! - reference[i]!));
    expect(worst).toBe(0);
  });

  it.each(['mp3', 'm4a', 'ogg', 'webm', 'aac'])(
    'decodes %s to the same speech (length within 0.15 s: codec priming and frame padding; envelope correlation > 0.95)',
    async (ext) => {
      const pcm = await decodeAll(AUDIO(`speech-am.${ext}`));
      expect(Math.abs(pcm.length - reference.length) / 16000).toBeLessThan(0.15);
      expect(envelopeCorrelation(envelope(reference), envelope(pcm))).toBeGreaterThan(0.95);
    },
  );

  it('yields fixed-size chunks and a shorter last one', async () => {
    const sizes: number[] = [];
    for await (const chunk of decodeToPcm(AUDIO('speech-am.flac'), { ffmpegPath: tools.ffmpeg, chunkSamples: 4000 })) sizes.push(chunk.length);
    expect(sizes.slice(0, -1).every((n) => n === 4000)).toBe(true);
    expect(sizes[sizes.length - 1]).toBeLessThanOrEqual(4000);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(reference.length);
  });

  it('decodes from a stream', async () => {
    const pcm = await decodeAll(createReadStream(AUDIO('speech-am.ogg')));
    expect(Math.abs(pcm.length - reference.length) / 16000).toBeLessThan(0.1);
  });

  it('refuses a stream over the size limit', async () => {
    await expect(decodeAll(createReadStream(AUDIO('speech-am.wav')), { maxInputBytes: 50_000 })).rejects.toBeInstanceOf(AudioTooLargeError);
  });

  it.each(['corrupt.m4a', 'corrupt.mp3', 'not-audio.txt'])('fails %s with invalid_audio_format', async (name) => {
    const error = await decodeAll(AUDIO(name)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidAudioError);
    expect((error as InvalidAudioError).engineError).toBe('invalid_audio');
    // The message reaches clients: ffmpeg's words, without the server's path of the file.
    expect((error as Error).message).not.toContain(AUDIO(name));
  });

  it('fails a stream of garbage with invalid_audio_format', async () => {
    const error = await decodeAll(Readable.from([Buffer.alloc(20_000, 0x42)])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAudioError);
  });

  it('stops ffmpeg when aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const iterator = decodeToPcm(AUDIO('speech-am.flac'), { ffmpegPath: tools.ffmpeg, chunkSamples: 1600, signal: controller.signal });
    await iterator.next();
    controller.abort(reason);
    await expect(
      (async () => {
        for (;;) if ((await iterator.next()).done) return 'ended';
      })(),
    ).rejects.toBe(reason);
  });

  it('finds the pause between the two sentences of the fixture', async () => {
    // the longest run of near-silent 10 ms frames is the 0.8 s pause put between the sentences
    const env = envelope(reference);
    let best = [0, 0];
    let runStart = -1;
    env.forEach((v, i) => {
      if (v < 1e-3) {
        if (runStart < 0) runStart = i;
        if (i + 1 - runStart > best[1]! - best[0]!) best = [runStart, i + 1];
      } else runStart = -1;
    });
    expect((best[1]! - best[0]!) / 100).toBeGreaterThanOrEqual(0.8);
    const segmenter = new PauseSegmenter({ minSegmentMs: 1000 });
    const segments = [...segmenter.push(reference), ...segmenter.flush()].filter((s) => s.speech);
    const cutsInPause = segments.slice(1).filter((s) => s.spanStart / 160 >= best[0]! && s.spanStart / 160 <= best[1]!);
    expect(cutsInPause.length).toBe(1);
  });
});

describe('probeAudio (bundled ffprobe)', () => {
  it.each(['wav', 'flac', 'mp3', 'm4a', 'ogg', 'webm', 'aac'])('reads the duration of speech-am.%s', async (ext) => {
    const probe = await probeAudio(AUDIO(`speech-am.${ext}`), { ffprobePath: tools.ffprobe });
    expect(probe.channels).toBe(1);
    expect(probe.durationSeconds).not.toBeNull();
    expect(Math.abs(probe.durationSeconds! - 8.137)).toBeLessThan(ext === 'aac' ? 1.5 : 0.1);
  });

  it.each(['corrupt.m4a', 'not-audio.txt'])('refuses %s', async (name) => {
    const error = await probeAudio(AUDIO(name), { ffprobePath: tools.ffprobe }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAudioError);
    // Said in the user's terms (src/engines/signal/files/audio-problem.ts); the tool's own line is kept as detail for the log.
    expect((error as Error).message).toMatch(/^The audio could not be read: the file (is|contains|could)/);
    expect((error as Error).message).not.toContain(AUDIO(name));
  });
});
