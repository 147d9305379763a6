// LIVE_PARTIAL_MODELS (issue 30): a session on model K may take its live partials from the live
// stream of a cheaper model V (say a short look-ahead model) while K still decodes every turn.
// Rules, checked once at start-up (a broken pair stops it, naming the pair): K and V are CTC
// models of the registry, of the same language, with the same vocabulary (keyterms are checked
// against K's and boosted in V's beam), and V has a streaming step graph. V need not be a
// default; a pair's key need not be served to anyone (it simply never applies).
import { substituteProblem, type ModelLookup } from './model-substitutes.js';

/** The reason the pair `model=partials` cannot serve, or null when it can. */
export function partialModelProblem(models: ModelLookup, model: string, partials: string): string | null {
  const problem = substituteProblem(models, model, partials);
  if (problem !== null) return problem;
  const stream = models.get(partials);
  if (stream?.kind !== 'ctc' || !stream.streaming) return `${partials} has no streaming step graph (streaming.onnx with stream-stats.json)`;
  return null;
}

/** Throws on the first pair that breaks a rule (start-up). */
export function checkPartialModels(models: ModelLookup, pairs: ReadonlyMap<string, string> | undefined): void {
  for (const [model, partials] of pairs ?? []) {
    const problem = partialModelProblem(models, model, partials);
    if (problem !== null) throw new Error(`LIVE_PARTIAL_MODELS ${model}=${partials}: ${problem}`);
  }
}
