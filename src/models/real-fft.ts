/**
 * Power spectrum of real frames of a fixed length n: radix-2 FFT when n is a power of two,
 * Bluestein's chirp-z transform (through a power-of-two FFT) otherwise, so feature settings
 * such as n_fft = 400 work. Allocation-free per call after construction; not re-entrant.
 */
export class RealFft {
  readonly size: number;
  readonly bins: number;
  private readonly radix: Radix2Fft;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  // Bluestein state (null when n is a power of two)
  private readonly chirpRe: Float64Array | null = null;
  private readonly chirpIm: Float64Array | null = null;
  private readonly kernelRe: Float64Array | null = null;
  private readonly kernelIm: Float64Array | null = null;

  constructor(n: number) {
    if (!Number.isInteger(n) || n < 2) throw new RangeError(`FFT size must be an integer >= 2, got ${n}`);
    this.size = n;
    this.bins = (n >> 1) + 1;
    const pow2 = (n & (n - 1)) === 0;
    const m = pow2 ? n : nextPow2(2 * n - 1);
    this.radix = new Radix2Fft(m);
    this.re = new Float64Array(m);
    this.im = new Float64Array(m);
    if (!pow2) {
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
      this.radix.transform(this.kernelRe, this.kernelIm);
    }
  }

  /** Writes |X_k|^2 for k = 0..n/2 of the real frame `frame` (length n) into `out`. */
  powerSpectrum(frame: Float64Array, out: Float64Array): void {
    const n = this.size;
    const re = this.re;
    const im = this.im;
    if (this.chirpRe === null) {
      re.set(frame);
      im.fill(0);
      this.radix.transform(re, im);
      for (let k = 0; k < this.bins; k++) out[k] = re[k]! * re[k]! + im[k]! * im[k]!;
      return;
    }
    const cr = this.chirpRe;
    const ci = this.chirpIm!;
    re.fill(0);
    im.fill(0);
    for (let k = 0; k < n; k++) {
      re[k] = frame[k]! * cr[k]!;
      im[k] = frame[k]! * ci[k]!;
    }
    this.radix.transform(re, im);
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
    this.radix.transform(re, im);
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

/** In-place iterative radix-2 complex FFT (forward, e^{-2*pi*i*k*t/n}). */
class Radix2Fft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly reverse: Uint32Array;

  constructor(readonly n: number) {
    this.cos = new Float64Array(n >> 1);
    this.sin = new Float64Array(n >> 1);
    for (let k = 0; k < n >> 1; k++) {
      this.cos[k] = Math.cos((2 * Math.PI * k) / n);
      this.sin[k] = Math.sin((2 * Math.PI * k) / n);
    }
    this.reverse = new Uint32Array(n);
    const bits = Math.log2(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.reverse[i] = r;
    }
  }

  transform(re: Float64Array, im: Float64Array): void {
    const n = this.n;
    for (let i = 0; i < n; i++) {
      const j = this.reverse[i]!;
      if (j > i) {
        const tr = re[i]!;
        re[i] = re[j]!;
        re[j] = tr;
        const ti = im[i]!;
        im[i] = im[j]!;
        im[j] = ti;
      }
    }
    for (let size = 2; size <= n; size <<= 1) {
      const half = size >> 1;
      const step = n / size;
      for (let start = 0; start < n; start += size) {
        for (let j = 0; j < half; j++) {
          const c = this.cos[j * step]!;
          const s = this.sin[j * step]!;
          const p = start + j;
          const q = p + half;
          const tr = re[q]! * c + im[q]! * s;
          const ti = im[q]! * c - re[q]! * s;
          re[q] = re[p]! - tr;
          im[q] = im[p]! - ti;
          re[p] = re[p]! + tr;
          im[p] = im[p]! + ti;
        }
      }
    }
  }
}
