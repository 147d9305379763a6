import type { CtcToken, CtcVocabulary, CtcWord } from './ctc-types.js';

/**
 * Groups emitted tokens into words at the word delimiter token (or at tokens that are
 * whitespace). Word timing spans its first to last token; confidence is the mean token probability.
 */
export function tokensToWords(tokens: readonly CtcToken[], vocabulary: CtcVocabulary): CtcWord[] {
  const words: CtcWord[] = [];
  let text = '';
  let start = 0;
  let end = 0;
  let probSum = 0;
  let count = 0;
  const flush = (): void => {
    if (text.length > 0) words.push({ text, startFrame: start, endFrame: end, confidence: probSum / count });
    text = '';
    probSum = 0;
    count = 0;
  };
  for (const token of tokens) {
    const symbol = vocabulary.tokens[token.id] ?? '';
    if (symbol === vocabulary.wordDelimiter || symbol.trim() === '') {
      flush();
      continue;
    }
    if (text.length === 0) start = token.startFrame;
    text += symbol;
    end = token.endFrame;
    probSum += token.probability;
    count++;
  }
  flush();
  return words;
}
