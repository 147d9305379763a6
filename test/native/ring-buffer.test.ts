import { afterEach, describe, expect, it } from 'vitest';
import { nativeAddon } from '../../src/engines/runtime/native-addon.js';
import { RingBuffer } from '../../src/engines/signal/live/ring-buffer.js';

describe('RingBuffer (native)', () => {
  const open: RingBuffer[] = [];
  afterEach(() => {
    for (const r of open.splice(0)) r.close();
  });
  const make = (max: number, initial?: number) => {
    const r = new RingBuffer(max, initial);
    open.push(r);
    return r;
  };

  it('loads the addon', () => {
    expect(nativeAddon().version()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(['avx512', 'avx2', 'scalar']).toContain(nativeAddon().simdKernel());
  });

  it('keeps order across wrap and growth and converts float <-> int16', () => {
    const r = make(1000, 8);
    const a = new Int16Array(300).map((_, i) => i);
    expect(r.write(a)).toBe(300);
    const out = new Int16Array(100);
    expect(r.read(out)).toBe(100);
    expect(out[99]).toBe(99);
    const f = new Float32Array([0.5, -0.25]);
    expect(r.write(f)).toBe(2);
    const s = r.stats();
    expect(s.size).toBe(202);
    expect(s.readPosition).toBe(100);
    expect(s.writePosition).toBe(302);
    expect(s.capacity).toBeGreaterThanOrEqual(202);
    const tail = new Float32Array(2);
    expect(r.peek(300, tail)).toBe(2);
    expect(Array.from(tail)).toEqual([0.5, -0.25]);
    expect(r.discardUntil(250)).toBe(150);
    expect(r.stats().size).toBe(52);
  });

  it('enforces the hard capacity without losing stored samples', () => {
    const r = make(100);
    expect(r.write(new Int16Array(80).fill(7))).toBe(80);
    expect(r.write(new Int16Array(80).fill(9))).toBe(20);
    const out = new Int16Array(100);
    expect(r.read(out)).toBe(100);
    expect(out[79]).toBe(7);
    expect(out[80]).toBe(9);
  });

  it('throws clear errors on misuse', () => {
    const r = make(10);
    expect(() => r.write(new Float64Array(2) as unknown as Float32Array)).toThrow(/Float32Array or an Int16Array/);
    r.close();
    expect(r.closed).toBe(true);
    expect(() => r.write(new Int16Array(1))).toThrow(/closed/);
    r.close(); // idempotent
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });
});
