import type { LoadedModel } from '../models/model-loader.js';
import type { PoolModelSpec } from './inference-protocol.js';

/** The pool's view of a model folder: where the ONNX file is and how to feed it. */
export function poolSpecFor(model: LoadedModel): PoolModelSpec {
  const { manifest } = model;
  return {
    name: model.name,
    onnxPath: model.onnxPath,
    inputName: manifest.io.audio,
    lengthsName: manifest.io.lengths,
    outputName: manifest.io.logits,
    outLengthsName: manifest.kind === 'ctc' ? manifest.io.outLengths : null,
    featureDim: manifest.input.kind === 'log_mel' ? manifest.input.nMels : 0,
    maxBatchSize: manifest.maxBatchSize,
  };
}
