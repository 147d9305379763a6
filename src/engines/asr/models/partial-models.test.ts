import { describe, expect, it } from 'vitest';
import type { LoadedCtcModel, LoadedModel } from './model-loader.js';
import { checkPartialModels, partialModelProblem } from './partial-models.js';

const TOKENS = ['<blank>', '|', 'a', 'b'];
function ctc(name: string, over: { language?: string; tokens?: string[]; streaming?: boolean } = {}): LoadedCtcModel {
  return {
    kind: 'ctc',
    name,
    language: over.language ?? 'am',
    dir: `/models/${name}`,
    onnxPath: `/models/${name}/model.onnx`,
    lmPath: null,
    vocabulary: { tokens: over.tokens ?? TOKENS, blankId: 0, wordDelimiter: '|' },
    streaming: over.streaming === false ? null : { onnxPath: `/models/${name}/streaming.onnx`, statistics: { mean: [], std: [] } as never },
  } as unknown as LoadedCtcModel;
}
const models = new Map<string, LoadedModel>(
  [
    ctc('big'),
    ctc('cheap'),
    ctc('no-graph', { streaming: false }),
    ctc('tigrinya', { language: 'ti' }),
    ctc('other-vocab', { tokens: ['<blank>', '|', 'a', 'c'] }),
    { kind: 'language_id', name: 'lid' } as unknown as LoadedModel,
  ].map((m) => [m.name, m]),
);

describe('LIVE_PARTIAL_MODELS pairs', () => {
  it('accepts a model of the same language and vocabulary with a step graph', () => {
    expect(partialModelProblem(models, 'big', 'cheap')).toBeNull();
    // the session's model needs no graph of its own
    expect(partialModelProblem(models, 'no-graph', 'cheap')).toBeNull();
    expect(() => checkPartialModels(models, new Map([['big', 'cheap']]))).not.toThrow();
    expect(() => checkPartialModels(models, undefined)).not.toThrow();
  });

  it('refuses unknown models, another language, another vocabulary and a model without a step graph', () => {
    expect(partialModelProblem(models, 'missing', 'cheap')).toBe('missing is not a speech model here');
    expect(partialModelProblem(models, 'big', 'lid')).toBe('lid is not a speech model here');
    expect(partialModelProblem(models, 'big', 'tigrinya')).toBe("tigrinya (ti) is not of big's language (am)");
    expect(partialModelProblem(models, 'big', 'other-vocab')).toBe('other-vocab has another vocabulary than big');
    expect(partialModelProblem(models, 'big', 'no-graph')).toMatch(/no-graph has no streaming step graph/);
    expect(() =>
      checkPartialModels(
        models,
        new Map([
          ['big', 'cheap'],
          ['big2', 'no-graph'],
        ]),
      ),
    ).toThrow(/^LIVE_PARTIAL_MODELS big2=no-graph: big2 is not a speech model here$/);
  });
});
