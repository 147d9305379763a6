// CTC scores of recorded utterances for the offline decoding figures (bench/decoding-lm.ts,
// training/asr/held-out-decoding.ts, training/lm/word-lm-decoding.ts): the audio is decoded with
// ffmpeg, featurised by the gateway's own InputPreparer and run through onnxruntime-node, one
// utterance at a time. Offline only: one session per call, released before it returns.
import * as ort from 'onnxruntime-node';
import { type CtcScores, InputPreparer, type LoadedCtcModel, resolveMediaTools } from '../../src/engines/training.js';
import { decodeFile } from './decoded-file.js';

export interface Utterance {
  readonly id: string;
  readonly reference: string;
  readonly scores: CtcScores;
  readonly seconds: number;
}

/** One utterance per id: `audioPath(id)` is its audio file, `texts.get(id)` its reference. */
export async function ctcUtterances(
  model: LoadedCtcModel,
  texts: Map<string, string>,
  ids: readonly string[],
  audioPath: (id: string) => string,
): Promise<Utterance[]> {
  const session = await ort.InferenceSession.create(model.onnxPath, { intraOpNumThreads: 1, logSeverityLevel: 3 });
  const tools = resolveMediaTools();
  const preparer = new InputPreparer(model.manifest.input);
  const io = model.manifest.io;
  const out: Utterance[] = [];
  try {
    for (const id of ids) {
      const pcm = await decodeFile(audioPath(id), tools.ffmpeg);
      const input = preparer.prepare(pcm);
      const dims = preparer.featureDim > 0 ? [1, input.length, preparer.featureDim] : [1, input.length];
      const feeds: Record<string, ort.Tensor> = { [io.audio]: new ort.Tensor('float32', input.data, dims) };
      if (io.lengths !== null) feeds[io.lengths] = new ort.Tensor('int64', BigInt64Array.from([BigInt(input.length)]), [1]);
      const result = await session.run(feeds);
      const logits = result[io.logits]!;
      const V = logits.dims[2]!;
      let frames = logits.dims[1]!;
      if (io.outLengths && result[io.outLengths]) frames = Math.min(frames, Number((result[io.outLengths]!.data as BigInt64Array)[0]));
      out.push({
        id,
        reference: texts.get(id)!,
        scores: { data: (logits.data as Float32Array).slice(0, frames * V), frames, vocabSize: V },
        seconds: pcm.length / 16000,
      });
    }
  } finally {
    await session.release();
  }
  return out;
}
