/**
 * Character error rate, in two forms:
 * - raw: Levenshtein distance (substitutions, insertions, deletions, each 1) over Unicode code
 *   points, divided by the reference length (`characterErrorRate`, `CerAccumulator`);
 * - scored, as the model cards report it (training/common/common.py `cer` is the same rule):
 *   spaces, the word delimiter, apostrophes and sentence punctuation (. , ? ! ። ፣ ፤ ፥ ፧) are
 *   removed before comparing, and for Amharic ALFFA's homophone letters are merged (ሐ/ኀ→ሀ, ሠ→ሰ,
 *   ዐ→አ, ፀ→ጸ, same vowel order) on both sides (`scoringForm`, `scoredCharacterErrorRate`).
 * Corpus CER sums edits and reference lengths over utterances (not a mean of per-utterance rates).
 */

import { mergeAmharicHomophones } from '../asr/text/alffa-scoring.js';

/** A text, its code points, or its characters (one code point each, as `[...text]` gives). */
export type CharSequence = string | readonly number[] | readonly string[];

function toCodePoints(sequence: CharSequence): readonly number[] {
  if (typeof sequence === 'string') return codePoints(sequence);
  if (sequence.length === 0 || typeof sequence[0] === 'number') return sequence as readonly number[];
  return (sequence as readonly string[]).map((ch) => ch.codePointAt(0)!);
}

/** Edit distance between two code point sequences; O(len(a) * len(b)) time, O(len(b)) memory. */
export function editDistance(a: CharSequence, b: CharSequence): number {
  const x = toCodePoints(a);
  const y = toCodePoints(b);
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = new Uint32Array(y.length + 1);
  let cur = new Uint32Array(y.length + 1);
  for (let j = 0; j <= y.length; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j++) {
      const sub = prev[j - 1]! + (xi === y[j - 1] ? 0 : 1);
      const del = prev[j]! + 1;
      const ins = cur[j - 1]! + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length]!;
}

export function codePoints(text: string): number[] {
  return Array.from(text, (ch) => ch.codePointAt(0)!);
}

/** Raw CER of one hypothesis against one reference; an empty reference gives 0 (empty hyp) or 1. */
export function characterErrorRate(reference: string, hypothesis: string): number {
  const ref = codePoints(reference);
  const edits = editDistance(ref, codePoints(hypothesis));
  if (ref.length === 0) return edits === 0 ? 0 : 1;
  return edits / ref.length;
}

/** Accumulates raw edits and reference characters over a corpus. */
export class CerAccumulator {
  edits = 0;
  referenceChars = 0;
  utterances = 0;

  add(reference: string, hypothesis: string): number {
    const ref = codePoints(reference);
    const edits = editDistance(ref, codePoints(hypothesis));
    this.edits += edits;
    this.referenceChars += ref.length;
    this.utterances++;
    return edits;
  }

  get cer(): number {
    return this.referenceChars === 0 ? 0 : this.edits / this.referenceChars;
  }
}

const IGNORED = /[\s።፣፤፥፧,.?!'|]/gu;

/** ALFFA's letter merge, vowel order kept (src/engines/asr/text/alffa-scoring.ts). */
export const mergeHomophones = mergeAmharicHomophones;

/** The characters scored CER compares, one code point each. */
export function scoringForm(text: string, language: string): string[] {
  let t = text.normalize('NFC').replace(IGNORED, '');
  if (language === 'am') t = mergeHomophones(t);
  return [...t];
}

export interface CerTotals {
  readonly errors: number;
  readonly referenceChars: number;
  readonly cer: number;
}

/** Corpus-level scored CER (the model cards' rule): total edits over total reference characters. */
export function scoredCharacterErrorRate(references: readonly string[], hypotheses: readonly string[], language: string): CerTotals {
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
