/**
 * Power spectrum of real frames of a fixed length n, allocation-free per call after construction
 * and not re-entrant (one instance per thread).
 *
 * Method, chosen at construction:
 *  - `mixed-radix` (n whose prime factors are all at most 13, e.g. 400 = 2^4 * 5^2, 512): an even
 *    n is packed into a complex FFT of n/2 points (even samples real, odd samples imaginary) and
 *    split afterwards; an odd n runs as a complex FFT of n points. The complex FFT is a
 *    decimation-in-time mixed-radix transform (radix 4, 2, 5 and 3 butterflies, a generic one
 *    for 7, 11, 13) with the digit-reversal permutation and twiddles precomputed.
 *  - `bluestein` (any other n): the chirp-z transform through a power-of-two FFT of at least
 *    2n - 1 points, about three times the work of a power-of-two FFT of that size.
 *
 * Over 400 lines because it is one numeric kernel: the real-frame transform and the
 * `ComplexFft` it runs on (plan, digit-reversal permutation, hand-written radix 2, 3, 4 and 5
 * butterflies and a generic one, all over the plan's twiddle tables). Nothing else uses `ComplexFft`.
 */
export type FftMethod = 'mixed-radix' | 'bluestein';

/** Largest prime factor the mixed-radix plan takes; beyond it the generic butterfly costs O(n * p). */
const MAX_MIXED_RADIX_PRIME = 13;

export class RealFft {
  readonly size: number;
  readonly bins: number;
  readonly method: FftMethod;
  /** Complex transform the frame goes through: n/2 points (even n), n points (odd n), or the Bluestein length. */
  private readonly inner: ComplexFft;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  /** Even n, mixed radix: exp(-2*pi*i*k/n) for k = 0..n/2, to split the packed transform. */
  private readonly splitRe: Float64Array | null = null;
  private readonly splitIm: Float64Array | null = null;
  // Bluestein state (null otherwise)
  private readonly chirpRe: Float64Array | null = null;
  private readonly chirpIm: Float64Array | null = null;
  private readonly kernelRe: Float64Array | null = null;
  private readonly kernelIm: Float64Array | null = null;

  /** `method` forces a method (benchmarks compare them); by default the faster one for n. */
  constructor(n: number, method?: FftMethod) {
    if (!Number.isInteger(n) || n < 2) throw new RangeError(`FFT size must be an integer >= 2, got ${n}`);
    this.size = n;
    this.bins = (n >> 1) + 1;
    this.method = method ?? (largestPrimeFactor(n) <= MAX_MIXED_RADIX_PRIME ? 'mixed-radix' : 'bluestein');
    if (this.method === 'mixed-radix') {
      const even = n % 2 === 0;
      const points = even ? n >> 1 : n;
      this.inner = new ComplexFft(points);
      this.re = new Float64Array(points);
      this.im = new Float64Array(points);
      if (even) {
        this.splitRe = new Float64Array(points + 1);
        this.splitIm = new Float64Array(points + 1);
        for (let k = 0; k <= points; k++) {
          this.splitRe[k] = Math.cos((2 * Math.PI * k) / n);
          this.splitIm[k] = -Math.sin((2 * Math.PI * k) / n);
        }
      }
      return;
    }
    const m = nextPow2(2 * n - 1);
    this.inner = new ComplexFft(m);
    this.re = new Float64Array(m);
    this.im = new Float64Array(m);
    this.chirpRe = new Float64Array(n);
    this.chirpIm = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      // exp(-i*pi*k^2/n), with k^2 reduced mod 2n to keep the angle exact
      const angle = (Math.PI * ((k * k) % (2 * n))) / n;
      this.chirpRe[k] = Math.cos(angle);
      this.chirpIm[k] = -Math.sin(angle);
    }
    this.kernelRe = new Float64Array(m);
    this.kernelIm = new Float64Array(m);
    for (let k = 0; k < n; k++) {
      this.kernelRe[k] = this.chirpRe[k]!;
      this.kernelIm[k] = -this.chirpIm[k]!;
      if (k > 0) {
        this.kernelRe[m - k] = this.chirpRe[k]!;
        this.kernelIm[m - k] = -this.chirpIm[k]!;
      }
    }
    this.inner.transform(this.kernelRe, this.kernelIm);
  }

  /** Writes |X_k|^2 for k = 0..n/2 of the real frame `frame` (length n) into `out`. */
  powerSpectrum(frame: Float64Array, out: Float64Array): void {
    if (this.method === 'bluestein') return this.bluestein(frame, out);
    const re = this.re;
    const im = this.im;
    if (this.splitRe === null) {
      re.set(frame);
      im.fill(0);
      this.inner.transform(re, im);
      for (let k = 0; k < this.bins; k++) out[k] = re[k]! * re[k]! + im[k]! * im[k]!;
      return;
    }
    const half = re.length;
    for (let t = 0; t < half; t++) {
      re[t] = frame[2 * t]!;
      im[t] = frame[2 * t + 1]!;
    }
    this.inner.transform(re, im);
    // Z = FFT(even + i*odd): E_k = (Z_k + conj Z_{h-k}) / 2, O_k = (Z_k - conj Z_{h-k}) / 2i,
    // X_k = E_k + exp(-2*pi*i*k/n) * O_k, for k = 0..h (indices mod h).
    const wr = this.splitRe;
    const wi = this.splitIm!;
    for (let k = 0; k <= half; k++) {
      const a = k === half ? 0 : k;
      const b = k === 0 ? 0 : half - k;
      const zr = re[a]!;
      const zi = im[a]!;
      const cr = re[b]!;
      const ci = -im[b]!;
      const er = 0.5 * (zr + cr);
      const ei = 0.5 * (zi + ci);
      // (Z - conj) / 2i = (d_i - i d_r) / 2 for d = Z - conj
      const or = 0.5 * (zi - ci);
      const oi = -0.5 * (zr - cr);
      const xr = er + wr[k]! * or - wi[k]! * oi;
      const xi = ei + wr[k]! * oi + wi[k]! * or;
      out[k] = xr * xr + xi * xi;
    }
  }

  private bluestein(frame: Float64Array, out: Float64Array): void {
    const n = this.size;
    const re = this.re;
    const im = this.im;
    const cr = this.chirpRe!;
    const ci = this.chirpIm!;
    re.fill(0);
    im.fill(0);
    for (let k = 0; k < n; k++) {
      re[k] = frame[k]! * cr[k]!;
      im[k] = frame[k]! * ci[k]!;
    }
    this.inner.transform(re, im);
    const kr = this.kernelRe!;
    const ki = this.kernelIm!;
    const m = re.length;
    for (let k = 0; k < m; k++) {
      const a = re[k]!;
      const b = im[k]!;
      // conj(A*B) so the forward transform below acts as the inverse
      re[k] = a * kr[k]! - b * ki[k]!;
      im[k] = -(a * ki[k]! + b * kr[k]!);
    }
    this.inner.transform(re, im);
    for (let k = 0; k < this.bins; k++) {
      const cRe = re[k]! / m;
      const cIm = -im[k]! / m;
      const xr = cRe * cr[k]! - cIm * ci[k]!;
      const xi = cRe * ci[k]! + cIm * cr[k]!;
      out[k] = xr * xr + xi * xi;
    }
  }
}

function nextPow2(v: number): number {
  let p = 1;
  while (p < v) p <<= 1;
  return p;
}

function largestPrimeFactor(n: number): number {
  let largest = 1;
  let rest = n;
  for (let p = 2; p * p <= rest; p++) {
    while (rest % p === 0) {
      largest = p;
      rest /= p;
    }
  }
  return Math.max(largest, rest);
}

/** Radices in the order the transform splits by: 4s first, then 2, 3, 5 and larger primes. */
function radices(n: number): number[] {
  const out: number[] = [];
  let rest = n;
  while (rest % 4 === 0) {
    out.push(4);
    rest /= 4;
  }
  for (let p = 2; rest > 1; p++) {
    while (rest % p === 0) {
      out.push(p);
      rest /= p;
    }
  }
  return out.length > 0 ? out : [1];
}

/** One butterfly pass: `blocks` blocks of `radix * span` outputs, twiddle stride `stride`. */
interface Stage {
  readonly radix: number;
  readonly span: number;
  readonly stride: number;
  readonly blocks: number;
}

/**
 * In-place complex FFT (forward, exp(-2*pi*i*k*t/n)) of any size, mixed radix, decimation in
 * time: the input is first put in digit-reversed order, then each stage combines `radix`
 * sub-transforms of `span` points into one of `radix * span`. Cost O(n * sum of radices).
 */
export class ComplexFft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  /** Output position i takes input perm[i] before the first stage. */
  private readonly perm: Uint32Array;
  private readonly stages: readonly Stage[];
  private readonly copyRe: Float64Array;
  private readonly copyIm: Float64Array;
  /** Scratch of the generic butterfly (radix 7 and up). */
  private readonly scratchRe: Float64Array;
  private readonly scratchIm: Float64Array;

  constructor(readonly n: number) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`FFT size must be a positive integer, got ${n}`);
    this.cos = new Float64Array(n);
    this.sin = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      this.cos[k] = Math.cos((2 * Math.PI * k) / n);
      this.sin[k] = -Math.sin((2 * Math.PI * k) / n);
    }
    const factors = radices(n);
    // Stage d splits a block of (product of factors[d..]) points into factors[d] sub-blocks;
    // sub-block j takes every factors[d]-th input starting at j (times the stride above).
    this.perm = new Uint32Array(n);
    const place = (out: number, first: number, stride: number, depth: number): void => {
      const radix = factors[depth]!;
      const span = n / stride / radix;
      if (depth === factors.length - 1) {
        for (let j = 0; j < radix; j++) this.perm[out + j] = first + j * stride;
        return;
      }
      for (let j = 0; j < radix; j++) place(out + j * span, first + j * stride, stride * radix, depth + 1);
    };
    if (factors[0] === 1) this.perm[0] = 0;
    else place(0, 0, 1, 0);
    const stages: Stage[] = [];
    let stride = 1;
    const strides = factors.map((radix) => {
      const s = stride;
      stride *= radix;
      return s;
    });
    for (let d = factors.length - 1; d >= 0; d--) {
      const radix = factors[d]!;
      if (radix === 1) continue;
      const span = n / strides[d]! / radix;
      stages.push({ radix, span, stride: strides[d]!, blocks: strides[d]! });
    }
    this.stages = stages;
    this.copyRe = new Float64Array(n);
    this.copyIm = new Float64Array(n);
    const widest = Math.max(1, ...factors);
    this.scratchRe = new Float64Array(widest);
    this.scratchIm = new Float64Array(widest);
  }

  transform(re: Float64Array, im: Float64Array): void {
    const n = this.n;
    const perm = this.perm;
    const cr = this.copyRe;
    const ci = this.copyIm;
    cr.set(re.subarray(0, n));
    ci.set(im.subarray(0, n));
    for (let i = 0; i < n; i++) {
      const j = perm[i]!;
      re[i] = cr[j]!;
      im[i] = ci[j]!;
    }
    for (const stage of this.stages) {
      const size = stage.radix * stage.span;
      for (let b = 0; b < stage.blocks; b++) {
        const at = b * size;
        switch (stage.radix) {
          case 2:
            this.radix2(re, im, at, stage.span, stage.stride);
            break;
          case 3:
            this.radix3(re, im, at, stage.span, stage.stride);
            break;
          case 4:
            this.radix4(re, im, at, stage.span, stage.stride);
            break;
          case 5:
            this.radix5(re, im, at, stage.span, stage.stride);
            break;
          default:
            this.generic(re, im, at, stage.span, stage.stride, stage.radix);
        }
      }
    }
  }

  private radix2(re: Float64Array, im: Float64Array, at: number, m: number, stride: number): void {
    const { cos, sin } = this;
    for (let k = 0; k < m; k++) {
      const p = at + k;
      const q = p + m;
      const wr = cos[k * stride]!;
      const wi = sin[k * stride]!;
      const tr = re[q]! * wr - im[q]! * wi;
      const ti = re[q]! * wi + im[q]! * wr;
      re[q] = re[p]! - tr;
      im[q] = im[p]! - ti;
      re[p] = re[p]! + tr;
      im[p] = im[p]! + ti;
    }
  }

  private radix3(re: Float64Array, im: Float64Array, at: number, m: number, stride: number): void {
    const { cos, sin } = this;
    const n = this.n;
    // exp(-2*pi*i/3) = -1/2 - i*sqrt(3)/2
    const s3 = sin[n / 3]!;
    for (let k = 0; k < m; k++) {
      const i0 = at + k;
      const i1 = i0 + m;
      const i2 = i1 + m;
      const w1 = k * stride;
      const w2 = 2 * w1;
      const ar = re[i1]! * cos[w1]! - im[i1]! * sin[w1]!;
      const ai = re[i1]! * sin[w1]! + im[i1]! * cos[w1]!;
      const br = re[i2]! * cos[w2]! - im[i2]! * sin[w2]!;
      const bi = re[i2]! * sin[w2]! + im[i2]! * cos[w2]!;
      const sr = ar + br;
      const si = ai + bi;
      const dr = (ar - br) * s3;
      const di = (ai - bi) * s3;
      const x0r = re[i0]!;
      const x0i = im[i0]!;
      const mr = x0r - 0.5 * sr;
      const mi = x0i - 0.5 * si;
      re[i0] = x0r + sr;
      im[i0] = x0i + si;
      // X1 = m + i*d*s3 (s3 negative), X2 = m - i*d*s3
      re[i1] = mr - di;
      im[i1] = mi + dr;
      re[i2] = mr + di;
      im[i2] = mi - dr;
    }
  }

  private radix4(re: Float64Array, im: Float64Array, at: number, m: number, stride: number): void {
    const { cos, sin } = this;
    for (let k = 0; k < m; k++) {
      const i0 = at + k;
      const i1 = i0 + m;
      const i2 = i1 + m;
      const i3 = i2 + m;
      const w1 = k * stride;
      const w2 = 2 * w1;
      const w3 = 3 * w1;
      const ar = re[i1]! * cos[w1]! - im[i1]! * sin[w1]!;
      const ai = re[i1]! * sin[w1]! + im[i1]! * cos[w1]!;
      const br = re[i2]! * cos[w2]! - im[i2]! * sin[w2]!;
      const bi = re[i2]! * sin[w2]! + im[i2]! * cos[w2]!;
      const cr = re[i3]! * cos[w3]! - im[i3]! * sin[w3]!;
      const ci = re[i3]! * sin[w3]! + im[i3]! * cos[w3]!;
      const x0r = re[i0]!;
      const x0i = im[i0]!;
      const pr = x0r + br;
      const pi = x0i + bi;
      const qr = x0r - br;
      const qi = x0i - bi;
      const sr = ar + cr;
      const si = ai + ci;
      const dr = ar - cr;
      const di = ai - ci;
      re[i0] = pr + sr;
      im[i0] = pi + si;
      re[i2] = pr - sr;
      im[i2] = pi - si;
      // forward: X1 = q - i*d, X3 = q + i*d
      re[i1] = qr + di;
      im[i1] = qi - dr;
      re[i3] = qr - di;
      im[i3] = qi + dr;
    }
  }

  private radix5(re: Float64Array, im: Float64Array, at: number, m: number, stride: number): void {
    const { cos, sin } = this;
    const n = this.n;
    const yaR = cos[n / 5]!;
    const yaI = sin[n / 5]!;
    const ybR = cos[(2 * n) / 5]!;
    const ybI = sin[(2 * n) / 5]!;
    for (let k = 0; k < m; k++) {
      const i0 = at + k;
      const i1 = i0 + m;
      const i2 = i1 + m;
      const i3 = i2 + m;
      const i4 = i3 + m;
      const w1 = k * stride;
      const w2 = 2 * w1;
      const w3 = 3 * w1;
      const w4 = 4 * w1;
      const s1r = re[i1]! * cos[w1]! - im[i1]! * sin[w1]!;
      const s1i = re[i1]! * sin[w1]! + im[i1]! * cos[w1]!;
      const s2r = re[i2]! * cos[w2]! - im[i2]! * sin[w2]!;
      const s2i = re[i2]! * sin[w2]! + im[i2]! * cos[w2]!;
      const s3r = re[i3]! * cos[w3]! - im[i3]! * sin[w3]!;
      const s3i = re[i3]! * sin[w3]! + im[i3]! * cos[w3]!;
      const s4r = re[i4]! * cos[w4]! - im[i4]! * sin[w4]!;
      const s4i = re[i4]! * sin[w4]! + im[i4]! * cos[w4]!;
      const s0r = re[i0]!;
      const s0i = im[i0]!;
      const s7r = s1r + s4r;
      const s7i = s1i + s4i;
      const s10r = s1r - s4r;
      const s10i = s1i - s4i;
      const s8r = s2r + s3r;
      const s8i = s2i + s3i;
      const s9r = s2r - s3r;
      const s9i = s2i - s3i;
      re[i0] = s0r + s7r + s8r;
      im[i0] = s0i + s7i + s8i;
      const s5r = s0r + s7r * yaR + s8r * ybR;
      const s5i = s0i + s7i * yaR + s8i * ybR;
      const s6r = s10i * yaI + s9i * ybI;
      const s6i = -(s10r * yaI) - s9r * ybI;
      re[i1] = s5r - s6r;
      im[i1] = s5i - s6i;
      re[i4] = s5r + s6r;
      im[i4] = s5i + s6i;
      const s11r = s0r + s7r * ybR + s8r * yaR;
      const s11i = s0i + s7i * ybR + s8i * yaR;
      const s12r = -(s10i * ybI) + s9i * yaI;
      const s12i = s10r * ybI - s9r * yaI;
      re[i2] = s11r + s12r;
      im[i2] = s11i + s12i;
      re[i3] = s11r - s12r;
      im[i3] = s11i - s12i;
    }
  }

  /** Any radix p: a direct p-point DFT of the twiddled inputs, O(p^2) per butterfly. */
  private generic(re: Float64Array, im: Float64Array, at: number, m: number, stride: number, p: number): void {
    const { cos, sin, scratchRe, scratchIm } = this;
    const n = this.n;
    for (let k = 0; k < m; k++) {
      for (let j = 0; j < p; j++) {
        const i = at + k + j * m;
        const w = (j * k * stride) % n;
        scratchRe[j] = re[i]! * cos[w]! - im[i]! * sin[w]!;
        scratchIm[j] = re[i]! * sin[w]! + im[i]! * cos[w]!;
      }
      for (let q = 0; q < p; q++) {
        let sr = 0;
        let si = 0;
        for (let j = 0; j < p; j++) {
          const w = ((j * q) % p) * (n / p);
          sr += scratchRe[j]! * cos[w]! - scratchIm[j]! * sin[w]!;
          si += scratchRe[j]! * sin[w]! + scratchIm[j]! * cos[w]!;
        }
        re[at + k + q * m] = sr;
        im[at + k + q * m] = si;
      }
    }
  }
}
