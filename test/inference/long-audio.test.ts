import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Asr } from '../../src/engines/asr/asr.js';
import { loopAudio } from '../helpers/audio-files.js';
import { AUDIO } from './fixtures.js';
import { makeModelFolder } from './model-folders.js';

const LOOPS = 221; // x 8.14 s = 30 minutes
const MB = 1024 * 1024;

/** A full collection before each reading, so the figures are live memory, not garbage waiting for the collector. */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

let root: string;
let longFile: string;
let engine: Asr;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'long-audio-'));
  await makeModelFolder(join(root, 'models'), 'small-am-v1', { name: 'small-am-v1', language: 'am' });
  // 30 minutes made at test time from the committed fixture (not committed itself)
  longFile = join(root, 'long.flac');
  loopAudio(longFile, LOOPS, AUDIO('speech-am.flac'));
  engine = await Asr.create({ modelsDir: join(root, 'models'), workers: 2, intraOpThreads: 1 });
}, 120_000);

afterAll(async () => {
  await engine?.close();
  await rm(root, { recursive: true, force: true });
});

describe('long audio', () => {
  it('transcribes 30 minutes with flat memory', async () => {
    const samples: Array<{ done: number; total: number; rss: number; arrayBuffers: number; heap: number }> = [];
    const result = await engine.transcribe({
      audioPath: longFile,
      language: 'am',
      model: null,
      signal: new AbortController().signal,
      onProgress: (p) => {
        if (p.stage !== 'transcribing' || p.doneSegments % 10 !== 0) return;
        collect();
        const m = process.memoryUsage();
        samples.push({ done: p.doneSegments, total: p.totalSegments, rss: m.rss, arrayBuffers: m.arrayBuffers, heap: m.heapUsed });
      },
    });
    const minutes = result.durationSeconds / 60;
    expect(minutes).toBeGreaterThan(29.5);
    expect(minutes).toBeLessThan(30.5);
    expect(result.segments.length).toBeGreaterThan(LOOPS);
    expect(result.segments[result.segments.length - 1]!.end_ms).toBeGreaterThan(29.5 * 60_000);

    // The decoded audio alone is 110 MB of float32: holding it, or any growing share of it, fails this.
    // arrayBuffers also counts batch buffers the inference workers have dropped but not yet
    // collected (their isolates collect on their own schedule), so it saw-tooths; the checks
    // are a ceiling well under the decoded size and no upward trend between thirds of the run.
    const decodedMb = (result.durationSeconds * 16000 * 4) / MB;
    const warm = samples[Math.floor(samples.length * 0.1)]!;
    const third = Math.floor(samples.length / 3);
    const mean = (list: typeof samples, key: 'rss' | 'arrayBuffers'): number => list.reduce((n, s) => n + s[key], 0) / list.length / MB;
    const figures = {
      decodedMb,
      rssGrowthMb: (Math.max(...samples.map((s) => s.rss)) - warm.rss) / MB,
      peakArrayBuffersMb: Math.max(...samples.map((s) => s.arrayBuffers)) / MB,
      heapGrowthMb: (Math.max(...samples.map((s) => s.heap)) - warm.heap) / MB,
      rssTrendMb: mean(samples.slice(2 * third), 'rss') - mean(samples.slice(third, 2 * third), 'rss'),
      arrayBuffersTrendMb: mean(samples.slice(2 * third), 'arrayBuffers') - mean(samples.slice(third, 2 * third), 'arrayBuffers'),
    };
    console.log('long audio memory (MB)', JSON.stringify(figures), `segments ${result.segments.length}`);
    // RSS also holds the workers' native arenas, which grow with the load of the machine (51 MB
    // alone, 62 MB beside other work on 2 cores): the bound stays under the decoded size, and the
    // trend below is what catches a growing share.
    expect(figures.rssGrowthMb).toBeLessThan(decodedMb * 0.75);
    expect(figures.peakArrayBuffersMb).toBeLessThan(decodedMb / 2);
    expect(figures.heapGrowthMb).toBeLessThan(decodedMb / 6);
    expect(figures.rssTrendMb).toBeLessThan(decodedMb / 5);
    expect(figures.arrayBuffersTrendMb).toBeLessThan(decodedMb / 5);

    // progress estimates from the duration: the estimate stays within a factor of two of the real count
    const final = samples[samples.length - 1]!;
    expect(final.total).toBeGreaterThanOrEqual(final.done);
    expect(warm.total).toBeGreaterThan(final.total / 2);
    expect(warm.total).toBeLessThan(final.total * 2);
  }, 240_000);
});
