/**
 * Character error rate as the model cards report it (models/training/common.py `cer` is the
 * same rule): spaces, the word delimiter, apostrophes and sentence punctuation (. , ? ! ። ፣ ፤ ፥ ፧)
 * are removed before comparing, and for Amharic ALFFA's homophone letters are merged
 * (ሐ/ኀ→ሀ, ሠ→ሰ, ዐ→አ, ፀ→ጸ, same vowel order) on both sides.
 */

import { mergeAmharicHomophones } from './alffa-scoring.js';
import { editDistance as codePointEditDistance } from './character-error-rate.js';

const IGNORED = /[\s።፣፤፥፧,.?!'|]/gu;

/** ALFFA's letter merge, vowel order kept (src/speech/text/alffa-scoring.ts). */
export const mergeHomophones = mergeAmharicHomophones;

/** The characters CER compares, as code points. */
export function scoringForm(text: string, language: string): string[] {
  let t = text.normalize('NFC').replace(IGNORED, '');
  if (language === 'am') t = mergeHomophones(t);
  return [...t];
}

export function editDistance(a: readonly string[], b: readonly string[]): number {
  return codePointEditDistance(a.map((ch) => ch.codePointAt(0)!), b.map((ch) => ch.codePointAt(0)!));
}

export interface CerTotals {
  readonly errors: number;
  readonly referenceChars: number;
  readonly cer: number;
}

/** Corpus-level CER: total edits over total reference characters. */
export function characterErrorRate(references: readonly string[], hypotheses: readonly string[], language: string): CerTotals {
  if (references.length !== hypotheses.length) throw new Error('references and hypotheses differ in count');
  let errors = 0;
  let referenceChars = 0;
  for (let i = 0; i < references.length; i++) {
    const ref = scoringForm(references[i]!, language);
    errors += editDistance(ref, scoringForm(hypotheses[i]!, language));
    referenceChars += ref.length;
  }
  return { errors, referenceChars, cer: errors / Math.max(1, referenceChars) };
}
