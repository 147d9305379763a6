import { readFile } from 'node:fs/promises';
import { type IvectorExtractor, ivectorExtractor } from './speaker-ivectors.js';

/**
 * The speaker model diarization embeds windows with (models/diarization/*.json): an i-vector
 * extractor (`kind: 'ivector'`), or a linear map of MFCC window statistics. Loaded once per call; immutable.
 */
export type SpeakerProjection = LinearSpeakerProjection | IvectorExtractor;

/**
 * A linear map from window statistics (MFCC means and deviations) to a space where speakers
 * separate: `matrix` is [inputDim][outputDim] row-major.
 */
export interface LinearSpeakerProjection {
  readonly kind: 'linear';
  readonly name: string;
  readonly inputDim: number;
  readonly outputDim: number;
  readonly matrix: Float32Array;
}

/** The identity on the first `outputDim` statistics: the untrained classical embedding (for comparison). */
export function identityProjection(inputDim: number): LinearSpeakerProjection {
  const matrix = new Float32Array(inputDim * inputDim);
  for (let i = 0; i < inputDim; i++) matrix[i * inputDim + i] = 1;
  return { kind: 'linear', name: 'identity', inputDim, outputDim: inputDim, matrix };
}

/**
 * Reads a speaker model: `{ kind: 'ivector', name, ubm_weights, ubm_means, ubm_variances,
 * total_variability[, projection, projection_mean] }` or `{ name, input_dim, output_dim, matrix: number[][] }` (models/diarization/*.json).
 */
export async function loadSpeakerProjection(path: string): Promise<SpeakerProjection> {
  const raw = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  const name = typeof raw['name'] === 'string' ? raw['name'] : 'speaker-projection';
  if (raw['kind'] === 'ivector') {
    const arrays = ['ubm_weights', 'ubm_means', 'ubm_variances', 'total_variability'] as const;
    for (const key of arrays) if (!Array.isArray(raw[key])) throw new Error(`speaker model: ${key} is required`);
    return ivectorExtractor(
      name,
      raw['ubm_weights'] as number[],
      raw['ubm_means'] as number[][],
      raw['ubm_variances'] as number[][],
      raw['total_variability'] as number[][][],
      discriminantOf(raw),
    );
  }
  return linearProjection(name, raw);
}

/** The i-vector model's optional speaker discriminant (`projection` with `projection_mean`), checked by ivectorExtractor. */
function discriminantOf(raw: Record<string, unknown>): { mean: number[]; matrix: number[][] } | null {
  if (raw['projection'] === undefined) return null;
  if (!Array.isArray(raw['projection']) || !Array.isArray(raw['projection_mean']) || !raw['projection'].every(Array.isArray))
    throw new Error('speaker model: projection needs projection_mean, both arrays');
  return { mean: raw['projection_mean'] as number[], matrix: raw['projection'] as number[][] };
}

function linearProjection(name: string, raw: Record<string, unknown>): LinearSpeakerProjection {
  const inputDim = Number(raw['input_dim']);
  const outputDim = Number(raw['output_dim']);
  const rows = raw['matrix'];
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
  return { kind: 'linear', name, inputDim, outputDim, matrix };
}
