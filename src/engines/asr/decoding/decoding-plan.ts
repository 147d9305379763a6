/**
 * How a CTC model's output is decoded, as plain data: it travels to the inference workers
 * (structured clone), which build the decoder from it and decode every row next to the model run,
 * so that no decoding runs on the event loop.
 */
import type { CharNgramLm } from './lm/char-ngram-lm.js';
import { CtcBeamDecoder } from './ctc-beam-decoder.js';
import { CtcGreedyDecoder } from './ctc-greedy-decoder.js';
import type { CtcDecoder, CtcVocabulary } from './ctc-types.js';
import { KeytermBias, type KeytermWeights } from './keyterm-bias.js';

export type DecodingPlan =
  | { readonly kind: 'greedy' }
  | {
      readonly kind: 'beam';
      readonly beamWidth: number;
      /** Character LM for shallow fusion: an absolute path to an HNLM file; null for none. */
      readonly lm: { readonly path: string; readonly alpha: number; readonly beta: number } | null;
    };

export const GREEDY: DecodingPlan = { kind: 'greedy' };

/** What an inference worker needs to decode one model's rows. */
export interface RowDecoding {
  readonly vocabulary: CtcVocabulary;
  readonly plan: DecodingPlan;
  /** PCM samples per output frame: valid frames of a row = ceil(valid samples / this) when the model reports no output lengths. */
  readonly frameStrideSamples: number;
}

/**
 * Keyterm bonuses (keyterm-bias.ts), in nats beside the plan's LM weights: tuned on small-am-v2's
 * held-out validation speakers with its beam 16 + LM (bench/keyterms.ts, bench/results/keyterms.json;
 * docs/decoding.md), the same for every model.
 */
export const KEYTERM_WEIGHTS: KeytermWeights = { perChar: 2.5, completion: 2 };
/** The beam a request with keyterms gets when its model would decode greedily (no LM). */
export const KEYTERM_BEAM_WIDTH = 8;

/**
 * The decoder a plan describes. `lm` is the loaded file of `plan.lm.path`; a beam plan whose LM
 * is missing (null) decodes greedily, as a model whose LM fails to load does at startup.
 * With `keyterms` (a request's, already checked: checkKeyterms) the decoder is a beam search
 * that boosts them: the plan's beam and LM, or a beam of KEYTERM_BEAM_WIDTH without LM where the
 * plan is greedy (or its LM is missing); keyterms the vocabulary cannot write are ignored.
 */
export function createDecoder(
  vocabulary: CtcVocabulary,
  plan: DecodingPlan,
  lm: CharNgramLm | null,
  keyterms: readonly string[] | null = null,
  weights: KeytermWeights = KEYTERM_WEIGHTS,
): CtcDecoder {
  const bias = keyterms !== null && keyterms.length > 0 ? new KeytermBias(keyterms, vocabulary, weights) : null;
  const boosted = bias !== null && bias.terms.length > 0 ? bias : null;
  if (plan.kind === 'greedy' || (plan.lm !== null && lm === null)) {
    if (boosted === null) return new CtcGreedyDecoder(vocabulary);
    return new CtcBeamDecoder(vocabulary, { beamWidth: plan.kind === 'beam' ? plan.beamWidth : KEYTERM_BEAM_WIDTH, keyterms: boosted });
  }
  return new CtcBeamDecoder(vocabulary, {
    beamWidth: plan.beamWidth,
    lm: plan.lm && lm ? { model: lm, alpha: plan.lm.alpha, beta: plan.lm.beta } : null,
    keyterms: boosted,
  });
}

/** Whether two registrations of one model (same ONNX file, so same vocabulary and stride) decode alike. */
export function samePlan(a: RowDecoding | null, b: RowDecoding | null): boolean {
  if (a === null || b === null) return a === b;
  return JSON.stringify(a.plan) === JSON.stringify(b.plan);
}
