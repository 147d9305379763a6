import { describe, expect, it } from 'vitest';
import { outputCap } from './output-cap.js';

describe('outputCap', () => {
  const decoding = { maxOutputTokens: 256, maxOutputRatio: 2.5, maxOutputExtra: 4 };

  it('is the ratio of the source pieces plus a constant', () => {
    expect(outputCap(1, decoding)).toBe(7);
    expect(outputCap(2, decoding)).toBe(9);
    expect(outputCap(10, decoding)).toBe(29);
  });

  it('never passes max_output_tokens and allows at least one token', () => {
    expect(outputCap(200, decoding)).toBe(256);
    expect(outputCap(0, { ...decoding, maxOutputExtra: 0 })).toBe(1);
  });
});
