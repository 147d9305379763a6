import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveMediaTools } from '../../platform/subprocess/media-tools.js';
import { BACKENDS, diarize } from './diarize.js';
import { SPEAKER_FRAME_MS, speakerFrames } from './speaker-features.js';
import { diarizationErrorRate } from '../scoring/diarization-error-rate.js';
import { energySpeechMask } from './speech-mask.js';
import { loadOverlapDetector } from './overlap-detector.js';
import { loadSpeakerProjection } from './speaker-projection.js';
import { twoSpeakerConversation } from '../../../test/helpers/speaker-conversation.js';

const projection = await loadSpeakerProjection(new URL('../../../models/diarization/speaker-ivector-v3.json', import.meta.url).pathname);

describe('diarize', () => {
  it('gives two speakers to a two-speaker recording when told their number, and covers its speech', () => {
    const { pcm, reference } = twoSpeakerConversation();
    for (const backend of ['backend_b', 'backend_a'] as const) {
      const turns = diarize(pcm, { backend, minSpeakers: 2, maxSpeakers: 2 }, projection);
      expect(new Set(turns.map((t) => t.speaker)).size, backend).toBe(2);
      // Accuracy is measured by bench/diarization.ts (models/diarization/README.md); here: the
      // turns cover the speech and nothing else (no missed speech, under 1 s of false alarm).
      const score = diarizationErrorRate(
        reference,
        turns.map((t) => ({ ...t, speaker: String(t.speaker) })),
      );
      expect(score.missedMs, backend).toBeLessThan(500);
      expect(score.falseAlarmMs, backend).toBeLessThan(1000);
    }
  });

  it('keeps at least min_speakers speakers, short-turn merging included', () => {
    const { pcm } = twoSpeakerConversation();
    for (const backend of ['backend_a', 'backend_b'] as const) {
      const turns = diarize(pcm, { backend, minSpeakers: 3, maxSpeakers: null }, projection);
      expect(new Set(turns.map((t) => t.speaker)).size, backend).toBeGreaterThanOrEqual(3);
    }
  });

  it('max_speakers 2 gives at most two speakers and min_speakers 2 at least two, on a clean two-speaker file (issue 29)', () => {
    const { pcm } = twoSpeakerConversation();
    for (const backend of ['backend_a', 'backend_b'] as const) {
      const most = diarize(pcm, { backend, minSpeakers: null, maxSpeakers: 2 }, projection);
      expect(new Set(most.map((t) => t.speaker)).size, backend).toBeLessThanOrEqual(2);
      const least = diarize(pcm, { backend, minSpeakers: 2, maxSpeakers: null }, projection);
      expect(new Set(least.map((t) => t.speaker)).size, backend).toBeGreaterThanOrEqual(2);
    }
  });

  it('gives no speaker that never holds a turn of a second: turn onsets join the turn they open (issue 29)', () => {
    const { pcm } = twoSpeakerConversation();
    for (const backend of ['backend_a', 'backend_b'] as const) {
      const turns = diarize(pcm, { backend, minSpeakers: null, maxSpeakers: null }, projection);
      const longest = new Map<number, number>();
      for (const t of turns) longest.set(t.speaker, Math.max(longest.get(t.speaker) ?? 0, t.endMs - t.startMs));
      for (const [speaker, ms] of longest) expect(ms, `${backend} speaker ${speaker}`).toBeGreaterThanOrEqual(1000);
    }
  });

  // The count may differ by one between the codecs: on this fixture (truth: two speakers) the
  // short-turn path gives 3 from the WAV and 2 from the MP3 (one voice's third sentence sits at the
  // merge threshold; open in issue 29); before turn onsets joined their turns backend_a gave 4 and
  // 3, and before the short-turn path 5 against 3.
  it('finds nearly the same speaker count in the WAV and in an MP3 of the same audio (issue 29)', () => {
    const { pcm } = twoSpeakerConversation();
    const dir = mkdtempSync(join(tmpdir(), 'diarize-mp3-'));
    try {
      const raw = join(dir, 'a.f32');
      writeFileSync(raw, pcm);
      const { ffmpeg } = resolveMediaTools();
      const run = (argv: string[]): Buffer => execFileSync(ffmpeg, ['-v', 'error', '-y', ...argv], { maxBuffer: 1 << 28 });
      run(['-f', 'f32le', '-ar', '16000', '-ac', '1', '-i', raw, join(dir, 'a.mp3')]);
      const bytes = run(['-i', join(dir, 'a.mp3'), '-f', 'f32le', '-ar', '16000', '-ac', '1', '-']);
      const mp3 = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      for (const backend of ['backend_a', 'backend_b'] as const) {
        const count = (audio: Float32Array): number =>
          new Set(diarize(audio, { backend, minSpeakers: null, maxSpeakers: null }, projection).map((t) => t.speaker)).size;
        expect(Math.abs(count(mp3) - count(pcm)), backend).toBeLessThanOrEqual(1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never gives a speaker to silence and keeps within max_speakers', () => {
    const { pcm } = twoSpeakerConversation();
    const turns = diarize(pcm, { backend: 'backend_a', minSpeakers: null, maxSpeakers: 1 }, projection);
    expect(new Set(turns.map((t) => t.speaker))).toEqual(new Set([0]));
    expect(turns.every((t) => t.startMs >= 400)).toBe(true);
    expect(diarize(new Float32Array(16_000), { backend: 'backend_a', minSpeakers: null, maxSpeakers: null }, projection)).toEqual([]);
  });
});

/** The two-speaker conversation with speaker B 40 dB quieter, over a noise floor B hardly rises above (seeded noise). */
function quietSpeakerConversation(): { pcm: Float32Array; reference: { startMs: number; endMs: number; speaker: string }[] } {
  const { pcm, reference } = twoSpeakerConversation();
  for (const turn of reference) if (turn.speaker === 'B') for (let i = turn.startMs * 16; i < turn.endMs * 16; i++) pcm[i]! *= 0.01;
  let seed = 7;
  for (let i = 0; i < pcm.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    pcm[i]! += 0.002 * (seed / 1073741824 - 1);
  }
  return { pcm, reference };
}

/** Milliseconds of `speaker`'s reference turns that some turn covers. */
function coveredMs(
  reference: readonly { startMs: number; endMs: number; speaker: string }[],
  speaker: string,
  turns: readonly { startMs: number; endMs: number }[],
): number {
  let ms = 0;
  for (const r of reference.filter((t) => t.speaker === speaker))
    for (const t of turns) ms += Math.max(0, Math.min(r.endMs, t.endMs) - Math.max(r.startMs, t.startMs));
  return ms;
}

describe('overlapped speech', () => {
  it('backend_a with the detector adds second speakers over overlapped speech, mostly where two people speak; backend_b and no detector: one at a time', async () => {
    const detector = await loadOverlapDetector(new URL('../../../models/diarization/overlap-detector-v1.json', import.meta.url).pathname);
    // Each turn starts 1 s before the previous one ends.
    const { pcm, reference } = twoSpeakerConversation(-16_000);
    // One long run of speech (the VAD's span over the exchange, as the API passes it): short-turn
    // files leave the marking out, checked at the end.
    const whole = [{ startMs: reference[0]!.startMs, endMs: reference[reference.length - 1]!.endMs }];
    const options = { backend: 'backend_a', minSpeakers: null, maxSpeakers: null, speech: whole } as const;
    const plain = diarize(pcm, options, projection);
    const marked = diarize(pcm, { ...options, overlapDetector: detector }, projection);
    // The first speaker of every frame stays as it was; the detector only adds turns after them.
    expect(marked.slice(0, plain.length)).toEqual(plain);
    const second = marked.slice(plain.length);
    expect(second.length).toBeGreaterThan(0);
    const speakers = new Set(plain.map((t) => t.speaker));
    expect(second.every((t) => speakers.has(t.speaker))).toBe(true);
    const overlapped = reference.slice(1).map((t, i) => ({ startMs: t.startMs, endMs: reference[i]!.endMs }));
    const markedMs = second.reduce((sum, t) => sum + t.endMs - t.startMs, 0);
    const rightMs = second.reduce(
      (sum, t) => sum + overlapped.reduce((s, o) => s + Math.max(0, Math.min(t.endMs, o.endMs) - Math.max(t.startMs, o.startMs)), 0),
      0,
    );
    expect(rightMs / markedMs).toBeGreaterThan(0.5);
    // A second speaker never doubles the first: no frame has the same speaker twice.
    for (const t of second) expect(plain.some((p) => p.speaker === t.speaker && p.startMs < t.endMs && t.startMs < p.endMs)).toBe(false);
    const coarse = { ...options, backend: 'backend_b' } as const;
    expect(diarize(pcm, { ...coarse, overlapDetector: detector }, projection)).toEqual(diarize(pcm, coarse, projection));
    // Without the span the energy gate breaks the exchange into runs of about 2 s: a short-turn
    // file, where the detector (right about one mark in five on such conversations) is not run.
    const short = { backend: 'backend_a', minSpeakers: null, maxSpeakers: null } as const;
    expect(diarize(pcm, { ...short, overlapDetector: detector }, projection)).toEqual(diarize(pcm, short, projection));
  });

  it('leaves a noisy file (frame energies spanning under 20 dB) one speaker at a time', async () => {
    const detector = await loadOverlapDetector(new URL('../../../models/diarization/overlap-detector-v1.json', import.meta.url).pathname);
    const { pcm, reference } = twoSpeakerConversation(-16_000);
    let seed = 7;
    // Uniform white noise of ±0.025 (RMS 0.014), about 23 dB under these clips' speech: their frame energies then span under 20 dB.
    const noisy = pcm.map((x) => {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      return x + 0.025 * (seed / 2 ** 31 - 1);
    });
    // The reference turns stand in for the VAD's spans: the energy gate alone finds no speech in this much noise.
    const options = { backend: 'backend_a', minSpeakers: null, maxSpeakers: null, speech: reference } as const;
    const plain = diarize(noisy, options, projection);
    expect(plain.length).toBeGreaterThan(0);
    expect(diarize(noisy, { ...options, overlapDetector: detector }, projection)).toEqual(plain);
    // Without the energy-range guard the detector would mark this file.
    const unguarded = diarize(noisy, { ...options, overlapDetector: detector }, projection, { ...BACKENDS.backend_a, overlapMinRangeDb: 0 });
    expect(unguarded.length).toBeGreaterThan(plain.length);
  });
});

describe('speech spans', () => {
  it('a quiet speaker the energy gate misses gets a speaker of its own inside the given spans', () => {
    const { pcm, reference } = quietSpeakerConversation();
    const quietMs = reference.filter((t) => t.speaker === 'B').reduce((sum, t) => sum + t.endMs - t.startMs, 0);
    const speech = reference.map((t) => ({ startMs: t.startMs, endMs: t.endMs }));
    for (const backend of ['backend_a', 'backend_b'] as const) {
      const gated = diarize(pcm, { backend, minSpeakers: null, maxSpeakers: null }, projection);
      expect(coveredMs(reference, 'B', gated), backend).toBeLessThan(0.3 * quietMs);
      const spanned = diarize(pcm, { backend, minSpeakers: 2, maxSpeakers: 2, speech }, projection);
      expect(coveredMs(reference, 'B', spanned), backend).toBeGreaterThan(0.9 * quietMs);
      // B's speech takes a speaker other than A's.
      const score = diarizationErrorRate(
        reference,
        spanned.map((t) => ({ ...t, speaker: String(t.speaker) })),
      );
      expect(score.confusionMs / score.referenceMs, backend).toBeLessThan(0.2);
    }
  });

  it('adds the spans to the energy gate and keeps speech inside `within`', () => {
    const { pcm } = quietSpeakerConversation();
    const features = speakerFrames(pcm);
    const gate = energySpeechMask(features);
    const spans = [{ startMs: 100, endMs: 300 }];
    const withSpans = energySpeechMask(features, spans);
    const frameAt = (ms: number): number => ms / SPEAKER_FRAME_MS;
    for (let t = 0; t < features.frames; t++) expect(withSpans[t], `frame ${t}`).toBe(t >= frameAt(100) && t < frameAt(300) ? 1 : gate[t]);
    const within = energySpeechMask(features, spans, [{ startMs: 0, endMs: 200 }]);
    expect(Array.from(within.slice(0, frameAt(100)))).toEqual(Array.from(gate.slice(0, frameAt(100))));
    expect(within.slice(frameAt(100), frameAt(200)).every((v) => v === 1)).toBe(true);
    expect(within.slice(frameAt(200)).every((v) => v === 0)).toBe(true);
    expect(gate.slice(frameAt(200)).some((v) => v === 1)).toBe(true);
  });
});
