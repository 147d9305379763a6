/**
 * The ALFFA Amharic transcripts merge homophone letters (ሐ/ኀ→ሀ, ሠ→ሰ, ዐ→አ, ፀ→ጸ, each with its
 * vowel orders) and split words into morphemes with spaces. To compare model output with them,
 * apply the same letter map to both sides and remove spaces: `alffaScoringForm`.
 *
 * Letter map (by Unicode row, order kept): ሐ..ሖ (U+1210..1216) → ሀ..ሆ, ሗ → ኋ;
 * ኀ..ኆ (U+1280..1286) → ሀ..ሆ (labialised ኈ ኊ ኋ ኌ ኍ are kept); ሠ..ሧ (U+1220..1227) → ሰ..ሷ;
 * ዐ..ዖ (U+12D0..12D6) → አ..ኦ; ፀ..ፇ (U+1340..1347) → ጸ..ጿ.
 */
import { forScoring } from './text-normalizer.js';

const HOMOPHONES = new Map<number, number>();
const mapRow = (from: number, to: number, count: number): void => {
  for (let k = 0; k < count; k++) HOMOPHONES.set(from + k, to + k);
};
mapRow(0x1210, 0x1200, 7); // ሐ row → ሀ row
HOMOPHONES.set(0x1217, 0x128b); // ሗ → ኋ
mapRow(0x1280, 0x1200, 7); // ኀ row → ሀ row
mapRow(0x1220, 0x1230, 8); // ሠ row (with ሧ) → ሰ row (with ሷ)
mapRow(0x12d0, 0x12a0, 7); // ዐ row → አ row
mapRow(0x1340, 0x1338, 8); // ፀ row (with ፇ) → ጸ row (with ጿ)

/** Applies the ALFFA homophone merge letter by letter; other characters are unchanged. */
export function mergeAmharicHomophones(text: string): string {
  let out = '';
  for (const ch of text) {
    const mapped = HOMOPHONES.get(ch.codePointAt(0)!);
    out += mapped === undefined ? ch : String.fromCodePoint(mapped);
  }
  return out;
}

/** Scoring form for ALFFA references and model output: scoring normalisation, merged letters, no spaces. */
export function alffaScoringForm(text: string): string {
  return mergeAmharicHomophones(forScoring(text, 'am')).replace(/\s+/gu, '');
}
