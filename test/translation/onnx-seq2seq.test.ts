// The KV cache against recomputation on the shipped model: the logits of a step fed the past
// (decoder_with_past_model.onnx) equal those of the first-step decoder run over the whole prefix,
// for each row of a padded batch; and beam reordering of the past is a row gather.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTranslationManifest } from '../../src/engines/translation/translation.js';
import { gatherRows, OnnxSeq2Seq } from '../../src/engines/translation/onnx-seq2seq.js';
import { TRANSLATION_MODEL_DIR } from '../helpers/translation-model.js';
import * as ort from 'onnxruntime-node';

let model: OnnxSeq2Seq;
const manifest = readTranslationManifest(TRANSLATION_MODEL_DIR);
beforeAll(async () => {
  model = await OnnxSeq2Seq.open(manifest, { intraOpThreads: 1 });
}, 60_000);
afterAll(async () => model?.release());

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

describe('OnnxSeq2Seq', () => {
  it('a cached step gives the logits of recomputing the whole prefix, row by row in a padded batch', async () => {
    const { eos, decoderStart } = manifest.specialIds;
    // Two source rows of different lengths (the second is padded); ids inside the vocabulary.
    const sources = [
      [4, 20, 21, 22, 23, 24, eos],
      [5, 30, 31, eos],
    ];
    const encoded = await model.encode(sources);
    const steps = [
      [40, 41],
      [50, 51],
    ];
    let out = await model.start(
      encoded,
      sources.map(() => [decoderStart]),
    );
    for (let t = 0; t < 3; t++) {
      const tokens = steps.map((s) => s[t % s.length]!);
      out = await model.step(encoded, tokens, out.past);
    }
    const prefixes = steps.map((s) => [decoderStart, s[0]!, s[1]!, s[0]!]);
    const recomputed = await model.start(encoded, prefixes);
    expect(out.logits.length).toBe(recomputed.logits.length);
    expect(maxAbsDiff(out.logits, recomputed.logits)).toBeLessThan(1e-3);
  }, 60_000);

  it('gatherRows picks and repeats rows', () => {
    const tensor = new ort.Tensor('float32', Float32Array.from([1, 2, 3, 4, 5, 6]), [3, 2]);
    const gathered = gatherRows(tensor, [2, 0, 0]);
    expect(gathered.dims).toEqual([3, 2]);
    expect(Array.from(gathered.data as Float32Array)).toEqual([5, 6, 1, 2, 1, 2]);
  });
});
