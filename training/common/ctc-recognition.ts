// A shipped CTC model recognising through the gateway's own runtime, as the training scripts
// measure it (training/asr/evaluate.ts, fixture-cer.ts): loadModelFolder, an InferencePool of one
// worker with one intra-op thread, and a CtcRecognizer decoding greedily or as its manifest says
// (beam search with its LM where it names one).
import { CtcRecognizer, greedyPlanner, InferencePool, type LoadedCtcModel, loadModelFolder, manifestDecodingPlanner } from '../../src/engines/training.js';

export type CtcDecoding = 'greedy' | 'manifest';

/** The CTC model in folder `dir`; anything else is refused. */
export async function loadCtcModel(dir: string): Promise<LoadedCtcModel> {
  const model = await loadModelFolder(dir);
  if (model.kind !== 'ctc') throw new Error(`${dir}: not a CTC model`);
  return model as LoadedCtcModel;
}

/** The pool the scripts recognise through: one worker, one intra-op thread (one core busy at a time). */
export function startMeasuringPool(batching: { maxBatchSize: number; maxWaitMs?: number }): Promise<InferencePool> {
  return InferencePool.start({ workers: 1, intraOpThreads: 1, ...batching });
}

/** A recognizer of `model` on `pool`, decoding greedily or as the manifest says (every LM it names taken as present). */
export function ctcRecognizer(pool: InferencePool, model: LoadedCtcModel, decoding: CtcDecoding): CtcRecognizer {
  return new CtcRecognizer(pool, model, decoding === 'manifest' ? manifestDecodingPlanner({ has: () => true }) : greedyPlanner);
}

/** The rows of a tab-separated file, empty lines left out. */
export function tsvRows(text: string): string[][] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
}
