/**
 * Diarization on a speaker-embedding ONNX (DIARIZATION_EMBEDDING_MODEL), below the API: the
 * windows' embeddings the diarization thread computes (each speech window's speech samples,
 * batched by length) are the embeddings sherpa-onnx-node 1.13.8 gives for the same samples, and
 * the ones `SpeakerEmbeddingModel.embed` gives one window at a time; a diarization thread given the
 * model clusters exactly those embeddings (its turns equal the pure pipeline's on embeddings computed
 * here) with EMBEDDING_BACKENDS' parameters. Fixture: test/fixtures/speaker-embedding/tiny-wespeaker.onnx
 * (random weights), on the two-speaker fixture conversation (test/helpers/speaker-conversation.ts).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diarizeInThread } from '../../src/engines/diarization/diarization-thread.js';
import { diarizationFrames, diarize, EMBEDDING_BACKENDS } from '../../src/engines/diarization/diarize.js';
import { SpeakerEmbeddingModel } from '../../src/engines/diarization/speaker-embedding-model.js';
import { loadSpeakerProjection } from '../../src/engines/diarization/speaker-projection.js';
import { speechWindowSpans, windowSpeechSamples } from '../../src/engines/diarization/speaker-windows.js';
import { sherpaSpeakerEmbeddings } from '../helpers/sherpa-speaker-embedding.js';
import { twoSpeakerConversation } from '../helpers/speaker-conversation.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL = join(ROOT, 'test/fixtures/speaker-embedding/tiny-wespeaker.onnx');
const PROJECTION = join(ROOT, 'models/diarization/speaker-ivector-v1.json');

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => Math.max(...Array.from(a, (v, k) => Math.abs(v - b[k]!)));

const scratch = useScratchDir('spk-windows-');
let model: SpeakerEmbeddingModel;
const { pcm, reference } = twoSpeakerConversation();
const options = { backend: 'backend_a', minSpeakers: 2, maxSpeakers: 2 } as const;

beforeAll(async () => {
  model = await SpeakerEmbeddingModel.open(MODEL);
});

afterAll(async () => {
  await model?.release();
});

describe('diarization windows embedded by a speaker-embedding ONNX', () => {
  it("embeds each speech window's speech samples as sherpa-onnx and one-at-a-time embed do", async () => {
    const frames = diarizationFrames(pcm, {});
    const spans = speechWindowSpans(frames.speech, frames.features.frames, EMBEDDING_BACKENDS.backend_a);
    // 1.5 s windows every 0.76 s over about 20 s of speech.
    expect(spans.length).toBeGreaterThan(15);
    const samples = spans.map((span) => windowSpeechSamples(pcm, frames.speech, span));
    // A window's samples are its speech frames' (20 ms, 320 samples each), in order.
    spans.forEach((span, i) => {
      const speechFrames = frames.speech.subarray(span.startFrame, span.endFrame).reduce((n, s) => n + (s === 0 ? 0 : 1), 0);
      expect(samples[i]!.length).toBe(speechFrames * 320);
    });
    const first = spans.findIndex((s) => frames.speech[s.startFrame] !== 0);
    expect(Array.from(samples[first]!.subarray(0, 320))).toEqual(
      Array.from(pcm.subarray(spans[first]!.startFrame * 320, spans[first]!.startFrame * 320 + 320)),
    );
    // Windows of several lengths: full ones batched together, partial ones (speech at their edges) alone or in smaller batches.
    expect(new Set(samples.map((s) => s.length)).size).toBeGreaterThan(1);

    const embedded = await model.embedWindows(pcm, frames.speech, spans);
    expect(embedded.kind).toBe('model');
    expect(embedded.windows.map((w) => [w.startFrame, w.endFrame])).toEqual(spans.map((s) => [s.startFrame, s.endFrame]));
    for (const [i, w] of embedded.windows.entries()) {
      expect(w.embedding.length).toBe(16);
      expect(maxDiff(w.embedding, await model.embed(samples[i]!)), `window ${i}`).toBeLessThan(1e-5);
    }

    // Against the reference: the first 6 windows, the shortest and the longest.
    const byLength = [...samples.keys()].sort((a, b) => samples[a]!.length - samples[b]!.length);
    const picked = [...new Set([0, 1, 2, 3, 4, 5, byLength[0]!, byLength.at(-1)!])];
    const { out: sherpa } = await sherpaSpeakerEmbeddings(
      MODEL,
      picked.map((i) => samples[i]!),
      scratch('windows.json'),
    );
    picked.forEach((window, k) => expect(maxDiff(embedded.windows[window]!.embedding, sherpa[k]!), `window ${window}`).toBeLessThan(1e-4));
    // Different windows, different embeddings (not a constant).
    expect(maxDiff(embedded.windows[0]!.embedding, embedded.windows.at(-1)!.embedding)).toBeGreaterThan(1e-2);
  }, 120_000);

  it('a diarization thread given the model clusters those embeddings into the speakers asked for', async () => {
    const frames = diarizationFrames(pcm, {});
    const spans = speechWindowSpans(frames.speech, frames.features.frames, EMBEDDING_BACKENDS.backend_a);
    const embeddings = await model.embedWindows(pcm, frames.speech, spans);
    const expected = diarize(pcm, options, embeddings, undefined, frames);
    // A projection path that does not exist: the thread does not read it with an embedding model.
    const threaded = await diarizeInThread(pcm.slice(), options, {
      projectionPath: '/nonexistent/projection.json',
      embeddingModelPath: MODEL,
      timeoutMs: 60_000,
    });
    expect(threaded.modelWindows).toBe(spans.length);
    expect(threaded.turns).toEqual(expected);
    expect(new Set(threaded.turns.map((t) => t.speaker))).toEqual(new Set([0, 1]));
    // The i-vector path on the same audio gives other windows (3 s every 0.5 s) and so other turns.
    const ivector = diarize(pcm, options, await loadSpeakerProjection(PROJECTION));
    expect(ivector).not.toEqual(expected);
    // Random weights: how often the two-speaker split matches the reference is reported, not asserted.
    const agreement = agreementWithReference(expected);
    console.log(`tiny random-weight model, two-speaker fixture: ${(agreement * 100).toFixed(0)}% of speech time on the matching speaker`);
  }, 120_000);

  it('a model that cannot be read fails the file naming only the file, not its folder', async () => {
    await expect(
      diarizeInThread(pcm.slice(), options, { projectionPath: PROJECTION, embeddingModelPath: scratch('gone.onnx'), timeoutMs: 60_000 }),
    ).rejects.toThrow(/Speaker diarization failed: speaker embedding model gone\.onnx: the file is missing or unreadable/);
  }, 60_000);
});

/** Share of the reference speech time whose hypothesis speaker is the best-matching one (two speakers). */
function agreementWithReference(turns: readonly { startMs: number; endMs: number; speaker: number }[]): number {
  const overlap = (a: { startMs: number; endMs: number }, b: { startMs: number; endMs: number }): number =>
    Math.max(0, Math.min(a.endMs, b.endMs) - Math.max(a.startMs, b.startMs));
  const score = (map: Record<string, number>): number =>
    reference.reduce((sum, r) => sum + turns.filter((t) => t.speaker === map[r.speaker]).reduce((s, t) => s + overlap(r, t), 0), 0);
  const total = reference.reduce((sum, r) => sum + r.endMs - r.startMs, 0);
  return Math.max(score({ A: 0, B: 1 }), score({ A: 1, B: 0 })) / total;
}
