// The engines' entry for offline training and measurement only (training/, and the shared pieces
// in training/common that bench/ and test/ also use): the engine internals a training script needs
// so that training and serving compute the same numbers (feature extraction, speaker and overlap
// features, decoders and LMs, model loading and the inference pool, CER scoring, the small
// classifiers' fitting code). Shipped code (src/ outside tests) never imports this module; it uses
// the engine façades. Re-exports only: no state, nothing runs on import.

export { resolveMediaTools } from '../platform/subprocess/media-tools.js';
// Speech recognition: models, inference, decoders and language models.
export { type BeamLm, CtcBeamDecoder } from './asr/decoding/ctc-beam-decoder.js';
export { CtcGreedyDecoder } from './asr/decoding/ctc-greedy-decoder.js';
export type { CtcDecoder, CtcScores, CtcVocabulary } from './asr/decoding/ctc-types.js';
export { CharNgramLm } from './asr/decoding/lm/char-ngram-lm.js';
export { parseKaldiText } from './asr/decoding/lm/lm-corpus.js';
export { WORD_BOS, WORD_UNK, WordNgramLm } from './asr/decoding/lm/word-ngram-lm.js';
export { greedyPlanner, manifestDecodingPlanner } from './asr/inference/decoding-planner.js';
export { InferencePool } from './asr/inference/inference-pool.js';
export { InputPreparer } from './asr/inference/model-input.js';
export { type LoadedCtcModel, loadModelFolder } from './asr/models/model-loader.js';
export { CtcRecognizer } from './asr/recognition/ctc-recognizer.js';
// Features.
export { kaldiFbank } from './signal/features/kaldi-fbank.js';
export { type LogMelInput, LogMelExtractor } from './signal/features/log-mel-features.js';
// Diarization: speaker frames and statistics, overlap and segment-type features, classifier fitting.
export {
  activeGate,
  MUSIC_FEATURES,
  MUSIC_HOP_FRAMES,
  MUSIC_WINDOW_FRAMES,
  musicWindowFeatures,
  typingFrames,
} from './diarization/music-detector.js';
export { FRAME_FEATURES, overlapFrameFeatures } from './diarization/overlap-detector.js';
export { trackPitch } from './diarization/pitch-track.js';
export { VOICE_FEATURES, voiceFeatures } from './diarization/segment-type.js';
export {
  fitLogisticModel,
  fitTinyNetwork,
  logisticModelJson,
  logisticProbability,
  networkProbability,
  tinyNetworkJson,
} from './diarization/small-classifiers.js';
export { centredFrames, MFCC_COEFFICIENTS, SPEAKER_FRAME_MS, speakerFrames } from './diarization/speaker-features.js';
export { windowStatistics } from './diarization/speaker-windows.js';
export { energySpeechMask } from './diarization/speech-mask.js';
// Scoring and audio files.
export { scoredCharacterErrorRate } from './scoring/character-error-rate.js';
export type { LabelledTurn } from './scoring/diarization-error-rate.js';
export { concatSamples } from './signal/files/pcm-channels.js';
export { decodeToPcm } from './signal/files/pcm-decoder.js';
