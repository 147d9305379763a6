/** Vocabulary of a CTC model: token ids are indices into `tokens`. */
export interface CtcVocabulary {
  readonly tokens: readonly string[];
  readonly blankId: number;
  /** Token that stands for a space between words (wav2vec2 uses "|"); null when spaces are ordinary tokens. */
  readonly wordDelimiter: string | null;
}

/** One emitted token with the output frames it spans (inclusive start, exclusive end). */
export interface CtcToken {
  readonly id: number;
  readonly startFrame: number;
  readonly endFrame: number;
  /** Mean posterior probability of the token over its frames, 0..1. */
  readonly probability: number;
}

export interface CtcWord {
  readonly text: string;
  readonly startFrame: number;
  readonly endFrame: number;
  readonly confidence: number;
}

export interface CtcHypothesis {
  readonly text: string;
  readonly tokens: readonly CtcToken[];
  readonly words: readonly CtcWord[];
  /** Mean token probability of the hypothesis, 0..1; 1 for an empty hypothesis. */
  readonly confidence: number;
}

/**
 * Scores over one utterance: `frames` rows of `vocabSize` values, row-major.
 * `data` may be a view into a larger batch buffer; decoders read it and keep no reference.
 * Values are logits or log-probabilities; decoders normalise rows themselves.
 */
export interface CtcScores {
  readonly data: Float32Array;
  readonly frames: number;
  readonly vocabSize: number;
}

export interface CtcDecoder {
  decode(scores: CtcScores): CtcHypothesis;
}
