import { describe, expect, it } from 'vitest';
import { energyConfirmsSpeech, FILE_SPEECH_GATE_OPTIONS, levelledForVad, SpeechGate, speechRegions } from './speech-gate.js';
import { SILERO_INPUT_LEVEL_DBFS, SILERO_MAX_INPUT_GAIN_DB } from '../../vad/vad.js';

const W = 512; // samples per Silero window
const MS = 16; // samples per ms

/** Window probabilities: `pattern` one character per window, '#' speech (0.9), '+' in between (0.4), '.' none (0.05). */
const probabilities = (pattern: string): Float32Array => Float32Array.from([...pattern].map((c) => (c === '#' ? 0.9 : c === '+' ? 0.4 : 0.05)));

describe('speechRegions', () => {
  const options = { ...FILE_SPEECH_GATE_OPTIONS, edgeMs: 0 };

  it('finds no region in a piece without speech, or with speech shorter than minSpeechMs', () => {
    expect(speechRegions(probabilities('.'.repeat(100)), 100 * W, options)).toEqual([]);
    // 7 windows = 224 ms < 250 ms
    expect(speechRegions(probabilities(`${'.'.repeat(40)}${'#'.repeat(7)}${'.'.repeat(40)}`), 87 * W, options)).toEqual([]);
  });

  it('pads a run on both sides, within the piece', () => {
    const regions = speechRegions(probabilities(`${'.'.repeat(40)}${'#'.repeat(20)}${'.'.repeat(40)}`), 100 * W, options);
    expect(regions).toEqual([{ from: 40 * W - options.padMs * MS, to: 60 * W + options.padMs * MS }]);
    const atStart = speechRegions(probabilities(`${'#'.repeat(20)}${'.'.repeat(80)}`), 100 * W, options);
    expect(atStart[0]!.from).toBe(0);
  });

  it('keeps speech going through windows between the thresholds (hysteresis) and ends it under the lower one', () => {
    const regions = speechRegions(probabilities(`${'.'.repeat(40)}${'#'.repeat(10)}${'+'.repeat(10)}${'.'.repeat(40)}`), 100 * W, options);
    expect(regions).toEqual([{ from: 40 * W - options.padMs * MS, to: 60 * W + options.padMs * MS }]);
  });

  it('joins runs closer than joinGapMs and keeps farther ones apart, in order and without overlap', () => {
    // gap of 40 windows = 1280 ms between runs; padded gap = 1280 - 800 = 480 ms < 1000 ms: joined
    const joined = speechRegions(probabilities(`${'.'.repeat(40)}${'#'.repeat(10)}${'.'.repeat(40)}${'#'.repeat(10)}${'.'.repeat(40)}`), 140 * W, options);
    expect(joined).toHaveLength(1);
    // gap of 100 windows = 3200 ms; padded gap 2400 ms: two regions
    const apart = speechRegions(probabilities(`${'.'.repeat(40)}${'#'.repeat(10)}${'.'.repeat(100)}${'#'.repeat(10)}${'.'.repeat(40)}`), 200 * W, options);
    expect(apart).toHaveLength(2);
    expect(apart[0]!.to).toBeLessThan(apart[1]!.from);
  });

  it('stretches a region that starts or ends within edgeMs of the piece to its edge (speech-only pieces decode whole)', () => {
    const pattern = `${'.'.repeat(20)}${'#'.repeat(100)}${'.'.repeat(20)}`; // 640 ms of quiet each side
    const length = 140 * W + 100; // a partial window at the end
    expect(speechRegions(probabilities(pattern), length, { ...FILE_SPEECH_GATE_OPTIONS, edgeMs: 1000 })).toEqual([{ from: 0, to: length }]);
    const far = `${'.'.repeat(80)}${'#'.repeat(100)}${'.'.repeat(80)}`; // 2.56 s each side: cut
    const regions = speechRegions(probabilities(far), 260 * W, { ...FILE_SPEECH_GATE_OPTIONS, edgeMs: 1000 });
    expect(regions[0]!.from).toBeGreaterThan(0);
    expect(regions[0]!.to).toBeLessThan(260 * W);
  });

  it('lets speech that runs to the end of the piece end there', () => {
    const regions = speechRegions(probabilities(`${'.'.repeat(60)}${'#'.repeat(40)}`), 100 * W + 300, options);
    expect(regions[regions.length - 1]!.to).toBe(100 * W + 300);
  });
});

/** A syllable-like signal: a 150 Hz buzz whose loudness rises and falls 4 times a second. */
function syllables(seconds: number, db: number): Float32Array {
  const out = new Float32Array(seconds * 16_000);
  const amp = 10 ** (db / 20);
  for (let i = 0; i < out.length; i++) {
    const t = i / 16_000;
    const envelope = Math.max(0, Math.sin(2 * Math.PI * 4 * t)) ** 2;
    out[i] = amp * envelope * (Math.sin(2 * Math.PI * 150 * t) + 0.5 * Math.sin(2 * Math.PI * 450 * t));
  }
  return out;
}
const tone = (seconds: number, db: number, dc = 0): Float32Array =>
  Float32Array.from({ length: seconds * 16_000 }, (_, i) => dc + 10 ** (db / 20) * Math.sin((2 * Math.PI * 425 * i) / 16_000));
function noise(seconds: number, db: number): Float32Array {
  let state = 7;
  const amp = 10 ** (db / 20) * Math.sqrt(3);
  return Float32Array.from({ length: seconds * 16_000 }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return amp * (2 * (state / 2 ** 32) - 1);
  });
}

describe('energyConfirmsSpeech (the fallback without Silero)', () => {
  it('confirms sound whose level rises and falls like syllables', () => {
    expect(energyConfirmsSpeech(syllables(2, -20))).toBe(true);
  });

  it('refuses steady tones and noise, silence, a DC offset and sound shorter than minSpeechMs', () => {
    expect(energyConfirmsSpeech(tone(2, -20))).toBe(false);
    expect(energyConfirmsSpeech(noise(2, -30))).toBe(false);
    expect(energyConfirmsSpeech(new Float32Array(32_000))).toBe(false);
    expect(energyConfirmsSpeech(Float32Array.from({ length: 32_000 }, () => 0.125))).toBe(false);
    const short = new Float32Array(32_000);
    short.set(syllables(1, -20).subarray(0, 3_200), 10_000); // 200 ms of it
    expect(energyConfirmsSpeech(short)).toBe(false);
  });

  it('is not fooled by quiet sound under -55 dBFS', () => {
    expect(energyConfirmsSpeech(syllables(2, -70))).toBe(false);
  });
});

describe('levelledForVad', () => {
  const rmsDb = (x: Float32Array): number => 10 * Math.log10(x.reduce((s, v) => s + v * v, 0) / x.length);

  it('removes the mean and raises a quiet piece to the VAD level, by at most the maximum gain, never lowering a loud one', () => {
    const quiet = tone(1, -60, 0.125);
    const levelled = levelledForVad(quiet);
    expect(levelled.reduce((s, v) => s + v, 0) / levelled.length).toBeCloseTo(0, 6);
    expect(rmsDb(levelled)).toBeCloseTo(SILERO_INPUT_LEVEL_DBFS, 1);
    expect(rmsDb(levelledForVad(tone(1, -90)))).toBeCloseTo(-93 + SILERO_MAX_INPUT_GAIN_DB, 0); // a sine's RMS is 3 dB under its peak
    const loud = tone(1, -10);
    expect(rmsDb(levelledForVad(loud))).toBeCloseTo(rmsDb(loud), 3);
    expect(quiet[0]).toBeCloseTo(0.125, 6); // the piece itself is untouched
  });

  it('hands Silero the levelled piece', async () => {
    let heard: Float32Array | null = null;
    const gate = new SpeechGate(async (pcm) => {
      heard = pcm;
      return probabilities('.'.repeat(Math.floor(pcm.length / W)));
    });
    await gate.regions(tone(1, -60), new AbortController().signal);
    expect(rmsDb(heard!)).toBeCloseTo(SILERO_INPUT_LEVEL_DBFS, 1);
  });
});

describe('SpeechGate', () => {
  const signal = new AbortController().signal;

  it('decodes the Silero regions, and nothing when Silero hears no speech', async () => {
    const pcm = new Float32Array(200 * W);
    const heard = new SpeechGate(async (samples) => probabilities(`${'.'.repeat(80)}${'#'.repeat(40)}${'.'.repeat(80)}`.slice(0, samples.length / W)));
    const regions = await heard.regions(pcm, signal);
    expect(regions).toHaveLength(1);
    expect(regions[0]!.from).toBe(80 * W - FILE_SPEECH_GATE_OPTIONS.padMs * MS);
    const deaf = new SpeechGate(async () => probabilities('.'.repeat(200)));
    expect(await deaf.regions(syllables(6, -20), signal)).toEqual([]);
  });

  it('falls back to the energy check when Silero is unavailable, and says so once', async () => {
    const warnings: string[] = [];
    const gate = new SpeechGate(async () => null, { warn: (_d, m) => warnings.push(m) });
    const speech = syllables(2, -20);
    expect(await gate.regions(speech, signal)).toEqual([{ from: 0, to: speech.length }]);
    expect(await gate.regions(tone(2, -20), signal)).toEqual([]);
    const noSilero = new SpeechGate(null, { warn: (_d, m) => warnings.push(m) });
    expect(await noSilero.regions(tone(2, -20, 0.1), signal)).toEqual([]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/Silero VAD is unavailable/);
  });

  it('second gate: drops text whose calibrated confidence is under the minimum, never a raw (uncalibrated) score', () => {
    const gate = new SpeechGate(null);
    const min = FILE_SPEECH_GATE_OPTIONS.minConfidence;
    expect(gate.shouldKeep({ calibrated: true, confidence: min - 0.01 })).toBe(false);
    expect(gate.shouldKeep({ calibrated: true, confidence: min })).toBe(true);
    expect(gate.shouldKeep({ calibrated: false, confidence: 0.01 })).toBe(true);
    expect(gate.shouldKeep({ calibrated: false, confidence: null })).toBe(true);
  });

  it('rejects with the signal reason once aborted', async () => {
    const controller = new AbortController();
    const gate = new SpeechGate(async () => {
      controller.abort(new Error('stop'));
      return probabilities('#'.repeat(10));
    });
    await expect(gate.regions(new Float32Array(10 * W), controller.signal)).rejects.toThrow('stop');
  });
});
