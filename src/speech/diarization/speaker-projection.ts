import { readFile } from 'node:fs/promises';

/**
 * A linear map from window statistics (MFCC means and deviations) to a space where speakers
 * separate: `matrix` is [inputDim][outputDim] row-major. Loaded once per process; immutable.
 */
export interface SpeakerProjection {
  readonly name: string;
  readonly inputDim: number;
  readonly outputDim: number;
  readonly matrix: Float32Array;
}

/** The identity on the first `outputDim` statistics: the untrained classical embedding (for comparison). */
export function identityProjection(inputDim: number): SpeakerProjection {
  const matrix = new Float32Array(inputDim * inputDim);
  for (let i = 0; i < inputDim; i++) matrix[i * inputDim + i] = 1;
  return { name: 'identity', inputDim, outputDim: inputDim, matrix };
}

/** Reads `{ name, input_dim, output_dim, matrix: number[][] }` (models/diarization/*.json). */
export async function loadSpeakerProjection(path: string): Promise<SpeakerProjection> {
  const raw = JSON.parse(await readFile(path, 'utf8')) as { name?: unknown; input_dim?: unknown; output_dim?: unknown; matrix?: unknown };
  const inputDim = Number(raw.input_dim);
  const outputDim = Number(raw.output_dim);
  const rows = raw.matrix;
  if (!Number.isInteger(inputDim) || !Number.isInteger(outputDim) || !Array.isArray(rows) || rows.length !== inputDim) {
    throw new Error('speaker projection: input_dim, output_dim and an input_dim x output_dim matrix are required');
  }
  const matrix = new Float32Array(inputDim * outputDim);
  rows.forEach((row: unknown, i) => {
    if (!Array.isArray(row) || row.length !== outputDim) throw new Error(`speaker projection: row ${i} must have ${outputDim} numbers`);
    row.forEach((x: unknown, o) => {
      matrix[i * outputDim + o] = Number(x);
    });
  });
  return { name: typeof raw.name === 'string' ? raw.name : 'speaker-projection', inputDim, outputDim, matrix };
}
