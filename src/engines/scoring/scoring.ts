// Scoring: the measures benchmarks, tests and training report (CER, DER, chrF, BLEU, degenerate output). Never
// imported by shipped code (the layer rule checks it); it may read any engine to score it.
export * from './bleu.js';
export * from './character-error-rate.js';
export * from './chrf.js';
export * from './degenerate-output.js';
export * from './diarization-error-rate.js';
export * from './word-matches.js';
