/**
 * Telephone tones for the robustness corpus (issue 28): call-progress tones with their cadences
 * and DTMF key sequences, 16 kHz float samples. Pure; a seeded random source picks where in its
 * cadence a clip starts and which keys are dialled.
 *
 * Call-progress tones (frequencies in Hz; cadence on/off in ms, repeated):
 * - North America (the AT&T Precise Tone Plan): dial 350+440 steady; ringback 440+480, 2000 on
 *   4000 off; busy 480+620, 500/500; reorder 480+620, 250/250.
 * - ITU-T E.180 / ETSI TR 101 041 (CEPT) recommended values: dial 425 steady; ringback 425,
 *   1000 on 4000 off; busy 425, 500/500.
 * - UK ringback: 400+450, 400 on 200 off 400 on 2000 off.
 * Each burst starts and ends with a 2 ms raised-cosine ramp. The level is the RMS while the tone
 * is on (components at equal amplitude).
 *
 * DTMF (ITU-T Q.23): a key is one row frequency (697, 770, 852, 941) and one column frequency
 * (1209, 1336, 1477, 1633); the column tone 2 dB above the row tone (twist, within Q.24's
 * limits). Numbers of 7-11 keys, each key 65-120 ms with 65-150 ms between keys, 0.8-2.5 s between
 * numbers: what an IVR menu or a dialler sends.
 */
import { fromDb, RATE, type Random } from './robustness-noises.js';

export interface ToneStep {
  /** Duration in ms (Infinity: the tone never stops). */
  readonly ms: number;
  /** Frequencies sounding together; none is a silent step. */
  readonly frequencies: readonly number[];
}

export const CALL_PROGRESS_TONES = {
  'dial-na': [{ ms: Infinity, frequencies: [350, 440] }],
  'ringback-na': [
    { ms: 2000, frequencies: [440, 480] },
    { ms: 4000, frequencies: [] },
  ],
  'busy-na': [
    { ms: 500, frequencies: [480, 620] },
    { ms: 500, frequencies: [] },
  ],
  'reorder-na': [
    { ms: 250, frequencies: [480, 620] },
    { ms: 250, frequencies: [] },
  ],
  'dial-etsi': [{ ms: Infinity, frequencies: [425] }],
  'ringback-etsi': [
    { ms: 1000, frequencies: [425] },
    { ms: 4000, frequencies: [] },
  ],
  'busy-etsi': [
    { ms: 500, frequencies: [425] },
    { ms: 500, frequencies: [] },
  ],
  'ringback-uk': [
    { ms: 400, frequencies: [400, 450] },
    { ms: 200, frequencies: [] },
    { ms: 400, frequencies: [400, 450] },
    { ms: 2000, frequencies: [] },
  ],
} as const satisfies Record<string, readonly ToneStep[]>;

export type CallProgressTone = keyof typeof CALL_PROGRESS_TONES;

const RAMP = Math.round(0.002 * RATE);

/** Adds a burst of `frequencies` (each at `amplitude`) over samples [from, to) of `out`, ramped. */
function addBurst(out: Float32Array, from: number, to: number, frequencies: readonly number[], amplitudes: readonly number[], phases: readonly number[]): void {
  const end = Math.min(to, out.length);
  const length = to - from;
  for (let i = Math.max(0, from); i < end; i++) {
    const k = i - from;
    const edge = Math.min(k, length - 1 - k);
    const ramp = edge >= RAMP ? 1 : 0.5 - 0.5 * Math.cos((Math.PI * edge) / RAMP);
    let v = 0;
    for (let f = 0; f < frequencies.length; f++) v += amplitudes[f]! * Math.sin((2 * Math.PI * frequencies[f]! * i) / RATE + phases[f]!);
    out[i]! += ramp * v;
  }
}

/** `seconds` of a cadenced tone whose RMS while on is `onDbfs`, starting at a random point of its cadence. */
export function callProgressTone(tone: CallProgressTone, seconds: number, onDbfs: number, random: Random): Float32Array {
  const steps: readonly ToneStep[] = CALL_PROGRESS_TONES[tone];
  const out = new Float32Array(Math.round(seconds * RATE));
  const cycle = steps.reduce((s, step) => s + step.ms, 0);
  const phases = [random() * 2 * Math.PI, random() * 2 * Math.PI];
  if (!Number.isFinite(cycle)) {
    const frequencies = steps[0]!.frequencies;
    const amplitude = fromDb(onDbfs) / Math.sqrt(frequencies.length / 2);
    addBurst(
      out,
      0,
      out.length,
      frequencies,
      frequencies.map(() => amplitude),
      phases,
    );
    return out;
  }
  // Start somewhere in the cycle, so that clips do not all open with the tone.
  let at = -Math.round(((random() * cycle) / 1000) * RATE);
  while (at < out.length) {
    for (const step of steps) {
      const length = Math.round((step.ms / 1000) * RATE);
      if (step.frequencies.length > 0 && at + length > 0) {
        const amplitude = fromDb(onDbfs) / Math.sqrt(step.frequencies.length / 2);
        addBurst(
          out,
          at,
          at + length,
          step.frequencies,
          step.frequencies.map(() => amplitude),
          phases,
        );
      }
      at += length;
    }
  }
  return out;
}

export const DTMF_ROWS = [697, 770, 852, 941] as const;
export const DTMF_COLUMNS = [1209, 1336, 1477, 1633] as const;
export const DTMF_KEYS = ['123A', '456B', '789C', '*0#D'] as const;

/** The row and column frequencies of a DTMF key (`0`-`9`, `*`, `#`, `A`-`D`). */
export function dtmfFrequencies(key: string): readonly [number, number] {
  for (let row = 0; row < 4; row++) {
    const column = DTMF_KEYS[row]!.indexOf(key);
    if (column >= 0 && key.length === 1) return [DTMF_ROWS[row]!, DTMF_COLUMNS[column]!];
  }
  throw new Error(`not a DTMF key: ${key}`);
}

export interface DtmfKeyEvent {
  readonly key: string;
  readonly startSample: number;
  readonly endSample: number;
}

/** `seconds` of dialled numbers, each key's RMS `onDbfs`; returns the samples and where each key sounds. */
export function dtmfSequence(seconds: number, onDbfs: number, random: Random): { samples: Float32Array; keys: DtmfKeyEvent[] } {
  const out = new Float32Array(Math.round(seconds * RATE));
  const keys: DtmfKeyEvent[] = [];
  const between = (a: number, b: number): number => Math.round((a + (b - a) * random()) * RATE);
  // Row at a, column at a * 10^(2/20): RMS of both = sqrt((a^2 + c^2) / 2).
  const twist = fromDb(2);
  const row = fromDb(onDbfs) / Math.sqrt((1 + twist * twist) / 2);
  let at = between(0.2, 1.2);
  while (at < out.length) {
    const digits = 7 + Math.floor(random() * 5);
    for (let d = 0; d < digits && at < out.length; d++) {
      const key = '0123456789*#'[Math.floor(random() * 12)]!;
      const length = between(0.065, 0.12);
      const frequencies = dtmfFrequencies(key);
      addBurst(out, at, at + length, frequencies, [row, row * twist], [random() * 2 * Math.PI, random() * 2 * Math.PI]);
      if (at + length <= out.length) keys.push({ key, startSample: at, endSample: at + length });
      at += length + between(0.065, 0.15);
    }
    at += between(0.8, 2.5);
  }
  return { samples: out, keys };
}
