import { describe, expect, it } from 'vitest';
import { StreamLostError } from './inference-errors.js';
import type { StreamStepResult } from './inference-protocol.js';
import { type StreamPartial, StreamSteps } from './stream-steps.js';

const pcm = new Float32Array(160);

const ok = (streamId: number, text: string, frames = 4): StreamStepResult => ({ streamId, ok: true, text, stableText: text.split(' ')[0]!, frames });
const lost = (streamId: number): StreamStepResult => ({ streamId, ok: false, lost: true, message: 'the stream is not open in this worker' });

describe('StreamSteps', () => {
  it('opens each stream on the slot holding the fewest open streams', () => {
    const steps = new StreamSteps(3);
    const slots = [1, 2, 3, 4].map(() => steps.start('m', null).slot);
    expect(slots).toEqual([0, 1, 2, 0]);
    expect(steps.streams).toBe(4);
  });

  it('counts closed streams out when choosing a slot', () => {
    const steps = new StreamSteps(3);
    const [a] = [steps.start('m', null), steps.start('m', null), steps.start('m', null)];
    steps.close(a!);
    expect(steps.start('m', null).slot).toBe(0);
  });

  it('never reuses an id', () => {
    const steps = new StreamSteps(2);
    const a = steps.start('m', null);
    steps.close(a);
    const b = steps.start('m', null);
    const c = steps.start('m', ['word']);
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect(c.keyterms).toEqual(['word']);
  });

  it('refuses a second step while one is waiting', async () => {
    const steps = new StreamSteps(1);
    const stream = steps.start('m', null);
    void steps.enqueue(stream, pcm, false, 0);
    const second = steps.enqueue(stream, pcm, false, 1);
    expect(steps.queued).toBe(1);
    await expect(second).rejects.toThrow(/in flight/);
  });

  it('takes the waiting steps of the oldest step’s model only, leaving the others waiting', () => {
    // slot 0 holds streams 1 (a), 3 (b), 5 (a) of 6 opened on 2 slots
    const steps = new StreamSteps(2);
    const streams = ['a', 'x', 'b', 'x', 'a', 'x'].map((model) => steps.start(model, null));
    const [s1, , s3, , s5] = streams;
    expect([s1!.slot, s3!.slot, s5!.slot]).toEqual([0, 0, 0]);
    void steps.enqueue(s3!, pcm, false, 0); // b is the oldest
    void steps.enqueue(s1!, pcm, false, 1);
    void steps.enqueue(s5!, pcm, false, 2);
    const first = steps.take(0)!;
    expect(first.model).toBe('b');
    expect(first.steps.map((s) => s.stream.id)).toEqual([s3!.id]);
    expect(steps.hasWaiting(0)).toBe(true);
    const second = steps.take(0)!;
    expect(second.model).toBe('a');
    expect(second.steps.map((s) => s.stream.id)).toEqual([s1!.id, s5!.id]);
    expect(steps.take(0)).toBeNull();
    expect(steps.hasWaiting(0)).toBe(false);
    expect(steps.hasWaiting(1)).toBe(false);
  });

  it('takes at most maxSteps at once, the oldest first', () => {
    const steps = new StreamSteps(1, 2);
    const streams = [0, 1, 2].map(() => steps.start('m', null));
    streams.forEach((stream, i) => void steps.enqueue(stream, pcm, true, i).catch(() => {}));
    expect(steps.take(0)!.steps.map((s) => s.stream.id)).toEqual([streams[0]!.id, streams[1]!.id]);
    expect(steps.take(0)!.steps.map((s) => s.stream.id)).toEqual([streams[2]!.id]);
    expect(steps.take(0)).toBeNull();
  });

  it("answers ok results with the partial, batch size, queue wait and the worker's time on the batch", async () => {
    const steps = new StreamSteps(1);
    const a = steps.start('m', null);
    const b = steps.start('m', null);
    const pa = steps.enqueue(a, pcm, false, 100);
    const pb = steps.enqueue(b, pcm, false, 130);
    const batch = steps.take(0)!;
    steps.answer(batch.steps, [ok(a.id, 'one two', 7), ok(b.id, 'three', 3)], 50, 150);
    expect(await pa).toEqual<StreamPartial>({ text: 'one two', stableText: 'one', frames: 7, batchSize: 2, queueWaitMs: 50, workerMs: 50 });
    expect(await pb).toEqual<StreamPartial>({ text: 'three', stableText: 'three', frames: 3, batchSize: 2, queueWaitMs: 20, workerMs: 50 });
    // the streams take their next step
    expect(a.pending).toBeNull();
    const next = steps.enqueue(a, pcm, false, 200);
    expect(steps.queued).toBe(1);
    steps.answer(steps.take(0)!.steps, [ok(a.id, 'one two four')], 8, 210);
    expect(await next).toMatchObject({ text: 'one two four', batchSize: 1, queueWaitMs: 10, workerMs: 8 });
  });

  it('rejects a lost answer (or a missing one) with StreamLostError and marks the stream lost', async () => {
    const steps = new StreamSteps(1);
    const a = steps.start('m', null);
    const b = steps.start('m', null);
    const pa = steps.enqueue(a, pcm, false, 0);
    const pb = steps.enqueue(b, pcm, false, 0);
    steps.answer(steps.take(0)!.steps, [lost(a.id)], 10, 5); // b has no result
    await expect(pa).rejects.toBeInstanceOf(StreamLostError);
    await expect(pb).rejects.toBeInstanceOf(StreamLostError);
    expect(a.lost).toBe(true);
    expect(b.lost).toBe(true);
  });

  it('rejects a failed, not lost, answer with its message and keeps the stream', async () => {
    const steps = new StreamSteps(1);
    const a = steps.start('m', null);
    const pa = steps.enqueue(a, pcm, false, 0);
    steps.answer(steps.take(0)!.steps, [{ streamId: a.id, ok: false, lost: false, message: 'boom' }], 10, 5);
    await expect(pa).rejects.toThrow('boom');
    expect(a.lost).toBe(false);
  });

  it('refuses a lost stream’s next step without restart, and accepts it with restart', async () => {
    const steps = new StreamSteps(1);
    const a = steps.start('m', null);
    const first = steps.enqueue(a, pcm, false, 0);
    steps.answer(steps.take(0)!.steps, [lost(a.id)], 1, 1);
    await expect(first).rejects.toBeInstanceOf(StreamLostError);
    const refused = steps.enqueue(a, pcm, false, 2);
    expect(steps.queued).toBe(0);
    await expect(refused).rejects.toBeInstanceOf(StreamLostError);
    await expect(refused).rejects.toMatchObject({ streamId: a.id });
    const restarted = steps.enqueue(a, pcm, true, 3);
    expect(a.lost).toBe(false);
    const batch = steps.take(0)!;
    expect(batch.steps[0]!.restart).toBe(true);
    steps.answer(batch.steps, [ok(a.id, 'again')], 1, 4);
    expect(await restarted).toMatchObject({ text: 'again' });
  });

  it('marks only the lost slot’s streams lost', async () => {
    const steps = new StreamSteps(2);
    const [a, b, c] = [steps.start('m', null), steps.start('m', null), steps.start('m', null)];
    steps.slotLost(0);
    expect([a.lost, b.lost, c.lost]).toEqual([true, false, true]);
    await expect(steps.enqueue(a, pcm, false, 0)).rejects.toBeInstanceOf(StreamLostError);
    void steps.enqueue(b, pcm, false, 0);
    expect(steps.hasWaiting(1)).toBe(true);
  });

  it('a dead worker refuses its waiting steps, takes no new stream until ready, and a restart moves to a ready worker', async () => {
    const steps = new StreamSteps(2);
    const a = steps.start('m', null);
    const waiting = steps.enqueue(a, pcm, false, 0);
    steps.slotLost(a.slot);
    await expect(waiting).rejects.toBeInstanceOf(StreamLostError);
    expect(steps.hasWaiting(0)).toBe(false);
    // new streams go to the live worker only, even when it holds more
    expect([steps.start('m', null).slot, steps.start('m', null).slot]).toEqual([1, 1]);
    // a restart of the lost stream moves it to worker 1
    void steps.enqueue(a, pcm, true, 1);
    expect(a.slot).toBe(1);
    expect(steps.hasWaiting(1)).toBe(true);
    steps.slotReady(0);
    expect(steps.start('m', null).slot).toBe(0);
  });

  it('with every worker dead, steps are refused as lost, restarts too', async () => {
    const steps = new StreamSteps(1);
    const a = steps.start('m', null);
    steps.slotLost(0);
    await expect(steps.enqueue(a, pcm, true, 0)).rejects.toBeInstanceOf(StreamLostError);
    steps.slotReady(0);
    void steps.enqueue(a, pcm, true, 1);
    expect(steps.take(0)!.steps).toHaveLength(1);
  });

  it('close refuses the waiting step, drops it from the queue, and answers true once', async () => {
    const steps = new StreamSteps(1);
    const a = steps.start('m', null);
    const b = steps.start('m', null);
    const pa = steps.enqueue(a, pcm, false, 0);
    void steps.enqueue(b, pcm, false, 0);
    expect(steps.close(a)).toBe(true);
    await expect(pa).rejects.toThrow(/closed/);
    expect(steps.queued).toBe(1);
    expect(steps.take(0)!.steps.map((s) => s.stream.id)).toEqual([b.id]);
    expect(steps.streams).toBe(1);
    expect(steps.close(a)).toBe(false);
    await expect(steps.enqueue(a, pcm, true, 1)).rejects.toThrow(/closed/);
  });

  it('close answers false for a lost stream (its worker no longer holds it)', () => {
    const steps = new StreamSteps(1);
    const a = steps.start('m', null);
    steps.slotLost(0);
    expect(steps.close(a)).toBe(false);
    expect(steps.streams).toBe(0);
  });

  it('refuseAll rejects every waiting step', async () => {
    const steps = new StreamSteps(2);
    const streams = [1, 2, 3].map(() => steps.start('m', null));
    const pending = streams.map((s) => steps.enqueue(s, pcm, false, 0));
    steps.refuseAll(() => new Error('closing'));
    expect(steps.queued).toBe(0);
    expect(streams.every((s) => s.pending === null)).toBe(true);
    for (const p of pending) await expect(p).rejects.toThrow('closing');
  });
});
