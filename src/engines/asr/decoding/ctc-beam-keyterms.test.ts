import { describe, expect, it } from 'vitest';
import { ctcFrames } from '../../../../test/helpers/ctc-frames.js';
import { buildCharNgramLm } from './lm/char-ngram-builder.js';
import { CharNgramLm } from './lm/char-ngram-lm.js';
import { CtcBeamDecoder } from './ctc-beam-decoder.js';
import { CtcGreedyDecoder } from './ctc-greedy-decoder.js';
import { createDecoder, GREEDY, KEYTERM_BEAM_WIDTH, KEYTERM_WEIGHTS } from './decoding-plan.js';
import type { CtcScores } from './ctc-types.js';
import { KeytermBias } from './keyterm-bias.js';

const tokens = ['<blank>', '|', 'ሰ', 'ላ', 'ም', 'ሞ', 'ነ', 'ው'];
const vocabulary = { tokens, blankId: 0, wordDelimiter: '|' };
const weights = { perChar: 1, completion: 2 };

/** Frames of probabilities (each row: token -> p, rest spread evenly), as log-probabilities. */
const frames = (rows: Array<Record<string, number>>): CtcScores => ctcFrames(tokens, rows);

// ሰላም against ሰላሞ: the last letter is a near tie (0.46 / 0.44).
const nearTie = frames([{ ሰ: 0.9 }, { '<blank>': 0.9 }, { ላ: 0.9 }, { '<blank>': 0.9 }, { ም: 0.46, ሞ: 0.44 }, { '<blank>': 0.95 }]);

describe('CtcBeamDecoder with keyterms', () => {
  it('a keyterm flips a near tie towards itself', () => {
    expect(new CtcBeamDecoder(vocabulary, { beamWidth: 8 }).decode(nearTie).text).toBe('ሰላም');
    const keyterms = new KeytermBias(['ሰላሞ'], vocabulary, weights);
    expect(new CtcBeamDecoder(vocabulary, { beamWidth: 8, keyterms }).decode(nearTie).text).toBe('ሰላሞ');
  });

  it('also against the LM, and keyterms of other words change nothing', () => {
    const lm = CharNgramLm.fromBytes(buildCharNgramLm(['ሰላም', 'ሰላም ነው', 'ሰላም ሰላም', 'ነው ሰላም'], { order: 3, minCharCount: 1 }).bytes);
    const fused = { model: lm, alpha: 0.3, beta: 1 };
    expect(new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: fused }).decode(nearTie).text).toBe('ሰላም');
    const flipped = new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: fused, keyterms: new KeytermBias(['ሰላሞ'], vocabulary, weights) });
    expect(flipped.decode(nearTie).text).toBe('ሰላሞ');
    const other = new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: fused, keyterms: new KeytermBias(['ነው'], vocabulary, weights) });
    expect(other.decode(nearTie).text).toBe('ሰላም');
  });

  it('does not write a term the audio clearly does not hold, and takes back an unfinished one', () => {
    // ሞ at p = 0.004 where ም is 0.97: writing ሰላሞ costs about 5.5 nats of acoustics; the term
    // earns completion + 3 x perChar. Below that it stays out; a bonus above it writes it (the
    // trade-off the weights are tuned for: bench/keyterms.ts).
    const clear = frames([{ ሰ: 0.9 }, { '<blank>': 0.9 }, { ላ: 0.9 }, { '<blank>': 0.9 }, { ም: 0.97 }, { '<blank>': 0.97 }]);
    const decode = (w: { perChar: number; completion: number }) =>
      new CtcBeamDecoder(vocabulary, { beamWidth: 8, keyterms: new KeytermBias(['ሰላሞ'], vocabulary, w) }).decode(clear).text;
    expect(decode({ perChar: 0.5, completion: 2 })).toBe('ሰላም');
    expect(decode({ perChar: 1, completion: 4 })).not.toBe('ሰላም');
    // A term whose start the audio holds but not its end: the beam's text is the audio's.
    const longer = new CtcBeamDecoder(vocabulary, { beamWidth: 8, keyterms: new KeytermBias(['ሰላምነው'], vocabulary, weights) });
    expect(longer.decode(clear).text).toBe('ሰላም');
  });

  it('keeps word times and confidences for the boosted text', () => {
    const keyterms = new KeytermBias(['ሰላሞ'], vocabulary, weights);
    const hyp = new CtcBeamDecoder(vocabulary, { beamWidth: 8, keyterms }).decode(nearTie);
    expect(hyp.words).toEqual([{ text: 'ሰላሞ', startFrame: 0, endFrame: 5, confidence: expect.any(Number) }]);
    expect(hyp.tokens.at(-1)!.probability).toBeCloseTo(0.44, 2);
  });
});

describe('createDecoder with keyterms', () => {
  it('gives a greedy plan a beam of KEYTERM_BEAM_WIDTH for them, and a beam plan its own beam and LM', () => {
    expect(createDecoder(vocabulary, GREEDY, null)).toBeInstanceOf(CtcGreedyDecoder);
    const fromGreedy = createDecoder(vocabulary, GREEDY, null, ['ሰላሞ']);
    expect(fromGreedy).toBeInstanceOf(CtcBeamDecoder);
    expect((fromGreedy as CtcBeamDecoder).options).toMatchObject({ beamWidth: KEYTERM_BEAM_WIDTH, lm: null });
    expect((fromGreedy as CtcBeamDecoder).options.keyterms!.weights).toEqual(KEYTERM_WEIGHTS);
    expect(fromGreedy.decode(nearTie).text).toBe('ሰላሞ');
    const lm = CharNgramLm.fromBytes(buildCharNgramLm(['ሰላም ነው'], { order: 3, minCharCount: 1 }).bytes);
    const beam = createDecoder(vocabulary, { kind: 'beam', beamWidth: 4, lm: { path: '/lm', alpha: 0.5, beta: 1 } }, lm, ['ሰላሞ']) as CtcBeamDecoder;
    expect(beam.options).toMatchObject({ beamWidth: 4, lm: { model: lm, alpha: 0.5, beta: 1 } });
  });

  it('decodes as without keyterms when none can be written with the vocabulary', () => {
    expect(createDecoder(vocabulary, GREEDY, null, ['Addis', '!!'])).toBeInstanceOf(CtcGreedyDecoder);
    expect(createDecoder(vocabulary, GREEDY, null, [])).toBeInstanceOf(CtcGreedyDecoder);
  });
});
