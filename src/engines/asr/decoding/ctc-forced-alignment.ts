/**
 * Forced alignment of a known text to CTC scores: where each word of the text lies in the audio,
 * by the same model. The reference alignment the word-timing benchmark (bench/word-timings.ts)
 * measures the gateway's word times against. Pure.
 *
 * Rules:
 * - The text is split at whitespace into words; each word becomes tokens by longest match
 *   against the vocabulary, characters the vocabulary lacks are skipped (as training encodes its
 *   targets: training/asr/train.py `encode`), and the word delimiter token goes between words
 *   (the label sequence the model was trained to emit). A word left with no token is not aligned.
 * - The labels are aligned to the frames' log posteriors by the beam decoder's Viterbi aligner
 *   (ctc-alignment.ts `alignTokens`: the best path through the CTC topology, every label on
 *   the frames its non-blank state occupies), so a word spans the frames of its first to its last
 *   token, exactly as the decoders time the words they emit.
 * - `feasible` is false when the frames are too few for the labels (a CTC path needs one frame per
 *   label plus one blank between repeated labels); the times are then not an alignment.
 */
import { alignTokens } from './ctc-alignment.js';
import type { CtcScores, CtcVocabulary } from './ctc-types.js';

export interface AlignedWord {
  /** Position among the text's words (skipped words included). */
  readonly index: number;
  readonly text: string;
  /** Output frames [startFrame, endFrame) of its tokens. */
  readonly startFrame: number;
  readonly endFrame: number;
  /** Mean posterior of its tokens over their frames. */
  readonly confidence: number;
}

export interface ForcedAlignment {
  /** The text's words that have tokens, in order. */
  readonly words: readonly AlignedWord[];
  /** Words of the text with no token in the vocabulary (not aligned). */
  readonly skippedWords: number;
  readonly feasible: boolean;
}

/** The tokens of `word` by longest match against the vocabulary; characters without a token are skipped. */
export function wordLabels(word: string, vocabulary: CtcVocabulary): number[] {
  const ids = new Map<string, number>();
  let longest = 1;
  vocabulary.tokens.forEach((token, id) => {
    if (id === vocabulary.blankId || token === vocabulary.wordDelimiter || token.length === 0 || ids.has(token)) return;
    ids.set(token, id);
    longest = Math.max(longest, [...token].length);
  });
  const chars = [...word.normalize('NFC')];
  const labels: number[] = [];
  for (let i = 0; i < chars.length; ) {
    let matched = 0;
    for (let n = Math.min(longest, chars.length - i); n >= 1; n--) {
      const id = ids.get(chars.slice(i, i + n).join(''));
      if (id !== undefined) {
        labels.push(id);
        matched = n;
        break;
      }
    }
    i += matched > 0 ? matched : 1;
  }
  return labels;
}

/** Log-softmax of every row (the aligner reads log posteriors). */
function logPosteriors(scores: CtcScores): Float32Array {
  const { data, frames, vocabSize } = scores;
  const out = new Float32Array(frames * vocabSize);
  for (let t = 0; t < frames; t++) {
    const row = t * vocabSize;
    let max = Number.NEGATIVE_INFINITY;
    for (let v = 0; v < vocabSize; v++) max = Math.max(max, data[row + v]!);
    let sum = 0;
    for (let v = 0; v < vocabSize; v++) sum += Math.exp(data[row + v]! - max);
    const norm = max + Math.log(sum);
    for (let v = 0; v < vocabSize; v++) out[row + v] = data[row + v]! - norm;
  }
  return out;
}

/** Aligns `text` to `scores` (see the module comment). */
export function forceAlign(text: string, scores: CtcScores, vocabulary: CtcVocabulary): ForcedAlignment {
  if (scores.vocabSize !== vocabulary.tokens.length) {
    throw new Error(`scores have ${scores.vocabSize} classes, vocabulary has ${vocabulary.tokens.length}`);
  }
  const delimiter = vocabulary.wordDelimiter === null ? -1 : vocabulary.tokens.indexOf(vocabulary.wordDelimiter);
  const labels: number[] = [];
  const spans: { index: number; text: string; from: number; to: number }[] = [];
  let skippedWords = 0;
  for (const [index, word] of text
    .split(/\s+/u)
    .filter((w) => w.length > 0)
    .entries()) {
    const ids = wordLabels(word, vocabulary);
    if (ids.length === 0) {
      skippedWords++;
      continue;
    }
    if (spans.length > 0 && delimiter >= 0) labels.push(delimiter);
    spans.push({ index, text: word, from: labels.length, to: labels.length + ids.length });
    labels.push(...ids);
  }
  let needed = labels.length;
  for (let i = 1; i < labels.length; i++) if (labels[i] === labels[i - 1]) needed++;
  const tokens = alignTokens(labels, logPosteriors(scores), scores.frames, scores.vocabSize, vocabulary.blankId);
  const words = spans.map(({ index, text: word, from, to }) => {
    let sum = 0;
    for (let i = from; i < to; i++) sum += tokens[i]!.probability;
    return { index, text: word, startFrame: tokens[from]!.startFrame, endFrame: tokens[to - 1]!.endFrame, confidence: sum / (to - from) };
  });
  return { words, skippedWords, feasible: labels.length > 0 && needed <= scores.frames };
}
