/**
 * Ge'ez (Ethiopic) numerals: ፩..፱ (1-9, U+1369..U+1371), ፲..፺ (10-90, U+1372..U+137A),
 * ፻ (100, U+137B), ፼ (10 000, U+137C). A run of numeral characters is one number: ፻ multiplies
 * the 1-99 group before it (or 1), ፼ multiplies everything before it in the run (or 1).
 * Example: ፳፻፲፭ = 2015, ፲፼፳፻ = 102000, ፻፼ = 1000000.
 */

const ONE = 0x1369;
const NINE = 0x1371;
const TEN = 0x1372;
const NINETY = 0x137a;
const HUNDRED = 0x137b;
const MYRIAD = 0x137c;

export const GEEZ_NUMERAL_RUN = /[\u1369-\u137c]+/gu;

export function isGeezNumeral(codePoint: number): boolean {
  return codePoint >= ONE && codePoint <= MYRIAD;
}

/** Value of one run of Ge'ez numerals (no other characters); BigInt keeps large runs exact. */
export function geezToNumber(run: string): bigint {
  let total = 0n;
  let hundreds = 0n;
  let group = 0n;
  for (const ch of run) {
    const cp = ch.codePointAt(0)!;
    if (cp >= ONE && cp <= NINE) group += BigInt(cp - ONE + 1);
    else if (cp >= TEN && cp <= NINETY) group += BigInt((cp - TEN + 1) * 10);
    else if (cp === HUNDRED) {
      hundreds += (group === 0n ? 1n : group) * 100n;
      group = 0n;
    } else if (cp === MYRIAD) {
      const before = total + hundreds + group;
      total = (before === 0n ? 1n : before) * 10000n;
      hundreds = 0n;
      group = 0n;
    } else throw new RangeError(`not a Ge'ez numeral: ${JSON.stringify(ch)}`);
  }
  return total + hundreds + group;
}

/** Replaces every run of Ge'ez numerals with ASCII digits. */
export function geezNumeralsToAscii(text: string): string {
  return text.replace(GEEZ_NUMERAL_RUN, (run) => geezToNumber(run).toString());
}
