import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nativeAddon } from '../../runtime/native-addon.js';
import { LogMelExtractor, melFilterbank } from './log-mel-features.js';
import type { LogMelInput } from './log-mel-features.js';
import { RealFft } from './real-fft.js';

const SR = 16000;

/** Same formula as test_signal() in scripts/make-log-mel-reference.py. */
function testSignal(samples: number): Float32Array {
  const x = new Float32Array(samples);
  for (let i = 0; i < samples; i++) {
    const t = i / SR;
    let v = 0.5 * Math.sin(2 * Math.PI * 440 * t) + 0.25 * Math.sin(2 * Math.PI * 1234.5 * t + 0.3);
    v += 0.1 * Math.sin(2 * Math.PI * (200 * t + 3000 * t * t));
    x[i] = v * (t < 0.15 ? 1 : 0.3);
  }
  return x;
}

interface ReferenceCase {
  params: Record<string, number | string | boolean>;
  frames: number;
  features: number[];
}

function toInput(p: ReferenceCase['params']): LogMelInput {
  return {
    kind: 'log_mel',
    sampleRate: p.sample_rate as number,
    nFft: p.n_fft as number,
    winLength: p.win_length as number,
    hopLength: p.hop_length as number,
    nMels: p.n_mels as number,
    fMin: p.f_min as number,
    fMax: p.f_max as number,
    window: 'hann',
    melScale: p.mel_scale as 'htk' | 'slaney',
    melNorm: p.mel_norm as 'none' | 'slaney',
    center: p.center as boolean,
    power: p.power as 1 | 2,
    logFloor: p.log_floor as number,
    normalize: p.normalize as 'none' | 'per_utterance',
  };
}

describe('RealFft', () => {
  const naive = (x: Float64Array): Float64Array => {
    const n = x.length;
    const out = new Float64Array((n >> 1) + 1);
    for (let k = 0; k < out.length; k++) {
      let re = 0;
      let im = 0;
      for (let t = 0; t < n; t++) {
        re += x[t]! * Math.cos((2 * Math.PI * k * t) / n);
        im -= x[t]! * Math.sin((2 * Math.PI * k * t) / n);
      }
      out[k] = re * re + im * im;
    }
    return out;
  };

  // Radix 4, 2, 3, 5 and the generic butterfly (7, 11, 13), odd and even n, and primes past 13
  // (Bluestein by default); every size also forced through the other method.
  const sizes = [2, 3, 5, 7, 8, 9, 12, 15, 21, 22, 26, 30, 49, 64, 77, 97, 100, 121, 143, 169, 400, 401, 512, 1000];
  it.each(sizes)('matches a direct DFT for n = %i with either method', (n) => {
    const x = new Float64Array(n).map((_, i) => Math.sin(i * 0.37) + 0.5 * Math.cos(i * 1.3) + (i % 7) * 0.01);
    const expected = naive(x);
    const scale = Math.max(1, ...expected);
    for (const method of ['mixed-radix', 'bluestein'] as const) {
      const fft = new RealFft(n, method);
      const out = new Float64Array(fft.bins);
      fft.powerSpectrum(x, out);
      for (let k = 0; k < out.length; k++) expect(Math.abs(out[k]! - expected[k]!) / scale).toBeLessThan(1e-10);
    }
  });

  it('picks mixed radix for sizes with prime factors up to 13 and Bluestein past them', () => {
    expect(new RealFft(400).method).toBe('mixed-radix');
    expect(new RealFft(512).method).toBe('mixed-radix');
    expect(new RealFft(2 * 13 * 13).method).toBe('mixed-radix');
    expect(new RealFft(401).method).toBe('bluestein');
    expect(new RealFft(2 * 17).method).toBe('bluestein');
  });
});

describe('melFilterbank', () => {
  it('builds triangles peaking at their centre frequency (htk, hand-checked)', () => {
    // 4 mel bands over 0..8000 Hz with n_fft 16: bins every 1000 Hz.
    const bank = melFilterbank({ sampleRate: SR, nFft: 16, nMels: 4, fMin: 0, fMax: 8000, melScale: 'htk', melNorm: 'none' });
    expect(bank.length).toBe(4 * 9);
    // edges in mel: 0..2840.02 in 5 steps -> first centre at mel 568.0 = 437.7 Hz; bin 0 (0 Hz) sits on the lower edge.
    const melMax = 2595 * Math.log10(1 + 8000 / 700);
    const centre1 = 700 * (10 ** (melMax / 5 / 2595) - 1);
    const upper1 = 700 * (10 ** ((2 * melMax) / 5 / 2595) - 1);
    expect(bank[0]).toBe(0);
    expect(bank[1]).toBeCloseTo((upper1 - 1000) / (upper1 - centre1), 12);
    for (let m = 0; m < 4; m++) for (let k = 0; k < 9; k++) expect(bank[m * 9 + k]).toBeGreaterThanOrEqual(0);
  });
});

describe('LogMelExtractor', () => {
  const reference = JSON.parse(readFileSync(new URL('../../../../test/fixtures/features/log-mel-reference.json', import.meta.url), 'utf8')) as {
    samples: number;
    cases: ReferenceCase[];
  };
  const signal = testSignal(reference.samples);

  const kernels = ['native', 'typescript'] as const;
  it.each(reference.cases.flatMap((c) => kernels.map((k) => [c.params.name as string, k, c] as const)))(
    'matches the numpy reference: %s (%s kernel)',
    (_name, kernel, c) => {
      const extractor = new LogMelExtractor(toInput(c.params), { kernel });
      expect(extractor.kernel).toBe(kernel);
      const features = extractor.compute(signal);
      expect(extractor.frameCount(signal.length)).toBe(c.frames);
      expect(features.length).toBe(c.features.length);
      let worst = 0;
      for (let i = 0; i < features.length; i++) worst = Math.max(worst, Math.abs(features[i]! - c.features[i]!));
      expect(worst).toBeLessThan(2e-4);
    },
  );

  it('puts the energy of a pure tone in the mel band around it', () => {
    const params = toInput(reference.cases[0]!.params);
    const tone = new Float32Array(SR / 4).map((_, i) => 0.5 * Math.sin((2 * Math.PI * 1000 * i) / SR));
    const features = new LogMelExtractor(params).compute(tone);
    const mid = 10 * params.nMels;
    let best = 0;
    for (let m = 1; m < params.nMels; m++) if (features[mid + m]! > features[mid + best]!) best = m;
    const bank = melFilterbank(params);
    const bins = params.nFft / 2 + 1;
    const bin1k = Math.round((1000 * (bins - 1)) / 8000);
    expect(bank[best * bins + bin1k]).toBeGreaterThan(0.5);
  });

  it('runs the native kernel by default where it takes n_fft, the TypeScript loop elsewhere', () => {
    const params = toInput(reference.cases[0]!.params);
    expect(new LogMelExtractor({ ...params, nFft: 400, winLength: 400 }).kernel).toBe('native');
    expect(new LogMelExtractor({ ...params, nFft: 512, winLength: 400 }).kernel).toBe('native');
    expect(new LogMelExtractor({ ...params, nFft: 401, winLength: 400 }).kernel).toBe('typescript');
    expect(new LogMelExtractor(params, { fftMethod: 'bluestein' }).kernel).toBe('typescript');
    expect(() => new LogMelExtractor({ ...params, nFft: 2 * 17, winLength: 30 }, { kernel: 'native' })).toThrow(RangeError);
    // the addon itself refuses a power other than 1 or 2 (it would truncate 1.5 to 1)
    const bins = 201;
    const create = (power: number) =>
      nativeAddon().logMelCreate(400, 160, power, 1e-6, new Float64Array(400), new Float64Array(bins), Int32Array.of(0), Int32Array.of(bins));
    expect(() => create(1.5)).toThrow(RangeError);
    nativeAddon().logMelClose(create(2));
  });

  // The two kernels on the edges of framing: empty and one-sample input, input shorter than the
  // centring pad and than n_fft, lengths off the hop grid, magnitude and power, both paddings.
  it.each([
    [400, 160, true, 2],
    [400, 160, false, 2],
    [512, 160, true, 1],
    [480, 120, false, 1],
    [2 * 3 * 5 * 7, 105, true, 2],
  ] as const)('native and TypeScript agree: n_fft %i, hop %i, center %s, power %i', (nFft, hop, center, power) => {
    const params: LogMelInput = { ...toInput(reference.cases[0]!.params), nFft, winLength: nFft, hopLength: hop, center, power, normalize: 'none' };
    const native = new LogMelExtractor(params, { kernel: 'native' });
    const typescript = new LogMelExtractor(params, { kernel: 'typescript' });
    for (const length of [0, 1, 57, nFft >> 1, (nFft >> 1) + 1, nFft - 1, nFft, 4 * hop + 3, 16000 + 17]) {
      const pcm = testSignal(length);
      const a = native.compute(pcm);
      const b = typescript.compute(pcm);
      expect(a.length).toBe(native.frameCount(length) * params.nMels);
      expect(a.length).toBe(b.length);
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
      expect(worst).toBeLessThan(1e-4);
    }
    native.close();
  });
});
