/**
 * The decoder each CTC model runs with, from its manifest: `decoding.default: "beam"` gives a
 * prefix beam search of `decoding.beam_width`, fused with the model's `lm` (alpha, beta) when it
 * names one; `"greedy"` (the default) gives best-path decoding and ignores any LM.
 *
 * LM files are read once (one Buffer each, shared by every model that names the same file) by
 * `loadLanguageModels`, before any recognizer is built, so building a decoder never touches disk.
 */
import { CtcBeamDecoder } from '../decoding/ctc-beam-decoder.js';
import { CtcGreedyDecoder } from '../decoding/ctc-greedy-decoder.js';
import { CharNgramLm } from '../lm/char-ngram-lm.js';
import type { LoadedCtcModel, LoadedModel } from '../models/model-loader.js';
import type { DecoderFactory } from './ctc-recognizer.js';

export interface LanguageModelLoad {
  /** Loaded LMs by absolute path. */
  readonly models: ReadonlyMap<string, CharNgramLm>;
  /** LM files that could not be read, with the model folder that names them. */
  readonly problems: readonly { dir: string; message: string }[];
}

/** Reads the LM of every beam-decoding model. A model whose LM fails to load decodes greedily. */
export async function loadLanguageModels(models: readonly LoadedModel[]): Promise<LanguageModelLoad> {
  const loaded = new Map<string, CharNgramLm>();
  const problems: { dir: string; message: string }[] = [];
  const failed = new Map<string, string>();
  for (const model of models) {
    if (model.kind !== 'ctc' || model.lmPath === null || model.manifest.decoding.default !== 'beam') continue;
    const path = model.lmPath;
    if (!loaded.has(path) && !failed.has(path)) {
      try {
        loaded.set(path, await CharNgramLm.load(path));
      } catch (error) {
        failed.set(path, (error as Error).message);
      }
    }
    const message = failed.get(path);
    if (message !== undefined) problems.push({ dir: model.dir, message: `language model not loaded, decoding greedily: ${message}` });
  }
  return { models: loaded, problems };
}

export function manifestDecoderFactory(lms: ReadonlyMap<string, CharNgramLm>): DecoderFactory {
  return (model: LoadedCtcModel) => {
    const { decoding, lm } = model.manifest;
    if (decoding.default !== 'beam') return new CtcGreedyDecoder(model.vocabulary);
    const loaded = model.lmPath !== null ? lms.get(model.lmPath) : undefined;
    if (model.lmPath !== null && !loaded) return new CtcGreedyDecoder(model.vocabulary);
    return new CtcBeamDecoder(model.vocabulary, {
      beamWidth: decoding.beamWidth,
      lm: loaded && lm ? { model: loaded, alpha: lm.alpha, beta: lm.beta } : null,
    });
  };
}
