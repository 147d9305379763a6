// A model that stands in for another for part of its work: LIVE_PARTIAL_MODELS (a cheaper model's
// live partials) and a manifest's `telephone_model` (narrow-band audio). Rule: the two are CTC
// models of the registry, of one language, with one vocabulary (so keyterms, the LM and the
// output rules of the one hold for the other).
import type { LoadedModel } from './model-loader.js';

export interface ModelLookup {
  get(name: string): LoadedModel | undefined;
}

/** Why `substitute` cannot stand in for `model`, or null when it can. */
export function substituteProblem(models: ModelLookup, model: string, substitute: string): string | null {
  const original = models.get(model);
  const other = models.get(substitute);
  if (original?.kind !== 'ctc') return `${model} is not a speech model here`;
  if (other?.kind !== 'ctc') return `${substitute} is not a speech model here`;
  if (original.language !== other.language) return `${substitute} (${other.language}) is not of ${model}'s language (${original.language})`;
  const a = original.vocabulary;
  const b = other.vocabulary;
  const same =
    a.blankId === b.blankId && a.wordDelimiter === b.wordDelimiter && a.tokens.length === b.tokens.length && a.tokens.every((t, i) => t === b.tokens[i]);
  if (!same) return `${substitute} has another vocabulary than ${model}`;
  return null;
}
