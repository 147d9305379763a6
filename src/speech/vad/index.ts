// Public surface of the VAD layer: Silero batched in a worker; the energy VAD and the
// endpointer live in the native front end (src/speech/native).
export { SILERO_SAMPLE_RATE, SILERO_WINDOW, sileroModelPath } from './silero-model.js';
export { SileroSession, type SileroSessionOptions } from './silero-session.js';
export {
  SileroVad,
  SileroVadStream,
  type FeedResult,
  type SileroStreamOptions,
  type SileroVadOptions,
  type SileroVadStats,
} from './silero-vad.js';
