// The speech layer's second entry point, for the offline command-line tools only (src/app/cli:
// `npm run models`, `npm run lm`): model folders, the decoders, the character LM and its corpus.
// The running gateway uses `Speech` (speech.ts) and nothing from here.
export { CtcBeamDecoder } from './decoding/ctc-beam-decoder.js';
export { CtcGreedyDecoder } from './decoding/ctc-greedy-decoder.js';
export { buildCharNgramLm } from './decoding/lm/char-ngram-builder.js';
export { CharNgramLm, FLAG_LOWERCASE, FLAG_PUNCTUATION, UNK } from './decoding/lm/char-ngram-lm.js';
export { corpusSources, HORNMT_HELD_OUT_FROM, parseKaldiText, readCorpus } from './decoding/lm/lm-corpus.js';
export { InputPreparer } from './inference/model-input.js';
export { loadModelFolder, type LoadedModel } from './models/model-loader.js';
export { ModelRegistry } from './models/model-registry.js';
export { forLm, usesEthiopicScript } from './text/text-normalizer.js';
