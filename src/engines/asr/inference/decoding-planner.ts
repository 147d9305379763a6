/**
 * The decoding each CTC model runs with, from its manifest: `decoding.default: "beam"` gives a
 * prefix beam search of `decoding.beam_width`, fused with the model's `lm` (alpha, beta) when it
 * names one; `"greedy"` (the default) gives best-path decoding and ignores any LM.
 *
 * The plan is data (src/engines/asr/decoding/decoding-plan.ts): the inference workers build the decoder and
 * decode next to the model run. `loadLanguageModels` reads every LM once at startup to check
 * it; a model whose LM does not load decodes greedily, and the problem is reported.
 */
import { GREEDY, type DecodingPlan } from '../decoding/decoding-plan.js';
import { CharNgramLm } from '../decoding/lm/char-ngram-lm.js';
import type { LoadedCtcModel, LoadedModel } from '../models/model-loader.js';

/** Chooses the decoding of a model; `Speech` uses manifestDecodingPlanner. */
export type DecodingPlanner = (model: LoadedCtcModel) => DecodingPlan;

export const greedyPlanner: DecodingPlanner = () => GREEDY;

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

/** Plans from each manifest; `usableLms` are the LM paths that loaded (loadLanguageModels). */
export function manifestDecodingPlanner(usableLms: { has(path: string): boolean }): DecodingPlanner {
  return (model: LoadedCtcModel) => {
    const { decoding, lm } = model.manifest;
    if (decoding.default !== 'beam') return GREEDY;
    if (model.lmPath !== null && !usableLms.has(model.lmPath)) return GREEDY;
    return {
      kind: 'beam',
      beamWidth: decoding.beamWidth,
      lm: model.lmPath !== null && lm ? { path: model.lmPath, alpha: lm.alpha, beta: lm.beta } : null,
    };
  };
}
