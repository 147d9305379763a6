import type { DecodingPlan } from '../decoding/decoding-plan.js';
import type { LoadedModel } from '../models/model-loader.js';
import type { PoolModelSpec } from './inference-protocol.js';

/**
 * The pool's view of a model folder: where the ONNX file is and how to feed it. Callers send
 * 16 kHz mono PCM; the inference worker prepares the model's input from it (`prepare`) and, for
 * a CTC model given a decoding plan, decodes each row after the run (`decode`).
 */
export function poolSpecFor(model: LoadedModel, decoding: DecodingPlan | null = null): PoolModelSpec {
  const { manifest } = model;
  return {
    name: model.name,
    onnxPath: model.onnxPath,
    inputName: manifest.io.audio,
    lengthsName: manifest.io.lengths,
    outputName: manifest.io.logits,
    outLengthsName: manifest.kind === 'ctc' ? manifest.io.outLengths : null,
    prepare: manifest.input,
    maxBatchSize: manifest.maxBatchSize,
    decode:
      model.kind === 'ctc' && decoding !== null
        ? { vocabulary: model.vocabulary, plan: decoding, frameStrideSamples: model.manifest.frameStrideSamples }
        : null,
    streaming: model.kind === 'ctc' && decoding !== null ? (model.streaming ?? null) : null,
  };
}
