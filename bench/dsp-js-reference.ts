/**
 * Plain-JavaScript versions of the DSP front end's parts, for the comparison in
 * dsp-front-end.ts: the same polyphase filter (same Kaiser design as native/src/dsp), the
 * same energy VAD arithmetic and an Int16Array ring buffer. Opus decoding uses
 * @discordjs/opus (libopus behind its own binding): JavaScript has no Opus decoder of its own.
 */

function besselI0(x: number): number {
  const half = x / 2;
  let term = 1;
  let sum = 1;
  for (let k = 1; k < 200; k++) {
    term *= half / k;
    const sq = term * term;
    sum += sq;
    if (sq < sum * 1e-17) break;
  }
  return sum;
}

/** Integer decimator (in -> in / factor) with the native resampler's default design. */
export class JsDecimator {
  readonly taps: Float32Array;
  readonly #history: Float32Array;
  #phase: number; // input index (relative to the next block) of the next output's window end
  readonly #factor: number;

  constructor(inRate: number, outRate: number) {
    if (inRate % outRate !== 0) throw new Error('JsDecimator needs an integer ratio');
    this.#factor = inRate / outRate;
    const pass = 0.45 * outRate;
    const stop = 0.5 * outRate;
    const atten = 80;
    const estimate = Math.ceil((atten - 7.95) / (2.285 * 2 * Math.PI * ((stop - pass) / inRate))) + 1;
    let taps = Math.ceil(estimate / 8) * 8;
    const length = taps % 2 === 0 ? taps - 1 : taps;
    const beta = 0.1102 * (atten - 8.7);
    const cutoff = (pass + stop) / 2 / inRate;
    const center = (length - 1) / 2;
    const h = new Float64Array(length);
    let sum = 0;
    for (let n = 0; n < length; n++) {
      const t = n - center;
      const arg = 2 * cutoff * t;
      const sinc = t === 0 ? 1 : Math.sin(Math.PI * arg) / (Math.PI * arg);
      const r = t / center;
      h[n] = 2 * cutoff * sinc * (besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / besselI0(beta));
      sum += h[n]!;
    }
    this.taps = new Float32Array(taps);
    for (let j = 0; j < taps; j++) {
      const n = taps - 1 - j;
      this.taps[j] = n < length ? h[n]! / sum : 0;
    }
    taps = this.taps.length;
    this.#history = new Float32Array(taps - 1 + 8192);
    this.#phase = (length - 1) / 2;
  }

  /** Resamples `input` (<= 8192 samples) into out; returns the count. */
  process(input: Float32Array, out: Float32Array): number {
    const k = this.taps.length;
    const buf = this.#history;
    buf.set(input, k - 1);
    const n = input.length;
    const taps = this.taps;
    let count = 0;
    let t = this.#phase;
    for (; t < n; t += this.#factor) {
      let acc = 0;
      for (let j = 0; j < k; j++) acc += taps[j]! * buf[t + j]!;
      out[count++] = acc;
    }
    this.#phase = t - n;
    buf.copyWithin(0, n, n + k - 1);
    return count;
  }
}

/** The native EnergyVad's arithmetic (variance energy, 100 ms smoothing, minimum statistics). */
export class JsEnergyVad {
  readonly #frame = 320;
  #pending = 0;
  #sum = 0;
  #sumSq = 0;
  readonly #recent = new Float64Array(5);
  #recentCount = 0;
  #recentIndex = 0;
  readonly #subMin = new Float32Array(12).fill(1000);
  #subIndex = 0;
  #subFrames = 0;
  readonly #framesPerSub = Math.max(1, Math.round((3 * 16000) / 320 / 12));
  #floor = 1000;

  process(x: Float32Array, probs: Float32Array): number {
    let frames = 0;
    let i = 0;
    while (i < x.length) {
      const take = Math.min(x.length - i, this.#frame - this.#pending);
      let s = 0;
      let s2 = 0;
      for (let k = 0; k < take; k++) {
        const v = x[i + k]!;
        s += v;
        s2 += v * v;
      }
      this.#sum += s;
      this.#sumSq += s2;
      this.#pending += take;
      i += take;
      if (this.#pending === this.#frame) {
        probs[frames++] = this.#finish();
        this.#pending = 0;
        this.#sum = 0;
        this.#sumSq = 0;
      }
    }
    return frames;
  }

  #finish(): number {
    const dc = this.#sum / this.#frame;
    const mean = this.#sumSq / this.#frame - dc * dc;
    const db = mean > 1e-12 ? 10 * Math.log10(mean) : -120;
    let p = 0;
    if (db >= -50 && this.#floor !== 1000) p = 1 / (1 + Math.exp(-((db - this.#floor - 9) / 2)));
    this.#recent[this.#recentIndex] = Math.max(mean, 0);
    this.#recentIndex = (this.#recentIndex + 1) % 5;
    if (this.#recentCount < 5) this.#recentCount++;
    if (this.#recentCount < 5) return p;
    let avg = 0;
    for (let k = 0; k < 5; k++) avg += this.#recent[k]!;
    avg /= 5;
    const avgDb = Math.max(avg > 1e-12 ? 10 * Math.log10(avg) : -120, -75);
    this.#subMin[this.#subIndex] = this.#subFrames === 0 ? avgDb : Math.min(this.#subMin[this.#subIndex]!, avgDb);
    if (++this.#subFrames >= this.#framesPerSub) {
      this.#subFrames = 0;
      this.#subIndex = (this.#subIndex + 1) % 12;
    }
    let floor = this.#subMin[0]!;
    for (let k = 1; k < 12; k++) floor = Math.min(floor, this.#subMin[k]!);
    this.#floor = floor;
    return p;
  }
}

/** Int16 ring buffer with a hard capacity. */
export class JsRingBuffer {
  readonly #data: Int16Array;
  #read = 0;
  #write = 0;

  constructor(capacity: number) {
    this.#data = new Int16Array(capacity);
  }

  get size(): number {
    return this.#write - this.#read;
  }

  writeFloat(x: Float32Array, n = x.length): number {
    const cap = this.#data.length;
    const count = Math.min(n, cap - this.size);
    let at = this.#write % cap;
    for (let i = 0; i < count; i++) {
      let v = x[i]! * 32768;
      // biome-ignore lint/complexity/useMathMinMax: mirrors the C++ clamp, which sends NaN to -32768 (Math.max would keep NaN)
      v = v > -32768 ? v : -32768;
      // biome-ignore lint/complexity/useMathMinMax: as above
      v = v < 32767 ? v : 32767;
      this.#data[at] = Math.round(v);
      if (++at === cap) at = 0;
    }
    this.#write += count;
    return count;
  }

  discardAll(): void {
    this.#read = this.#write;
  }
}
