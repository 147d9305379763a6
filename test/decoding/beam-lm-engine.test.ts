import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCharNgramLm } from '../../src/engines/asr/decoding/lm/char-ngram-builder.js';
import { loadModelFolder, type LoadedCtcModel } from '../../src/engines/asr/models/model-loader.js';
import { loadLanguageModels, manifestDecodingPlanner } from '../../src/engines/asr/inference/decoding-planner.js';
import { Asr } from '../../src/engines/asr/asr.js';
import { forLm } from '../../src/engines/asr/text/text-normalizer.js';
import { AUDIO } from '../inference/fixtures.js';
import { makeModelFolder } from '../inference/model-folders.js';

/**
 * A model folder with `decoding.default: "beam"` and a shared LM (`../lm/…`) through the whole
 * engine. The acoustic model is the UNTRAINED fixture: this checks wiring, times and confidences,
 * not accuracy.
 */
let root: string;
let engine: Asr;

const LM = { file: '../lm/am-char-3gram.bin', unit: 'char', order: 3, alpha: 0.8, beta: 1.0 };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'beam-lm-'));
  await mkdir(join(root, 'lm'));
  // A small LM over the fixture vocabulary's letters, from the transcript of the fixture audio.
  const text = (await readFile(AUDIO('speech-am.txt'), 'utf8')).split('\n').map((l) => forLm(l, 'am'));
  await writeFile(join(root, 'lm/am-char-3gram.bin'), buildCharNgramLm([...text, 'ሰላም ነው', 'ለአገር ሰላም'], { order: 3, minCharCount: 1 }).bytes);
  await makeModelFolder(root, 'small-am-v1', { name: 'small-am-v1', language: 'am', lm: LM, decoding: { default: 'beam', beam_width: 6 } });
  await makeModelFolder(root, 'greedy-am-v1', { name: 'greedy-am-v1', language: 'am', lm: LM, decoding: { default: 'greedy' } });
  await makeModelFolder(root, 'beam-nolm-am-v1', { name: 'beam-nolm-am-v1', language: 'am', decoding: { default: 'beam', beam_width: 4 } });
  engine = await Asr.create({ modelsDir: root, workers: 1, intraOpThreads: 1 });
});

afterAll(async () => {
  await engine?.close();
  await rm(root, { recursive: true, force: true });
});

const request = (model: string) => ({
  audioPath: AUDIO('speech-am.wav'),
  language: 'am',
  model,
  signal: new AbortController().signal,
  onProgress: () => {},
});

describe('beam search + LM in the engine', () => {
  it('plans for each model the decoding its manifest asks for', () => {
    expect(engine.problems()).toEqual([]);
    expect(engine.decodingPlan('small-am-v1')).toEqual({
      kind: 'beam',
      beamWidth: 6,
      lm: { path: join(root, 'lm/am-char-3gram.bin'), alpha: 0.8, beta: 1.0 },
    });
    expect(engine.decodingPlan('greedy-am-v1')).toEqual({ kind: 'greedy' });
    expect(engine.decodingPlan('beam-nolm-am-v1')).toEqual({ kind: 'beam', beamWidth: 4, lm: null });
  });

  it('transcribes with beam + LM and keeps segment times and confidences', async () => {
    const result = await engine.transcribe(request('small-am-v1'));
    expect(result.model).toBe('small-am-v1');
    expect(result.segments.length).toBeGreaterThan(0);
    for (const s of result.segments) {
      expect(s.end_ms).toBeGreaterThan(s.start_ms);
      expect(s.end_ms).toBeLessThanOrEqual(8300);
      if (s.text.length > 0) expect(s.confidence).toBeGreaterThan(0);
    }
    const greedy = await engine.transcribe(request('greedy-am-v1'));
    expect(greedy.segments.length).toBe(result.segments.length);
  });

  it('falls back to greedy, and says why, when an LM body is corrupt', async () => {
    const bytes = buildCharNgramLm(['ሰላም ነው', 'ሰላም'], { order: 3, minCharCount: 1 }).bytes;
    bytes[bytes.length - 3]! ^= 0x55; // header intact: the folder loads; the checksum fails at LM load
    await writeFile(join(root, 'lm/corrupt-3gram.bin'), bytes);
    const dir = await makeModelFolder(root, 'corrupt-lm', {
      name: 'corrupt-lm',
      language: 'am',
      lm: { ...LM, file: '../lm/corrupt-3gram.bin' },
      decoding: { default: 'beam' },
    });
    const model = await loadModelFolder(dir);
    const lms = await loadLanguageModels([model]);
    expect(lms.problems).toEqual([{ dir, message: expect.stringMatching(/language model not loaded, decoding greedily: .*checksum mismatch/) }]);
    expect(manifestDecodingPlanner(new Set(lms.models.keys()))(model as LoadedCtcModel)).toEqual({ kind: 'greedy' });
  });

  it('validates the LM named by a manifest', async () => {
    const wrongOrder = await makeModelFolder(root, 'bad-order', { name: 'bad-order', language: 'am', lm: { ...LM, order: 5 } });
    await expect(loadModelFolder(wrongOrder)).rejects.toThrow('lm.order is 5 but ../lm/am-char-3gram.bin is a 3-gram model');
    await writeFile(join(root, 'lm/not-an-lm.bin'), '\\data\\\nngram 1=3\n'.padEnd(100, ' '));
    const foreign = await makeModelFolder(root, 'foreign-lm', { name: 'foreign-lm', language: 'am', lm: { ...LM, file: '../lm/not-an-lm.bin' } });
    await expect(loadModelFolder(foreign)).rejects.toThrow(/not a valid HNLM file: magic/);
    const escaping = await makeModelFolder(root, 'escaping', { name: 'escaping', language: 'am', lm: { ...LM, file: '../../etc/lm.bin' } });
    await expect(loadModelFolder(escaping)).rejects.toThrow(/lm.file must be a file name in the model folder or \.\.\/<folder>\/<file>/);
    const word = await makeModelFolder(root, 'word-lm', { name: 'word-lm', language: 'am', lm: { ...LM, unit: 'word' } });
    await expect(loadModelFolder(word)).rejects.toThrow(/lm.unit word is not supported/);
  });
});
