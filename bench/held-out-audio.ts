/**
 * Audio for the file speech gate and confidence calibration measurements (issue 28;
 * bench/file-speech-gate.ts, bench/confidence-calibration.ts): held-out ALFFA Amharic utterances
 * by speaker group, degraded copies of them, and synthetic non-speech clips.
 *
 * Rules:
 * - Utterances come from the ALFFA speaker split (training/common/splits): the validation groups
 *   041, 091, 131 and the test groups 021, 231, none of which small-am-v2 trained on. `perGroup`
 *   takes the first n ids of each group (ids in numeric order), so a smaller run is a subset.
 * - Degradations: pink noise added at an SNR against the utterance's RMS over its whole length
 *   (silences included; around its mean: the recordings carry a DC offset), a gain (e.g. -30 dB), or hard clipping at a level under the utterance's
 *   peak. The noise of an utterance is seeded by its index, so runs repeat.
 * - Non-speech: `seconds` of each kind (white, pink, brown noise at -60, -45 and -30 dBFS RMS;
 *   50 Hz and 60 Hz mains hum at -35 dBFS; dial, ringback and busy tones at -20 dBFS while on; DTMF
 *   digits; synthetic music of three seeds at -25 dBFS; clicks, pops and keyboard-like typing at
 *   -20 dBFS peak), built by the corpus generators (bench/robustness-noises.ts,
 *   bench/robustness-tones.ts) and training/common/music-synth.ts from `seed`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKaldiText } from '../src/engines/asr/decoding/lm/lm-corpus.js';
import { loadLanguageModels, manifestDecodingPlanner } from '../src/engines/asr/inference/decoding-planner.js';
import { InferencePool } from '../src/engines/asr/inference/inference-pool.js';
import { type LoadedCtcModel, loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { CtcRecognizer } from '../src/engines/asr/recognition/ctc-recognizer.js';
import { decodeFile } from '../training/common/decoded-file.js';
import { synthesiseMusic } from '../training/common/music-synth.js';
import { seededRandom } from '../training/common/seeded-random.js';
import { atLevel, atPeak, brownNoise, clicks, keyboard, mainsHum, pinkNoise, pops, whiteNoise } from './robustness-noises.js';
import { callProgressTone, dtmfSequence } from './robustness-tones.js';
import { type G711Law, telephoneChannel } from './telephone-channel.js';
import { wavOf } from '../test/helpers/fixtures.js';

export const VALIDATION_GROUPS = ['041', '091', '131'] as const;
export const TEST_GROUPS = ['021', '231'] as const;

export interface HeldOutUtterance {
  readonly id: string;
  readonly group: string;
  readonly reference: string;
  readonly pcm: Float32Array;
}

const SPLITS = join(import.meta.dirname, '..', 'training', 'common', 'splits');

/** The group of an ALFFA id `tr_<n>_tr<GGG><UUU>`. */
export const groupOf = (id: string): string => id.slice(id.lastIndexOf('_tr') + 3, id.lastIndexOf('_tr') + 6);

/** The first `perGroup` utterances (numeric id order) of each of `groups`, decoded to 16 kHz. */
export async function heldOutUtterances(dataDir: string, groups: readonly string[], perGroup: number): Promise<HeldOutUtterance[]> {
  const folder = join(dataDir, 'alffa-am-train');
  const texts = parseKaldiText(readFileSync(join(folder, 'text'), 'utf8'));
  const ids = ['alffa-spk-val.txt', 'alffa-spk-test.txt']
    .flatMap((file) => readFileSync(join(SPLITS, file), 'utf8').split('\n'))
    .map((line) => line.trim())
    .filter((id) => id.length > 0 && groups.includes(groupOf(id)))
    .sort((a, b) => Number(a.split('_')[1]) - Number(b.split('_')[1]));
  const chosen = groups.flatMap((group) => ids.filter((id) => groupOf(id) === group).slice(0, perGroup));
  const out: HeldOutUtterance[] = [];
  for (const id of chosen) {
    const reference = texts.get(id);
    if (reference === undefined) throw new Error(`no transcript for ${id}`);
    out.push({ id, group: groupOf(id), reference, pcm: await decodeFile(join(folder, 'flac', `${id}.flac`)) });
  }
  return out;
}

/**
 * 16 kHz audio as a G.711 call brings it to the gateway: the telephone channel (8 kHz, 300-3,400
 * Hz, companded; bench/telephone-channel.ts) written as an 8 kHz WAV and decoded to 16 kHz by the
 * file path's decoder, as an 8 kHz upload is (and as held-out-decoding.ts --audio-dir reads calls).
 */
export async function overCall(pcm: Float32Array, law: G711Law): Promise<Float32Array> {
  const call = telephoneChannel(pcm, law);
  const dir = mkdtempSync(join(tmpdir(), 'over-call-'));
  try {
    const path = join(dir, 'call.wav');
    writeFileSync(path, wavOf(Buffer.from(call.buffer, call.byteOffset, call.byteLength), 8_000));
    return await decodeFile(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A bench's `--channel`: the audio as recorded (`wideband`), or over a G.711 call of that law. */
export type ListeningChannel = 'wideband' | G711Law;

export function listeningChannel(value: string): ListeningChannel {
  if (value !== 'wideband' && value !== 'mulaw' && value !== 'alaw') throw new Error('--channel must be mulaw or alaw');
  return value;
}

/** `pcm` as a model on `channel` receives it. */
export function receivedOver(channel: ListeningChannel, pcm: Float32Array): Promise<Float32Array> {
  return channel === 'wideband' ? Promise.resolve(pcm) : overCall(pcm, channel);
}

/** The RMS of `pcm` around its mean (ALFFA recordings carry a DC offset, which is no sound). */
export function acRms(pcm: Float32Array): number {
  let mean = 0;
  for (const v of pcm) mean += v / pcm.length;
  let sum = 0;
  for (const v of pcm) sum += (v - mean) ** 2;
  return Math.sqrt(sum / Math.max(1, pcm.length));
}

/** `pcm` with pink noise at `snrDb` against its RMS around its mean (seeded by `seed`). */
export function withPinkNoise(pcm: Float32Array, snrDb: number, seed: number): Float32Array {
  const noise = atLevel(pinkNoise(pcm.length / 16_000, seededRandom(seed)), 20 * Math.log10(acRms(pcm)) - snrDb);
  return pcm.map((v, i) => v + (noise[i] ?? 0));
}

/** `pcm` scaled by `db`. */
export function withGain(pcm: Float32Array, db: number): Float32Array {
  const gain = 10 ** (db / 20);
  return pcm.map((v) => v * gain);
}

/** `pcm` hard-clipped at `belowPeakDb` under its peak, then brought back to its peak level. */
export function clipped(pcm: Float32Array, belowPeakDb: number): Float32Array {
  let peak = 0;
  for (const v of pcm) peak = Math.max(peak, Math.abs(v));
  const limit = peak * 10 ** (-belowPeakDb / 20);
  return pcm.map((v) => (Math.max(-limit, Math.min(limit, v)) * peak) / Math.max(limit, 1e-9));
}

export interface NonSpeechClip {
  readonly kind: string;
  readonly pcm: Float32Array;
}

/** One clip of `seconds` of each non-speech kind (the rules above), from `seed`. */
export function nonSpeechClips(seconds: number, seed: number): NonSpeechClip[] {
  let n = 0;
  const random = (): (() => number) => seededRandom(seed * 1009 + n++);
  const clips: NonSpeechClip[] = [];
  for (const level of [-60, -45, -30]) {
    clips.push({ kind: `white ${level} dBFS`, pcm: atLevel(whiteNoise(seconds, random()), level) });
    clips.push({ kind: `pink ${level} dBFS`, pcm: atLevel(pinkNoise(seconds, random()), level) });
    clips.push({ kind: `brown ${level} dBFS`, pcm: atLevel(brownNoise(seconds, random()), level) });
  }
  clips.push({ kind: 'hum 50 Hz', pcm: atLevel(mainsHum(seconds, 50, random()), -35) });
  clips.push({ kind: 'hum 60 Hz', pcm: atLevel(mainsHum(seconds, 60, random()), -35) });
  clips.push({ kind: 'dial tone', pcm: callProgressTone('dial-etsi', seconds, -20, random()) });
  clips.push({ kind: 'ringback', pcm: callProgressTone('ringback-na', seconds, -20, random()) });
  clips.push({ kind: 'busy', pcm: callProgressTone('busy-etsi', seconds, -20, random()) });
  clips.push({ kind: 'dtmf', pcm: dtmfSequence(seconds, -20, random()).samples });
  for (const music of [1, 2, 3]) clips.push({ kind: `music ${music}`, pcm: atLevel(synthesiseMusic(seed * 31 + music, seconds).pcm, -25) });
  clips.push({ kind: 'clicks', pcm: atPeak(clicks(seconds, random()), -20) });
  clips.push({ kind: 'pops', pcm: atPeak(pops(seconds, random()), -20) });
  clips.push({ kind: 'keyboard', pcm: atPeak(keyboard(seconds, random()), -20) });
  return clips;
}

/**
 * A model folder's CtcRecognizer as the gateway runs it (the manifest's decoding, its LM) on a
 * one-worker inference pool; `calibrated: false` drops the folder's confidence calibration (raw
 * mean token posterior). `close()` ends the pool.
 */
export async function openRecognizer<R extends CtcRecognizer = CtcRecognizer>(
  modelDir: string,
  calibrated = true,
  make: (...args: ConstructorParameters<typeof CtcRecognizer>) => R = (...args) => new CtcRecognizer(...args) as R,
): Promise<{ recognizer: R; model: LoadedCtcModel; close(): Promise<void> }> {
  const loaded = await loadModelFolder(modelDir);
  if (loaded.kind !== 'ctc') throw new Error(`${modelDir} is not a CTC model`);
  const model = calibrated ? loaded : { ...loaded, calibration: null };
  const lms = await loadLanguageModels([model]);
  const pool = await InferencePool.start({ workers: 1, intraOpThreads: 1 });
  const recognizer = make(pool, model, manifestDecodingPlanner(new Set(lms.models.keys())));
  return { recognizer, model: loaded, close: () => pool.close() };
}
