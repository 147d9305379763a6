import { describe, expect, it } from 'vitest';
import { segmentAt as seg } from '../../../../test/helpers/transcript-fixture.js';
import { mergeChannelSegments, parseChannelNames, speakerLines } from './channel-segments.js';

type Segments = Parameters<typeof mergeChannelSegments>[0][number];

/** Merges an agent channel (0) and a customer channel (1). */
const mergeCall = (agent: Segments, customer: Segments) => mergeChannelSegments([agent, customer], ['agent', 'customer']);

describe('mergeChannelSegments', () => {
  it('labels each channel, orders by start (then channel) and renumbers', () => {
    const merged = mergeCall([seg(0, 0, 1000, 'a1'), seg(1, 3000, 4000, 'a2')], [seg(0, 500, 2000, 'c1'), seg(1, 3000, 3500, 'c2')]);
    expect(merged.map((s) => [s.id, s.text, s.channel, s.speaker])).toEqual([
      [0, 'a1', 0, 'agent'],
      [1, 'c1', 1, 'customer'],
      [2, 'a2', 0, 'agent'],
      [3, 'c2', 1, 'customer'],
    ]);
  });
});

describe('speakerLines', () => {
  it('one line per change of speaker; empty texts skipped', () => {
    const merged = mergeCall([seg(0, 0, 1, 'hello'), seg(1, 2, 3, 'there')], [seg(0, 5, 6, 'hi'), seg(1, 7, 8, '')]);
    expect(speakerLines(merged)).toBe('agent: hello there\ncustomer: hi');
    expect(speakerLines([])).toBe('');
  });
});

describe('parseChannelNames', () => {
  it('two different names of letters, digits, _ . -', () => {
    expect(parseChannelNames('agent,customer')).toEqual(['agent', 'customer']);
    expect(parseChannelNames(' op_1 , caller.2 ')).toEqual(['op_1', 'caller.2']);
    for (const bad of ['agent', 'a,b,c', 'a,a', 'a,', 'a b,c', `${'x'.repeat(33)},y`]) expect(parseChannelNames(bad), bad).toBeNull();
  });
});
