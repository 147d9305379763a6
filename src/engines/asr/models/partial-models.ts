// LIVE_PARTIAL_MODELS (issue 30): a session on model K may take its live partials from the live
// stream of a cheaper model V (say a short look-ahead model) while K still decodes every turn.
// Rules, checked once at start-up (a broken pair stops it, naming the pair): K and V are CTC
// models of the registry, of the same language, with the same vocabulary (keyterms are checked
// against K's and boosted in V's beam), and V has a streaming step graph. V need not be a
// default; a pair's key need not be served to anyone (it simply never applies).
import type { LoadedModel } from './model-loader.js';

export interface ModelLookup {
  get(name: string): LoadedModel | undefined;
}

/** The reason the pair `model=partials` cannot serve, or null when it can. */
export function partialModelProblem(models: ModelLookup, model: string, partials: string): string | null {
  const session = models.get(model);
  const stream = models.get(partials);
  if (session?.kind !== 'ctc') return `${model} is not a speech model here`;
  if (stream?.kind !== 'ctc') return `${partials} is not a speech model here`;
  if (session.language !== stream.language) return `${partials} (${stream.language}) is not of ${model}'s language (${session.language})`;
  const a = session.vocabulary;
  const b = stream.vocabulary;
  const same =
    a.blankId === b.blankId && a.wordDelimiter === b.wordDelimiter && a.tokens.length === b.tokens.length && a.tokens.every((t, i) => t === b.tokens[i]);
  if (!same) return `${partials} has another vocabulary than ${model}`;
  if (!stream.streaming) return `${partials} has no streaming step graph (streaming.onnx with stream-stats.json)`;
  return null;
}

/** Throws on the first pair that breaks a rule (start-up). */
export function checkPartialModels(models: ModelLookup, pairs: ReadonlyMap<string, string> | undefined): void {
  for (const [model, partials] of pairs ?? []) {
    const problem = partialModelProblem(models, model, partials);
    if (problem !== null) throw new Error(`LIVE_PARTIAL_MODELS ${model}=${partials}: ${problem}`);
  }
}
