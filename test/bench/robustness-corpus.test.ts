// The generators of the robustness corpus (bench/robustness-*.ts, issue 28): levels, spectra,
// tone frequencies and cadences measured on the samples they produce; the G.711 codec against
// ffmpeg's decoders; the speech conditions and room tone on synthetic input.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../training/common/seeded-random.js';
import {
  brownNoise,
  clicks,
  fromDb,
  gaussian,
  HUM_HARMONICS,
  keyboard,
  mainsHum,
  peak,
  pinkNoise,
  pops,
  RATE,
  rms,
  rmsDbfs,
  toDb,
  whiteNoise,
  withoutMean,
} from '../../bench/robustness-noises.js';
import { type NonSpeechSpec, nonSpeechPlan, renderNonSpeech, SPEECH_CONDITIONS, SPEECH_NOISES, speechNoise } from '../../bench/robustness-plan.js';
import { callProgressTone, DTMF_COLUMNS, DTMF_ROWS, dtmfFrequencies, dtmfSequence } from '../../bench/robustness-tones.js';
import { joinWithCrossfades, quietStretches } from '../../bench/room-tone.js';
import { activeSpeechRms, hardClip, mixAtSnr, quieter } from '../../bench/speech-conditions.js';
import {
  alawToLinearSample,
  g711RoundTrip,
  linearToAlaw,
  linearToMulaw,
  mulawToLinearSample,
  telephoneBand,
  telephoneChannel,
} from '../../bench/telephone-channel.js';
import { floatToPcm16, pcm16ToFloat } from '../helpers/fixtures.js';
import { runFfmpeg } from '../helpers/audio-files.js';

/** Power of `samples` at `f` Hz (Goertzel over Hann-windowed frames of 1024, averaged), as dB. */
function powerAt(samples: Float32Array, f: number, rate = RATE, frame = 1024): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * f) / rate);
  let total = 0;
  let frames = 0;
  for (let at = 0; at + frame <= samples.length; at += frame / 2) {
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < frame; i++) {
      const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (frame - 1));
      const s = samples[at + i]! * w + coefficient * s1 - s2;
      s2 = s1;
      s1 = s;
    }
    total += s1 * s1 + s2 * s2 - coefficient * s1 * s2;
    frames++;
  }
  return 10 * Math.log10(total / Math.max(1, frames) + 1e-30);
}

/** Mean power over `count` frequencies spread evenly in [lo, hi] (a band's spectral density), dB. */
function bandPower(samples: Float32Array, lo: number, hi: number, count = 8): number {
  let sum = 0;
  for (let k = 0; k < count; k++) sum += 10 ** (powerAt(samples, lo + ((hi - lo) * (k + 0.5)) / count) / 10);
  return 10 * Math.log10(sum / count);
}

describe('robustness corpus: the plan', () => {
  const plan = nonSpeechPlan(28);

  it('holds at least 20 minutes of generated non-speech over at least 10 kinds, clips of 5-30 s', () => {
    const seconds = plan.reduce((s, c) => s + c.seconds, 0);
    expect(seconds).toBeGreaterThanOrEqual(20 * 60);
    expect(new Set(plan.map((c) => c.kind)).size).toBeGreaterThanOrEqual(10);
    for (const c of plan) {
      expect(c.seconds).toBeGreaterThanOrEqual(5);
      expect(c.seconds).toBeLessThanOrEqual(30);
    }
    expect(new Set(plan.filter((c) => c.family === 'noise').map((c) => c.level))).toEqual(new Set([-70, -60, -50, -40, -30, -20]));
  });

  // Clips are levelled over their whole length whatever it is; 5 s keeps the test fast.
  const short = (spec: NonSpeechSpec): NonSpeechSpec => ({ ...spec, seconds: 5 });

  it('renders RMS-levelled clips within 0.5 dB of their level, also as 16-bit samples (every level of every kind)', () => {
    for (const spec of plan.filter((c) => c.measure === 'rms').map(short)) {
      const samples = renderNonSpeech(spec);
      expect(samples.length).toBe(Math.round(spec.seconds * RATE));
      expect(Math.abs(rmsDbfs(samples) - spec.level!), `${spec.kind} ${spec.level}`).toBeLessThan(0.5);
      expect(Math.abs(rmsDbfs(pcm16ToFloat(floatToPcm16(samples))) - spec.level!), `${spec.kind} ${spec.level} 16-bit`).toBeLessThan(0.5);
      expect(peak(samples)).toBeLessThan(1);
    }
  });

  it('renders impulse trains at their peak and tones at their level while on, over a -72 dBFS floor', () => {
    for (const spec of plan.filter((c) => c.measure === 'peak')) {
      expect(Math.abs(toDb(peak(renderNonSpeech(short(spec)))) - spec.level!), spec.kind).toBeLessThan(0.5);
    }
    for (const spec of plan.filter((c) => c.kind === 'dial-na' || c.kind === 'dial-etsi')) {
      expect(Math.abs(rmsDbfs(renderNonSpeech(spec)) - spec.level!), spec.kind).toBeLessThan(0.5);
    }
    const silence = plan.find((c) => c.kind === 'silence')!;
    expect(peak(renderNonSpeech(silence))).toBe(0);
  });

  it('is deterministic: the same seed gives the same samples, another seed others', () => {
    const spec = short(plan.find((c) => c.kind === 'keyboard')!);
    expect(renderNonSpeech(spec)).toEqual(renderNonSpeech(spec));
    const other = short(nonSpeechPlan(29).find((c) => c.kind === 'keyboard' && c.index === spec.index)!);
    expect(renderNonSpeech(other)).not.toEqual(renderNonSpeech(spec));
  });

  it('lists the speech conditions of the issue', () => {
    const names = SPEECH_CONDITIONS.map((c) => c.name);
    expect(names).toContain('clean');
    for (const noise of SPEECH_NOISES) for (const snr of [20, 10, 5]) expect(names).toContain(`${noise}-snr${snr}`);
    expect(names).toEqual(expect.arrayContaining(['quieter-30db', 'clipped-12db', 'telephone-mulaw', 'telephone-alaw']));
    for (const noise of SPEECH_NOISES) expect(speechNoise(noise, 16_000, 1).length).toBeGreaterThanOrEqual(16_000);
  });
});

describe('robustness corpus: noises', () => {
  it('gives white, pink and brown noise their slopes: 0, -3 and -6 dB per octave from 250 Hz to 4 kHz', () => {
    const random = seededRandom(5);
    const slope = (samples: Float32Array): number => (bandPower(samples, 200, 300) - bandPower(samples, 3500, 4500)) / 4;
    expect(Math.abs(slope(whiteNoise(20, random)))).toBeLessThan(0.4);
    expect(slope(pinkNoise(20, random))).toBeCloseTo(3, 0);
    expect(slope(brownNoise(20, random))).toBeCloseTo(6, 0);
  });

  it('puts mains hum at the mains frequency and its harmonics in the stated proportions', () => {
    for (const mains of [50, 60] as const) {
      const hum = mainsHum(10, mains, seededRandom(mains));
      const fundamental = powerAt(hum, mains, RATE, 16_000);
      HUM_HARMONICS.forEach((amplitude, k) => {
        if (amplitude < 0.1) return;
        expect(powerAt(hum, mains * (k + 1), RATE, 16_000) - fundamental, `${mains} Hz harmonic ${k + 1}`).toBeCloseTo(toDb(amplitude), 0);
      });
      const other = mains === 50 ? 60 : 50;
      expect(powerAt(hum, other, RATE, 16_000) - fundamental).toBeLessThan(-30);
    }
  });

  it('makes sparse impulse trains: clicks of 1-3 samples, pops of 15-60 ms, keys in bursts', () => {
    const random = seededRandom(9);
    const active = (samples: Float32Array, threshold: number): number => samples.filter((v) => Math.abs(v) > threshold).length / samples.length;
    const c = clicks(20, random);
    expect(active(c, 0.01)).toBeLessThan(0.002);
    expect(active(c, 0.01)).toBeGreaterThan(0);
    expect(active(pops(20, random), 0.01)).toBeLessThan(0.1);
    const k = keyboard(20, random);
    expect(active(k, 0.001)).toBeLessThan(0.5);
    expect(active(k, 0.001)).toBeGreaterThan(0.01);
  });

  it('draws standard normal samples', () => {
    const random = seededRandom(3);
    const xs = Float32Array.from({ length: 100_000 }, () => gaussian(random));
    expect(xs.reduce((s, v) => s + v, 0) / xs.length).toBeCloseTo(0, 1);
    expect(rms(xs)).toBeCloseTo(1, 1);
  });
});

describe('robustness corpus: telephone tones', () => {
  it('dials DTMF keys whose two strongest of the eight frequencies are its row and column, column 2 dB up', () => {
    const { samples, keys } = dtmfSequence(20, -20, seededRandom(11));
    expect(keys.length).toBeGreaterThan(20);
    const all: number[] = [...DTMF_ROWS, ...DTMF_COLUMNS];
    for (const key of keys) {
      const burst = samples.subarray(key.startSample, key.endSample);
      const powers = all.map((f) => powerAt(burst, f, RATE, burst.length));
      const strongest = [...all.keys()].sort((a, b) => powers[b]! - powers[a]!).slice(0, 2);
      const [row, column] = dtmfFrequencies(key.key);
      expect(new Set(strongest.map((i) => all[i]))).toEqual(new Set([row, column]));
      expect(powers[all.indexOf(column)]! - powers[all.indexOf(row)]!).toBeCloseTo(2, 0);
      const ramp = Math.round(0.002 * RATE);
      expect(Math.abs(rmsDbfs(burst.subarray(ramp, burst.length - ramp)) - -20)).toBeLessThan(0.5);
    }
    expect(() => dtmfFrequencies('x')).toThrow();
    expect(dtmfFrequencies('5')).toEqual([770, 1336]);
  });

  it('keeps the cadences: North American ringback 2 s on 4 s off at 440+480 Hz, ETSI busy 0.5/0.5 s at 425 Hz', () => {
    const onRuns = (samples: Float32Array): Array<[boolean, number]> => {
      const runs: Array<[boolean, number]> = [];
      for (let at = 0; at + 160 <= samples.length; at += 160) {
        const on = rms(samples.subarray(at, at + 160)) > fromDb(-40);
        if (runs.length > 0 && runs[runs.length - 1]![0] === on) runs[runs.length - 1]![1] += 10;
        else runs.push([on, 10]);
      }
      return runs.slice(1, -1); // the first and last runs are cut by the clip
    };
    const ringback = callProgressTone('ringback-na', 30, -20, seededRandom(1));
    for (const [on, ms] of onRuns(ringback)) expect(Math.abs(ms - (on ? 2000 : 4000))).toBeLessThanOrEqual(20);
    expect(powerAt(ringback, 440) - powerAt(ringback, 350)).toBeGreaterThan(30);
    expect(powerAt(ringback, 480) - powerAt(ringback, 620)).toBeGreaterThan(30);
    const busy = callProgressTone('busy-etsi', 10, -20, seededRandom(2));
    const runs = onRuns(busy);
    expect(runs.length).toBeGreaterThan(10);
    for (const [, ms] of runs) expect(Math.abs(ms - 500)).toBeLessThanOrEqual(20);
    expect(powerAt(busy, 425) - powerAt(busy, 480)).toBeGreaterThan(30);
  });
});

describe('robustness corpus: the telephone channel', () => {
  it('encodes each code back to itself', () => {
    for (let code = 0; code < 256; code++) {
      const back = linearToMulaw(mulawToLinearSample(code));
      // 0x7F and 0xFF both decode to 0; 0 encodes as 0xFF.
      expect(code === 0x7f ? 0xff : code).toBe(back);
      expect(linearToAlaw(alawToLinearSample(code))).toBe(code);
    }
  });

  it("agrees with ffmpeg's G.711 decoders on every code, and stays within half a step of the input", () => {
    const dir = mkdtempSync(join(tmpdir(), 'g711-'));
    try {
      const codes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      for (const [law, decode] of [
        ['alaw', alawToLinearSample],
        ['mulaw', mulawToLinearSample],
      ] as const) {
        writeFileSync(join(dir, `${law}.raw`), codes);
        runFfmpeg(['-f', law, '-ar', '8000', '-ac', '1', '-i', join(dir, `${law}.raw`), '-f', 's16le', join(dir, `${law}.pcm`)]);
        const pcm = readFileSync(join(dir, `${law}.pcm`));
        for (let code = 0; code < 256; code++) expect(pcm.readInt16LE(2 * code), `${law} ${code}`).toBe(decode(code));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const ramp = Float32Array.from({ length: 4000 }, (_, i) => (i - 2000) / 2100);
    for (const law of ['mulaw', 'alaw'] as const) {
      const out = g711RoundTrip(ramp, law);
      for (let i = 0; i < ramp.length; i++) {
        const x = ramp[i]! * 32_768;
        // Segment step: 1/16 of the magnitude's octave (at least 16 at the bottom), so half a step is at most |x|/32 + 16.
        expect(Math.abs(out[i]! - x)).toBeLessThanOrEqual(Math.abs(x) / 32 + 16);
      }
    }
  });

  it('passes 300-3,400 Hz at 8 kHz and stops what is outside', () => {
    const tone = (f: number): Float32Array => Float32Array.from({ length: 16_000 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * f * i) / RATE));
    const gain = (f: number): number => {
      const out = telephoneBand(tone(f)).subarray(800, 7200);
      return toDb(rms(out) / (0.5 / Math.SQRT2));
    };
    expect(Math.abs(gain(1000))).toBeLessThan(0.5);
    expect(Math.abs(gain(3000))).toBeLessThan(1);
    expect(gain(500)).toBeGreaterThan(-1.5);
    expect(gain(100)).toBeLessThan(-15);
    expect(gain(5500)).toBeLessThan(-60); // would alias to 2.5 kHz
    const call = telephoneChannel(tone(1000), 'alaw');
    expect(call.length).toBe(8000);
  });
});

describe('robustness corpus: speech conditions and room tone', () => {
  /** A speech-like signal: 300 ms bursts of loud noise with 200 ms of quiet between, quiet edges. */
  function bursts(seed: number): Float32Array {
    const random = seededRandom(seed);
    const out = Float32Array.from({ length: 4 * RATE }, () => 0.001 * gaussian(random) - 0.12);
    for (let at = RATE / 2; at + 0.3 * RATE < 3.5 * RATE; at += 0.5 * RATE) for (let i = 0; i < 0.3 * RATE; i++) out[at + i]! += 0.2 * gaussian(random);
    return out;
  }

  it('mixes noise at the SNR asked for, against the active speech level without the DC offset', () => {
    const speech = bursts(1);
    const noise = pinkNoise(5, seededRandom(2));
    for (const snr of [20, 10, 5]) {
      const { samples, noiseGain, scale } = mixAtSnr(speech, noise, snr);
      const added = samples.map((v, i) => v - scale * speech[i]!);
      expect(toDb((scale * activeSpeechRms(speech)) / rms(added))).toBeCloseTo(snr, 1);
      expect(noiseGain).toBeGreaterThan(0);
    }
    // The offset is not speech: the level is that of the bursts (0.2 RMS), not of -0.12 added to them.
    expect(activeSpeechRms(speech)).toBeCloseTo(0.2, 1);
    expect(() => mixAtSnr(speech, noise.subarray(0, 10), 10)).toThrow();
  });

  it('makes speech 30 dB quieter and clips it 12 dB over full scale about zero, not about its DC offset', () => {
    const speech = bursts(3);
    expect(rmsDbfs(quieter(speech, 30)) - rmsDbfs(speech)).toBeCloseTo(-30, 5);
    const { samples, clippedFraction } = hardClip(speech, 12);
    expect(peak(samples)).toBe(1);
    expect(clippedFraction).toBeGreaterThan(0.001);
    expect(clippedFraction).toBeLessThan(0.5);
    const top = samples.filter((v) => v >= 1).length;
    const bottom = samples.filter((v) => v <= -1).length;
    expect(Math.abs(top - bottom) / (top + bottom)).toBeLessThan(0.2);
  });

  it('finds room tone only in the quiet away from the bursts and joins it without steps', () => {
    const speech = bursts(4);
    const stretches = quietStretches(speech);
    expect(stretches.length).toBeGreaterThanOrEqual(2);
    for (const [a, b] of stretches) {
      expect(rms(withoutMean(speech.subarray(a, b)))).toBeLessThan(0.002);
      expect(b - a).toBeGreaterThanOrEqual(0.15 * RATE);
    }
    const pieces = stretches.map(([a, b]) => withoutMean(speech.slice(a, b)));
    const joined = joinWithCrossfades(pieces);
    const fade = 160;
    expect(joined.length).toBe(pieces.reduce((n, p) => n + p.length, 0) - (pieces.length - 1) * fade);
    expect(Math.abs(joined.reduce((s, v) => s + v, 0) / joined.length)).toBeLessThan(1e-4);
    for (let i = 1; i < joined.length; i++) expect(Math.abs(joined[i]! - joined[i - 1]!)).toBeLessThan(0.01);
  });
});
