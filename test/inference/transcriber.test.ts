import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMediaTools } from '../../src/platform/subprocess/media-tools.js';
import { PauseSegmenter } from '../../src/engines/asr/recognition/pause-segmenter.js';
import { decodeToPcm } from '../../src/engines/signal/files/pcm-decoder.js';
import { CtcRecognizer } from '../../src/engines/asr/recognition/ctc-recognizer.js';
import { ModelRunError } from '../../src/engines/asr/inference/inference-errors.js';
import { InferencePool } from '../../src/engines/asr/inference/inference-pool.js';
import { transcribeAll, transcribeStream, type TranscriptionProgress } from '../../src/engines/asr/recognition/transcriber.js';
import { loadModelFolder, type LoadedCtcModel } from '../../src/engines/asr/models/model-loader.js';
import { AUDIO, noise, TINY_CTC, TINY_CTC_MEL } from './fixtures.js';

const tools = resolveMediaTools();
let pool: InferencePool;
let ctc: LoadedCtcModel;
let mel: LoadedCtcModel;
let speech: Float32Array;

async function* chunks(pcm: Float32Array, size = 16000): AsyncGenerator<Float32Array> {
  for (let i = 0; i < pcm.length; i += size) yield pcm.slice(i, i + size);
}

beforeAll(async () => {
  pool = await InferencePool.start({ workers: 2, intraOpThreads: 1, maxBatchSize: 4, maxWaitMs: 5 });
  ctc = (await loadModelFolder(TINY_CTC)) as LoadedCtcModel;
  mel = (await loadModelFolder(TINY_CTC_MEL)) as LoadedCtcModel;
  const parts: Float32Array[] = [];
  for await (const c of decodeToPcm(AUDIO('speech-am.wav'), { ffmpegPath: tools.ffmpeg })) parts.push(c);
  // the two-sentence fixture three times: several pauses to cut at
  const one = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    one.set(p, at);
    at += p.length;
  }
  speech = new Float32Array(one.length * 3);
  for (let k = 0; k < 3; k++) speech.set(one, k * one.length);
});

afterAll(async () => {
  await pool.close();
});

describe('CtcRecognizer', () => {
  it('decodes the valid frames of a row and times words by the frame stride', async () => {
    const recognizer = new CtcRecognizer(pool, ctc);
    expect(recognizer.frameMs).toBe(20);
    const samples = speech.subarray(0, 16000 * 3);
    const result = await recognizer.recognize(samples, { startMs: 1000 });
    expect(result.frames).toBe(
      [
        [10, 5],
        [8, 4],
        [4, 4],
        [4, 4],
      ].reduce((n, [k, s]) => Math.floor((n - k!) / s!) + 1, samples.length),
    );
    for (const w of result.words) {
      expect(w.start_ms).toBeGreaterThanOrEqual(1000);
      expect(w.end_ms).toBeLessThanOrEqual(1000 + 3000);
      expect(w.end_ms).toBeGreaterThan(w.start_ms);
    }
    expect(result.text).toBe(result.words.map((w) => w.text).join(' '));
    // the same audio gives the same hypothesis, alone or batched with others
    const again = await Promise.all([
      recognizer.recognize(samples, { startMs: 1000 }),
      recognizer.recognize(noise(20000)),
      recognizer.recognize(noise(5000, 3)),
    ]);
    expect(again[0]!.text).toBe(result.text);
    expect(again[0]!.confidence).toBe(result.confidence);
  });

  it('runs a log-mel model through the same path', async () => {
    const result = await new CtcRecognizer(pool, mel).recognize(speech.subarray(0, 16000 * 2));
    expect(result.frames).toBe(Math.floor((1 + Math.floor(32000 / 160) - 3) / 2) + 1);
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('refuses logits whose class count differs from the vocabulary', async () => {
    const shortVocab: LoadedCtcModel = {
      ...ctc,
      name: 'tiny-ctc-short-vocab',
      vocabulary: { ...ctc.vocabulary, tokens: ctc.vocabulary.tokens.slice(0, 30) },
    };
    await expect(new CtcRecognizer(pool, shortVocab).recognize(noise(16000))).rejects.toThrow(ModelRunError);
  });
});

describe('transcribeStream', () => {
  it('cuts at pauses, keeps order, and gives the text the recognizer gives each piece', async () => {
    const recognizer = new CtcRecognizer(pool, ctc);
    const segmenterOptions = { minSegmentMs: 1000, maxSegmentMs: 6000 };
    const progress: TranscriptionProgress[] = [];
    const { segments, words, audioMs } = await transcribeAll(chunks(speech, 7000), {
      recognizer,
      segmenter: segmenterOptions,
      maxInFlight: 3,
      durationMs: (speech.length / 16000) * 1000,
      onProgress: (p) => progress.push(p),
    });
    expect(audioMs).toBe(Math.round(speech.length / 16));

    // expected pieces, straight from the segmenter, recognised one by one
    const segmenter = new PauseSegmenter(segmenterOptions);
    const pieces = [...segmenter.push(speech), ...segmenter.flush()].filter((p) => p.speech);
    const expected = [];
    for (const piece of pieces) {
      const r = await recognizer.recognize(piece.samples);
      if (r.text.length > 0)
        expected.push({
          start: Math.round(piece.startSample / 16),
          end: Math.round((piece.startSample + piece.samples.length) / 16),
          text: r.text,
          confidence: r.confidence,
        });
    }
    expect(pieces.length).toBeGreaterThanOrEqual(6);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(segments.map((s) => ({ start: s.start_ms, end: s.end_ms, text: s.text, confidence: s.confidence }))).toEqual(expected);
    segments.forEach((s, i) => {
      expect(s.id).toBe(i);
      expect(s.duration_ms).toBe(s.end_ms - s.start_ms);
      expect(s.end_ms - s.start_ms).toBeLessThanOrEqual(6000);
      expect(s.speaker).toBeNull();
      expect(s.confidence).toBeGreaterThan(0);
      expect(s.confidence).toBeLessThanOrEqual(1);
      if (i > 0) expect(s.start_ms).toBeGreaterThanOrEqual(segments[i - 1]!.end_ms);
      for (const w of words[i]!) {
        expect(w.start_ms).toBeGreaterThanOrEqual(s.start_ms);
        expect(w.end_ms).toBeLessThanOrEqual(s.end_ms);
      }
    });

    // progress: done grows one by one, the estimate never falls below done, and ends equal
    expect(progress[0]!.doneSegments).toBe(0);
    progress.forEach((p, i) => {
      expect(p.totalSegments).toBeGreaterThanOrEqual(p.doneSegments);
      if (i > 0) expect(p.doneSegments).toBeGreaterThanOrEqual(progress[i - 1]!.doneSegments);
    });
    const last = progress[progress.length - 1]!;
    expect(last.doneSegments).toBe(last.totalSegments);
    expect(last.processedMs).toBe(audioMs);
  });

  it('stops when aborted and when the consumer leaves early', async () => {
    const recognizer = new CtcRecognizer(pool, ctc);
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    let pulled = 0;
    const source = (async function* () {
      for await (const c of chunks(speech, 4000)) {
        pulled++;
        yield c;
      }
    })();
    const run = transcribeAll(source, {
      recognizer,
      segmenter: { minSegmentMs: 1000 },
      signal: controller.signal,
      onProgress: (p) => {
        if (p.doneSegments === 1) controller.abort(reason);
      },
    });
    await expect(run).rejects.toBe(reason);
    expect(pulled).toBeLessThan(Math.ceil(speech.length / 4000));

    let consumed = 0;
    for await (const _ of transcribeStream(chunks(speech), { recognizer, segmenter: { minSegmentMs: 1000 } })) {
      consumed++;
      break;
    }
    expect(consumed).toBe(1);
  });

  it('produces no segments for silence', async () => {
    const recognizer = new CtcRecognizer(pool, ctc);
    const { segments, audioMs } = await transcribeAll(chunks(new Float32Array(16000 * 10)), { recognizer });
    expect(segments).toEqual([]);
    expect(audioMs).toBe(10_000);
  });
});
