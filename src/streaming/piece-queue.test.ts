import { describe, expect, it } from 'vitest';
import { type Piece, PieceQueue, type QueuedPiece } from './piece-queue.js';

const piece = (kind: Piece['kind'], start: number, end: number, turnId: number | null = 1): Piece => ({
  kind,
  turnId,
  start,
  end,
  audio: new Float32Array(end - start),
  cutAt: 0,
  forcedSplit: false,
});
const noCopy = (): Float32Array => {
  throw new Error('every queued piece here has its copy');
};

describe('PieceQueue', () => {
  it('runs pieces owed an answer one at a time, in order', () => {
    const queue = new PieceQueue();
    const first = piece('turn', 0, 100);
    const second = piece('turn', 100, 300, 2);
    queue.push(first);
    queue.push(second);
    expect(queue.next(noCopy)).toEqual(first);
    expect(queue.next(noCopy)).toBeNull();
    expect(queue.count).toBe(2);
    queue.settle(queue.inFlight!);
    expect(queue.next(noCopy)).toEqual(second);
  });

  it('starts a partial only when idle', () => {
    const queue = new PieceQueue();
    queue.push(piece('turn', 0, 100));
    expect(queue.startPartial(piece('partial', 100, 200, 2))).toBe(false);
    const turn = queue.next(noCopy)!;
    expect(queue.startPartial(piece('partial', 100, 200, 2))).toBe(false);
    queue.settle(turn);
    expect(queue.startPartial(piece('partial', 100, 200, 2))).toBe(true);
    expect(queue.idle).toBe(false);
  });

  it("a turn overtakes its session's partial in flight; no partial starts until the overtaken one settles", () => {
    const queue = new PieceQueue();
    const partial = piece('partial', 0, 800);
    expect(queue.startPartial(partial)).toBe(true);
    const turn = piece('turn', 0, 1000);
    queue.push(turn);
    const started = queue.next(noCopy);
    expect(started).toEqual(turn);
    expect(queue.inFlight).toEqual(turn);
    expect(queue.overtaken).toBe(partial);
    // both compute: both count and hold their audio
    expect(queue.count).toBe(2);
    expect(queue.heldSamples).toBe(1800);
    // the partial is not owed an answer: only the turn is pending
    expect(queue.pendingSamples).toBe(1000);
    expect(queue.oldest).toEqual(turn);
    // the turn settles first: a new partial still waits for the overtaken one
    queue.settle(started!);
    expect(queue.inFlight).toBeNull();
    expect(queue.idle).toBe(false);
    expect(queue.startPartial(piece('partial', 1000, 1500, 2))).toBe(false);
    queue.settle(partial);
    expect(queue.idle).toBe(true);
    expect(queue.heldSamples).toBe(0);
  });

  it('the overtaken partial settling first leaves the turn in flight', () => {
    const queue = new PieceQueue();
    const partial = piece('partial', 0, 800);
    queue.startPartial(partial);
    queue.push(piece('turn', 0, 1000));
    const turn = queue.next(noCopy)!;
    queue.settle(partial);
    expect(queue.inFlight).toBe(turn);
    expect(queue.overtaken).toBeNull();
    // the next turn waits for the one in flight, not for partials
    queue.push(piece('turn', 1000, 2000, 2));
    expect(queue.next(noCopy)).toBeNull();
    queue.settle(turn);
    expect(queue.next(noCopy)?.turnId).toBe(2);
  });

  it('settling a piece that is neither in flight nor overtaken changes nothing', () => {
    const queue = new PieceQueue();
    queue.push(piece('turn', 0, 100));
    const turn = queue.next(noCopy)!;
    queue.settle(piece('partial', 0, 50));
    expect(queue.inFlight).toBe(turn);
  });

  it('copies a piece still in the ring when it starts', () => {
    const queue = new PieceQueue();
    const inRing: QueuedPiece = { ...piece('transcribe', 0, 160, null), audio: null };
    queue.push(inRing);
    expect(queue.ringFloor).toBe(0);
    const started = queue.next((queued) => new Float32Array(queued.end - queued.start).fill(0.5));
    expect(started?.audio.length).toBe(160);
    expect(queue.ringFloor).toBeNull();
  });
});
