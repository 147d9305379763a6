import type { LoadedModel } from '../models/model-loader.js';
import type { PoolModelSpec } from './inference-protocol.js';

/**
 * The pool's view of a model folder: where the ONNX file is and how to feed it. Callers send
 * 16 kHz mono PCM; the inference worker prepares the model's input from it (`prepare`).
 */
export function poolSpecFor(model: LoadedModel): PoolModelSpec {
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
  };
}
