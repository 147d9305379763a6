/**
 * A pretrained speaker-embedding network of the WeSpeaker / 3D-Speaker kind, as published for
 * sherpa-onnx (e.g. wespeaker_en_voxceleb_resnet34.onnx, 3dspeaker_speech_campplus_sv_en_voxceleb_16k.onnx):
 * one float32 input [N, T, 80] of Kaldi fbank frames, one float32 output [N, D], and metadata that
 * says how the features are made (src/engines/signal/features/kaldi-fbank.ts). Opening checks
 * the file and its contract and throws an error naming the file and what is wrong.
 *
 * Metadata read (as sherpa-onnx reads it): `framework` wespeaker or 3d-speaker (required);
 * `sample_rate` 16000; `normalize_samples` 1 (samples in [-1, 1]) or 0 (int16 scale, the default
 * of WeSpeaker models); `feature_normalize_type` "" or "global-mean" (each dimension minus its
 * mean over the utterance); `output_dim`, checked against the output when the graph states it.
 * The embedding of a stretch of speech is the network's output for its whole fbank sequence.
 *
 * Diarization (DIARIZATION_EMBEDDING_MODEL): the gateway opens the model once at start-up to check
 * it (`checkSpeakerEmbeddingModel`: a missing file, wrong signature or metadata stops start-up
 * naming the file); each diarization thread opens its own session (one onnxruntime thread, on the
 * diarization thread itself) and, before the pure pipeline runs, embeds every speech window's
 * speech samples (`embedWindows`: stretches of equal length batched together). Both backends then
 * cluster those embeddings by cosine with EMBEDDING_BACKENDS' parameters (diarization-backends.ts;
 * untuned, docs/public-models.md).
 */
import { readFile } from 'node:fs/promises';
import * as ort from 'onnxruntime-node';
import { readOnnxMetadata } from '../runtime/onnx-metadata.js';
import { kaldiFbank } from '../signal/features/kaldi-fbank.js';
import { type ModelWindowEmbeddings, type WindowSpan, windowSpeechSamples } from './speaker-windows.js';
import { cpuSessionOptions } from '../runtime/onnx-session-options.js';

export class SpeakerEmbeddingModelError extends Error {
  constructor(path: string, problem: string) {
    super(`speaker embedding model ${path}: ${problem}`);
    this.name = 'SpeakerEmbeddingModelError';
  }
}

export interface SpeakerEmbeddingContract {
  readonly framework: 'wespeaker' | '3d-speaker';
  readonly normalizeSamples: boolean;
  readonly globalMean: boolean;
  readonly dim: number | null;
}

/** The contract from the model's metadata; throws a message naming the missing or wrong key. */
export function speakerEmbeddingContract(metadata: Readonly<Record<string, string>>): SpeakerEmbeddingContract {
  const framework = metadata.framework;
  if (framework !== 'wespeaker' && framework !== '3d-speaker')
    throw new Error(`metadata framework ${JSON.stringify(framework ?? null)} is not wespeaker or 3d-speaker`);
  if (metadata.sample_rate !== undefined && metadata.sample_rate !== '16000')
    throw new Error(`metadata sample_rate ${metadata.sample_rate}: the gateway feeds 16 kHz`);
  const normalize = metadata.normalize_samples ?? '1';
  if (normalize !== '0' && normalize !== '1') throw new Error(`metadata normalize_samples ${normalize} is not 0 or 1`);
  const norm = metadata.feature_normalize_type ?? '';
  if (norm !== '' && norm !== 'global-mean') throw new Error(`metadata feature_normalize_type ${norm} is not supported (only global-mean)`);
  const dim = metadata.output_dim === undefined ? null : Number(metadata.output_dim);
  if (dim !== null && !(Number.isInteger(dim) && dim > 0)) throw new Error(`metadata output_dim ${metadata.output_dim} is not a positive integer`);
  return { framework, normalizeSamples: normalize === '1', globalMean: norm === 'global-mean', dim };
}

export class SpeakerEmbeddingModel {
  private constructor(
    readonly path: string,
    readonly contract: SpeakerEmbeddingContract,
    private readonly session: ort.InferenceSession,
    private readonly input: string,
    private readonly output: string,
  ) {}

  static async open(path: string, intraOpThreads = 1): Promise<SpeakerEmbeddingModel> {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch {
      throw new SpeakerEmbeddingModelError(path, 'the file is missing or unreadable');
    }
    let contract: SpeakerEmbeddingContract;
    try {
      contract = speakerEmbeddingContract(readOnnxMetadata(bytes));
    } catch (error) {
      throw new SpeakerEmbeddingModelError(path, (error as Error).message);
    }
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(path, cpuSessionOptions({ intraOpThreads }));
    } catch (error) {
      throw new SpeakerEmbeddingModelError(path, `does not load: ${(error as Error).message}`);
    }
    const [input] = session.inputMetadata;
    const [output] = session.outputMetadata;
    const shape = input?.isTensor ? input.shape : null;
    if (
      session.inputNames.length !== 1 ||
      !input?.isTensor ||
      input.type !== 'float32' ||
      shape?.length !== 3 ||
      (typeof shape[2] === 'number' && shape[2] !== 80)
    ) {
      await session.release();
      throw new SpeakerEmbeddingModelError(path, `expected one float32 [N, T, 80] input, found ${session.inputNames.join(', ')}`);
    }
    if (!output?.isTensor || output.type !== 'float32' || output.shape.length !== 2) {
      await session.release();
      throw new SpeakerEmbeddingModelError(path, `expected a float32 [N, D] output, found ${session.outputNames.join(', ')}`);
    }
    return new SpeakerEmbeddingModel(path, contract, session, input.name, output.name);
  }

  /** The embedding of 16 kHz mono PCM in [-1, 1] (at least one 10 ms frame). */
  async embed(pcm: Float32Array): Promise<Float32Array> {
    return (await this.embedBatch([pcm]))[0]!;
  }

  /**
   * The embeddings of several stretches of 16 kHz mono PCM (each at least one 10 ms frame), in
   * order: stretches with the same number of fbank frames go through the network together, at
   * most `maxBatch` at a time ([N, T, 80] in one run).
   */
  async embedBatch(pcms: readonly Float32Array[], maxBatch = 16): Promise<Float32Array[]> {
    const features = pcms.map((pcm) => kaldiFbank(pcm, { normalizeSamples: this.contract.normalizeSamples, globalMean: this.contract.globalMean }));
    if (features.some((f) => f.frames === 0)) throw new SpeakerEmbeddingModelError(this.path, 'no audio to embed');
    const byLength = new Map<number, number[]>();
    features.forEach((f, i) => byLength.set(f.frames, [...(byLength.get(f.frames) ?? []), i]));
    const out = new Array<Float32Array>(pcms.length);
    for (const [frames, indices] of byLength) {
      for (let at = 0; at < indices.length; at += maxBatch) {
        const batch = indices.slice(at, at + maxBatch);
        const bins = features[batch[0]!]!.bins;
        const input = new Float32Array(batch.length * frames * bins);
        batch.forEach((i, row) => input.set(features[i]!.data, row * frames * bins));
        const result = await this.session.run({ [this.input]: new ort.Tensor('float32', input, [batch.length, frames, bins]) });
        const data = result[this.output]!.data as Float32Array;
        const dim = data.length / batch.length;
        if (this.contract.dim !== null && dim !== this.contract.dim)
          throw new SpeakerEmbeddingModelError(this.path, `output has ${dim} values, metadata output_dim says ${this.contract.dim}`);
        batch.forEach((i, row) => {
          out[i] = data.slice(row * dim, (row + 1) * dim);
        });
      }
    }
    return out;
  }

  /**
   * The network's embeddings of diarization windows: each window's speech frames' samples
   * (windowSpeechSamples), embedded in batches, for `diarize` (the windows are speechWindowSpans
   * of the same speech frames).
   */
  async embedWindows(pcm: Float32Array, speech: Uint8Array, spans: readonly WindowSpan[]): Promise<ModelWindowEmbeddings> {
    const embeddings = await this.embedBatch(spans.map((span) => windowSpeechSamples(pcm, speech, span)));
    return { kind: 'model', windows: spans.map((span, i) => ({ startFrame: span.startFrame, endFrame: span.endFrame, embedding: embeddings[i]! })) };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/**
 * Opens the model, embeds one second of silence and releases it: what start-up checks of
 * DIARIZATION_EMBEDDING_MODEL (the file, its metadata, its signature, that it runs). Throws a
 * SpeakerEmbeddingModelError naming the file; answers what the model is.
 */
export async function checkSpeakerEmbeddingModel(path: string): Promise<{ framework: SpeakerEmbeddingContract['framework']; dim: number }> {
  const model = await SpeakerEmbeddingModel.open(path);
  try {
    let dim: number;
    try {
      dim = (await model.embed(new Float32Array(16_000))).length;
    } catch (error) {
      if (error instanceof SpeakerEmbeddingModelError) throw error;
      throw new SpeakerEmbeddingModelError(path, `does not run: ${(error as Error).message}`);
    }
    return { framework: model.contract.framework, dim };
  } finally {
    await model.release();
  }
}
