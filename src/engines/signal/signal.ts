// The signal room's façade: audio in, for the layers above the engines. The audio formats the
// APIs accept, the live front end (native decoding, resampling, energy VAD and endpointing per
// session: per-frame DSP, synchronous and allocation-free) and what it reports. File decoding
// (ffmpeg, WebM/Opus, PCM heads) and features (log-mel, FFT) are used by the engines only.
export {
  AUDIO_FORMATS,
  FORMAT_SAMPLE_RATE,
  isAudioFormat,
  isStreamFormat,
  MULTICHANNEL_FORMATS,
  STREAM_FORMAT_SAMPLE_RATE,
  STREAM_FORMATS,
  type AudioFormat,
  type StreamFormat,
} from './live/audio-format.js';
export { SUPPORTED_FORMATS_TEXT, unsupportedAudioMessage, type AudioContainer } from './files/audio-format.js';
export { ENDPOINT_PADDING_MS, type EndpointEvent } from './live/endpoint-event.js';
export { describeNativeStatus, NativeStatus } from '../runtime/native-status.js';
export { StreamFrontEnd } from './live/stream-front-end.js';
export { frontEndFormatFor, isPassthrough, StreamInput, type InputProblem } from './live/stream-input.js';
// A pure sample-array helper, for any caller that joins decoded pieces.
export { concatSamples } from './files/pcm-channels.js';
