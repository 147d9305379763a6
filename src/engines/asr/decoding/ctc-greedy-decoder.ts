import type { CtcDecoder, CtcHypothesis, CtcScores, CtcToken, CtcVocabulary, CtcWord } from './ctc-types.js';
import { tokensToWords } from './ctc-words.js';

/**
 * Best-path CTC decoding: argmax per frame, merge repeats, drop blanks.
 * Token probability is the mean softmax posterior of the argmax over the frames it spans.
 */
export class CtcGreedyDecoder implements CtcDecoder {
  constructor(private readonly vocabulary: CtcVocabulary) {}

  decode(scores: CtcScores): CtcHypothesis {
    const { data, frames, vocabSize } = scores;
    if (vocabSize !== this.vocabulary.tokens.length) {
      throw new Error(`scores have ${vocabSize} classes, vocabulary has ${this.vocabulary.tokens.length}`);
    }
    const blank = this.vocabulary.blankId;
    const tokens: CtcToken[] = [];
    let runId = -1;
    let runStart = 0;
    let runProbSum = 0;
    const closeRun = (end: number): void => {
      if (runId >= 0 && runId !== blank) {
        tokens.push({ id: runId, startFrame: runStart, endFrame: end, probability: runProbSum / (end - runStart) });
      }
    };
    for (let t = 0; t < frames; t++) {
      const row = t * vocabSize;
      let best = 0;
      let bestScore = data[row]!;
      for (let v = 1; v < vocabSize; v++) {
        const s = data[row + v]!;
        if (s > bestScore) {
          bestScore = s;
          best = v;
        }
      }
      let sum = 0;
      for (let v = 0; v < vocabSize; v++) sum += Math.exp(data[row + v]! - bestScore);
      const prob = 1 / sum;
      if (best !== runId) {
        closeRun(t);
        runId = best;
        runStart = t;
        runProbSum = 0;
      }
      runProbSum += prob;
    }
    closeRun(frames);
    return buildHypothesis(tokens, this.vocabulary);
  }
}

export function buildHypothesis(tokens: CtcToken[], vocabulary: CtcVocabulary): CtcHypothesis {
  const words: CtcWord[] = tokensToWords(tokens, vocabulary);
  const text = words.map((w) => w.text).join(' ');
  let confidence = 1;
  if (tokens.length > 0) {
    let sum = 0;
    for (const tok of tokens) sum += tok.probability;
    confidence = sum / tokens.length;
  }
  return { text, tokens, words, confidence };
}
