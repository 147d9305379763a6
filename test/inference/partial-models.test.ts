// LIVE_PARTIAL_MODELS against the shipped models folder: the pairs an operator would write, and
// Asr.create refusing a broken pair before any worker starts (start-up stops, naming the pair).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Asr } from '../../src/engines/asr/asr.js';
import { ModelRegistry } from '../../src/engines/asr/models/model-registry.js';
import { partialModelProblem } from '../../src/engines/asr/models/partial-models.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

const MODELS = join(REPO_ROOT, 'models');

describe('LIVE_PARTIAL_MODELS with the shipped models', () => {
  it('pairs small-am-v2 with a bounded look-ahead model, and refuses other languages and models without a step graph', async () => {
    const registry = await ModelRegistry.scan(MODELS);
    expect(partialModelProblem(registry, 'small-am-v2', 'small-am-stream-v3')).toBeNull();
    expect(partialModelProblem(registry, 'small-am-v2', 'small-am-stream-v1')).toBeNull();
    // the ensemble has a step graph of its own: either way round is a valid pair
    expect(partialModelProblem(registry, 'small-am-v4-ensemble', 'small-am-v2')).toBeNull();
    expect(partialModelProblem(registry, 'small-am-v2', 'small-am-v4-ensemble')).toBeNull();
    expect(partialModelProblem(registry, 'small-am-v2', 'small-am-v3-ensemble')).toMatch(/no streaming step graph/);
    expect(partialModelProblem(registry, 'small-am-v2', 'small-om-v2')).toMatch(/not of small-am-v2's language/);
    expect(partialModelProblem(registry, 'small-am-v2', 'small-am-v1')).toMatch(/small-am-v1 has (another vocabulary|no streaming step graph)/);
  });

  it('Asr.create refuses a broken pair', async () => {
    await expect(Asr.create({ modelsDir: MODELS, preload: false, workers: 1, partialModels: new Map([['small-am-v2', 'small-ti-v2']]) })).rejects.toThrow(
      /^LIVE_PARTIAL_MODELS small-am-v2=small-ti-v2: small-ti-v2 \(ti\) is not of small-am-v2's language \(am\)$/,
    );
  });
});
