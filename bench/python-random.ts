/**
 * Python's `random.Random` (CPython 3.2 and later) as far as the translation data split uses it:
 * the Mersenne Twister MT19937 seeded from an integer (`init_by_array` over the integer's 32-bit
 * words, least significant first), `getrandbits(k)` for k <= 32, `_randbelow` (rejection sampling
 * on `n.bit_length()` bits) and `shuffle` (Fisher-Yates from the end). With it a benchmark rebuilds
 * the held-out split of training/translation/prepare_mt.py without Python. Pure.
 */

const N = 624;
const M = 397;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new Error(`seed ${seed}: a safe integer`);
    let rest = BigInt(Math.abs(seed));
    const key: number[] = [];
    do {
      key.push(Number(rest & 0xffffffffn));
      rest >>= 32n;
    } while (rest > 0n);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) mt[i] = (Math.imul(1_812_433_253, mt[i - 1]! ^ (mt[i - 1]! >>> 30)) + i) >>> 0;
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19_650_218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      mt[i] = ((mt[i]! ^ Math.imul(mt[i - 1]! ^ (mt[i - 1]! >>> 30), 1_664_525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      mt[i] = ((mt[i]! ^ Math.imul(mt[i - 1]! ^ (mt[i - 1]! >>> 30), 1_566_083_941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit output of MT19937. */
  uint32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k]! & 0x80000000) | (mt[(k + 1) % N]! & 0x7fffffff);
        mt[k] = mt[(k + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random.getrandbits(k)` for 0 <= k <= 32. */
  getrandbits(k: number): number {
    if (k < 0 || k > 32) throw new Error(`getrandbits(${k}): 0..32 bits only`);
    return k === 0 ? 0 : this.uint32() >>> (32 - k);
  }

  /** `random._randbelow(n)`: uniform in [0, n), n >= 1. */
  randbelow(n: number): number {
    const k = Math.floor(Math.log2(n)) + 1;
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `random.shuffle(items)`, in place. */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
  }
}
