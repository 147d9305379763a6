/**
 * How many tokens one model row may generate, so that an output stays bounded by its input
 * whatever the model does (a looping model stops at the cap): `ceil(max_output_ratio x pieces) +
 * max_output_extra`, at most `max_output_tokens`, where `pieces` are the row's source pieces
 * (language tokens and end-of-sentence not counted) and the end-of-sentence is not generated
 * output. Greedy and beam search both stop a row there. Pure.
 */
import type { TranslationDecoding } from './translation-manifest.js';

export function outputCap(pieces: number, decoding: Pick<TranslationDecoding, 'maxOutputTokens' | 'maxOutputRatio' | 'maxOutputExtra'>): number {
  return Math.max(1, Math.min(decoding.maxOutputTokens, Math.ceil(decoding.maxOutputRatio * pieces) + decoding.maxOutputExtra));
}
