import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioTooLargeError, InvalidAudioError } from '../../src/engines/signal/files/audio-errors.js';
import { Asr, type FileTranscriptionProgress } from '../../src/engines/asr/asr.js';
import { ModelSelectionError } from '../../src/engines/asr/models/model-errors.js';
import { AUDIO, noise, TINY_CTC_MEL, TINY_LID } from './fixtures.js';
import { makeModelFolder } from './model-folders.js';

let root: string;
let engine: Asr;
let metrics: Registry;

/** Models named as the spec's table names them, all built from the UNTRAINED fixture networks. */
async function specModels(dir: string, withLid: boolean): Promise<void> {
  await makeModelFolder(dir, 'small-am-v1', { name: 'small-am-v1', language: 'am' });
  await makeModelFolder(dir, 'beta-am-v1', { name: 'beta-am-v1', language: 'am' });
  await makeModelFolder(dir, 'small-om-v1', { name: 'small-om-v1', language: 'om' }, TINY_CTC_MEL);
  await makeModelFolder(dir, 'small-ti-v1', { name: 'small-ti-v1', language: 'ti' });
  if (withLid) await makeModelFolder(dir, 'lid-v1', { name: 'lid-v1' }, TINY_LID);
}

const request = (audioPath: string, language: string, model: string | null = null, signal = new AbortController().signal) => {
  const progress: FileTranscriptionProgress[] = [];
  const languages: Array<[string, string]> = [];
  return {
    progress,
    languages,
    request: {
      audioPath,
      language,
      model,
      signal,
      onProgress: (p: FileTranscriptionProgress) => progress.push(p),
      onLanguage: (l: string, m: string) => languages.push([l, m]),
    },
  };
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'engine-'));
  await specModels(join(root, 'with-lid'), true);
  await specModels(join(root, 'without-lid'), false);
  metrics = new Registry();
  engine = await Asr.create({ modelsDir: join(root, 'with-lid'), workers: 2, intraOpThreads: 1, metrics });
});

afterAll(async () => {
  await engine.close();
  await rm(root, { recursive: true, force: true });
});

describe('Speech', () => {
  it('lists languages and models for discovery and health', () => {
    expect(engine.languages()).toEqual([
      { code: 'am', name: 'Amharic', defaultModel: 'small-am-v1' },
      { code: 'om', name: 'Oromo', defaultModel: 'small-om-v1' },
      { code: 'ti', name: 'Tigrinya', defaultModel: 'small-ti-v1' },
    ]);
    const models = engine.models();
    expect(models.map((m) => [m.name, m.language, m.isDefault, m.loaded])).toEqual([
      ['small-am-v1', 'am', true, true],
      ['beta-am-v1', 'am', false, false],
      ['small-om-v1', 'om', true, true],
      ['small-ti-v1', 'ti', true, true],
    ]);
    expect(models[0]!.description).toMatch(/^UNTRAINED/);
    expect(engine.autoDetect()).toBe(true);
    expect(engine.device()).toMatchObject({ requested: 'cpu', active: 'cpu', workers: 2 });
    expect(engine.problems()).toEqual([]);
  });

  it('applies the model rules before touching the audio', async () => {
    const { request: r } = request(AUDIO('speech-am.wav'), 'auto', 'small-am-v1');
    await expect(engine.transcribe(r)).rejects.toMatchObject({ engineError: 'model_with_auto', param: 'model' });
    await expect(engine.transcribe(request(AUDIO('speech-am.wav'), 'am', 'small-ti-v1').request)).rejects.toBeInstanceOf(ModelSelectionError);
    expect(() => engine.resolveModel('xx')).toThrow(/Available languages: am, om, ti, auto/);
  });

  it.each(['wav', 'flac', 'mp3', 'm4a', 'ogg', 'webm', 'aac'])('transcribes speech-am.%s', async (ext) => {
    const { request: r, progress, languages } = request(AUDIO(`speech-am.${ext}`), 'am');
    const result = await engine.transcribe(r);
    expect(result).toMatchObject({ language: 'am', model: 'small-am-v1', detection: null });
    expect(result.durationSeconds).toBeGreaterThan(8.0);
    expect(result.durationSeconds).toBeLessThan(8.3);
    expect(languages).toEqual([['am', 'small-am-v1']]);
    expect(result.segments.length).toBeGreaterThan(0);
    result.segments.forEach((s, i) => {
      expect(s).toMatchObject({ id: i, speaker: null, duration_ms: s.end_ms - s.start_ms });
      expect(s.text.length).toBeGreaterThan(0);
      expect(s.end_ms).toBeLessThanOrEqual(8300);
    });
    expect(progress[0]!.stage).toBe('decoding');
    const last = progress[progress.length - 1]!;
    expect(last).toMatchObject({ stage: 'transcribing' });
    expect(last.doneSegments).toBe(last.totalSegments);
  });

  it('gives the same transcript for the lossless containers', async () => {
    const [wav, flac] = await Promise.all(['wav', 'flac'].map((ext) => engine.transcribe(request(AUDIO(`speech-am.${ext}`), 'am').request)));
    expect(flac!.segments).toEqual(wav!.segments);
  });

  it('runs the model that was asked for', async () => {
    const result = await engine.transcribe(request(AUDIO('speech-am.flac'), 'am', 'beta-am-v1').request);
    expect(result.model).toBe('beta-am-v1');
    expect(engine.models().find((m) => m.name === 'beta-am-v1')!.loaded).toBe(true);
  });

  it.each([
    ['not-audio.txt', 'not audio in a supported format'],
    ['corrupt.m4a', 'could not be read'],
    ['corrupt.mp3', ''],
  ])('fails %s with invalid_audio_format', async (name, message) => {
    const error = await engine.transcribe(request(AUDIO(name), 'am').request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAudioError);
    expect((error as InvalidAudioError).engineError).toBe('invalid_audio');
    expect((error as Error).message).toContain(message);
  });

  it('refuses files over the size limit with file_too_large', async () => {
    const small = await Asr.create({ modelsDir: join(root, 'with-lid'), workers: 1, maxAudioBytes: 100_000, preload: false });
    try {
      const error = await small.transcribe(request(AUDIO('speech-am.wav'), 'am').request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AudioTooLargeError);
      expect((error as AudioTooLargeError).engineError).toBe('audio_too_large');
    } finally {
      await small.close();
    }
  });

  it('detects the language for auto with the language-id model', async () => {
    for (const file of ['speech-am.ogg', 'speech-om.flac', 'speech-ti.flac']) {
      const { request: r, progress, languages } = request(AUDIO(file), 'auto');
      const result = await engine.transcribe(r);
      expect(result.detection!.method).toBe('language_id_model');
      expect(Object.keys(result.detection!.scores).sort()).toEqual(['am', 'om', 'ti']);
      expect(result.language).toBe(result.detection!.language);
      expect(result.model).toBe(`small-${result.language}-v1`);
      expect(languages).toEqual([[result.language, result.model]]);
      expect(progress.map((p) => p.stage)).toContain('detecting_language');
      expect(result.durationSeconds).toBeGreaterThan(3);
    }
  });

  it('falls back to scoring each language model when no language-id model is installed', async () => {
    const noLid = await Asr.create({ modelsDir: join(root, 'without-lid'), workers: 1 });
    try {
      const result = await noLid.transcribe(request(AUDIO('speech-ti.flac'), 'auto').request);
      expect(result.detection!.method).toBe('ctc_confidence');
      expect(Object.keys(result.detection!.scores).sort()).toEqual(['am', 'om', 'ti']);
      const best = Object.entries(result.detection!.scores).sort((a, b) => b[1] - a[1])[0]![0];
      expect(result.language).toBe(best);
    } finally {
      await noLid.close();
    }
  });

  it('stops when the job is cancelled', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    const { request: r } = request(AUDIO('speech-am.wav'), 'am', null, controller.signal);
    const run = engine.transcribe({ ...r, onProgress: (p) => p.stage === 'transcribing' && controller.abort(reason) });
    await expect(run).rejects.toBe(reason);
  });

  it("reports the pool's figures of live pieces for the capacity estimate", async () => {
    const pcm = noise(2 * 16_000, 3, 0.3);
    const piece = await engine.recognizePiece(pcm, { model: 'small-am-v1', startMs: 0 });
    expect(piece.inference.workerMs).toBeGreaterThan(0);
    expect(piece.inference.batchSize).toBeGreaterThanOrEqual(1);
    expect(piece.inference.queueWaitMs).toBeGreaterThanOrEqual(0);
    const turn = await engine.transcribePiece(pcm, { model: 'small-am-v1', startMs: 0 });
    expect(turn.inference).not.toBeNull();
    expect(turn.inference!.workerMs).toBeGreaterThan(0);
    expect(turn.inference!.batchSize).toBe(1);
    // Nothing ran for silence: no figures.
    expect((await engine.transcribePiece(new Float32Array(16_000), { model: 'small-am-v1', startMs: 0 })).inference).toBeNull();
  });

  it('exports pool metrics', async () => {
    const text = await metrics.metrics();
    expect(text).toMatch(/inference_requests_total\{model="small-am-v1",outcome="ok"\} [1-9]/);
  });
});
