import { PauseSegmenter } from './pause-segmenter.js';
import type { LoadedLanguageIdModel } from '../models/model-loader.js';
import type { ModelRegistry } from '../models/model-registry.js';
import { CtcRecognizer, runWithRetry } from './ctc-recognizer.js';
import { ModelRunError } from '../inference/inference-errors.js';
import type { InferencePool } from '../inference/inference-pool.js';
import { poolSpecFor } from '../inference/model-specs.js';

export interface LanguageDetection {
  readonly language: string;
  /** Score per candidate language: probabilities for a language-id model, mean token confidence for the fallback. */
  readonly scores: Readonly<Record<string, number>>;
  readonly method: 'language_id_model' | 'ctc_confidence' | 'single_language';
}

export interface LanguageDetector {
  /** `pcm`: 16 kHz mono; only its first `seconds` of speech are used. */
  detect(pcm: Float32Array, signal?: AbortSignal): Promise<LanguageDetection>;
}

export const DETECTION_SECONDS = 10;

/** The speech of `pcm` (pauses removed) up to `seconds`; the whole input when it has no detectable speech. */
export function speechHead(pcm: Float32Array, seconds = DETECTION_SECONDS): Float32Array {
  const limit = Math.round(seconds * 16_000);
  const segmenter = new PauseSegmenter({ minSegmentMs: 500, maxSegmentMs: 5_000 });
  const parts = [...segmenter.push(pcm), ...segmenter.flush()].filter((s) => s.speech).map((s) => s.samples);
  if (parts.length === 0) return pcm.subarray(0, limit);
  const total = Math.min(
    limit,
    parts.reduce((n, p) => n + p.length, 0),
  );
  const out = new Float32Array(total);
  let at = 0;
  for (const part of parts) {
    if (at >= total) break;
    const take = Math.min(part.length, total - at);
    out.set(part.subarray(0, take), at);
    at += take;
  }
  return out;
}

const softmax = (row: Float32Array): number[] => {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of row) max = Math.max(max, v);
  const exps = Array.from(row, (v) => Math.exp(v - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((v) => v / sum);
};

/** Uses a `language_id` model (waveform in, one logit per label out), restricted to languages that have models. */
export class ModelLanguageDetector implements LanguageDetector {
  constructor(
    private readonly pool: InferencePool,
    private readonly model: LoadedLanguageIdModel,
    private readonly candidates: readonly string[],
  ) {
    pool.register(poolSpecFor(model));
  }

  async detect(pcm: Float32Array, signal?: AbortSignal): Promise<LanguageDetection> {
    const head = speechHead(pcm);
    let padded = head;
    if (head.length < 1600) {
      padded = new Float32Array(1600);
      padded.set(head);
    }
    const result = await runWithRetry(this.pool, this.model.name, { data: padded, length: padded.length }, { priority: 'interactive', signal });
    const labels = this.model.manifest.labels;
    if (result.output.length !== labels.length) {
      throw new ModelRunError(this.model.name, `language-id output has ${result.output.length} scores per row; the manifest lists ${labels.length} labels`);
    }
    const probabilities = softmax(result.output);
    const scores: Record<string, number> = {};
    labels.forEach((label, i) => {
      if (this.candidates.includes(label)) scores[label] = Math.round(probabilities[i]! * 10_000) / 10_000;
    });
    const best = Object.entries(scores).sort((a, b) => b[1] - a[1])[0];
    if (!best) throw new ModelRunError(this.model.name, `none of its labels (${labels.join(', ')}) has a transcription model`);
    return { language: best[0], scores, method: 'language_id_model' };
  }
}

/**
 * FALLBACK used only when no `language_id` model is installed: runs each language's default
 * CTC model on the first seconds of speech and picks the language whose model is most
 * confident (mean token probability; a model that emits nothing scores 0). It costs one
 * model run per language and is only as good as the models' calibration.
 * The score is each recognition's `confidence`: calibrated where the model has a calibration
 * (the am defaults), raw where not (om, ti). Comparing raw scores for all was measured on
 * 2026-12-03 (bench/language-detection.ts) and not kept: 83.0% against 88.3% of 230 held-out
 * clips with small-am-v6, 87.8% either way with small-am-v7.
 */
export class CtcConfidenceLanguageDetector implements LanguageDetector {
  constructor(private readonly recognizers: ReadonlyMap<string, CtcRecognizer>) {}

  async detect(pcm: Float32Array, signal?: AbortSignal): Promise<LanguageDetection> {
    const languages = [...this.recognizers.keys()];
    if (languages.length === 0) throw new Error('no language has a model');
    if (languages.length === 1) return { language: languages[0]!, scores: { [languages[0]!]: 1 }, method: 'single_language' };
    const head = speechHead(pcm);
    const results = await Promise.all(
      languages.map(async (language) => {
        const recognition = await this.recognizers.get(language)!.recognize(head, { priority: 'interactive', signal });
        return [language, recognition.confidence ?? 0] as const;
      }),
    );
    const scores = Object.fromEntries(results);
    const best = [...results].sort((a, b) => b[1] - a[1])[0]!;
    return { language: best[0], scores, method: 'ctc_confidence' };
  }
}

/** The detector for `language=auto`: the language-id model when installed and useful, else the CTC-confidence fallback. */
export function createLanguageDetector(registry: ModelRegistry, pool: InferencePool, recognizerFor: (language: string) => CtcRecognizer): LanguageDetector {
  const languages = registry.languages();
  const lid = registry.languageIdModel();
  if (lid && lid.manifest.labels.some((label) => languages.includes(label))) return new ModelLanguageDetector(pool, lid, languages);
  return new CtcConfidenceLanguageDetector(new Map(languages.map((language) => [language, recognizerFor(language)])));
}
