// Public surface of the native DSP layer.
export { AUDIO_FORMATS, FORMAT_SAMPLE_RATE, audioFormatCode, isAudioFormat, type AudioFormat } from './audio-format.js';
export { type EndpointEvent, type EndpointEventType } from './endpoint-event.js';
export { EnergyVad, type EnergyVadOptions } from './energy-vad.js';
export { Endpointer, type EndpointerOptions } from './endpointer.js';
export { nativeAddon } from './native-addon.js';
export { NativeStatus, describeNativeStatus, type NativeStatusInfo, type NativeStatusKind } from './native-status.js';
export { OpusFrameDecoder } from './opus-frame-decoder.js';
export { Resampler, type ResamplerInfo, type ResamplerQuality } from './resampler.js';
export { RingBuffer, type RingBufferStats } from './ring-buffer.js';
export {
  DEFAULT_MAX_BUFFER_BYTES,
  OUTPUT_SAMPLE_RATE,
  StreamFrontEnd,
  type StreamFrontEndOptions,
} from './stream-front-end.js';
export { WebmDemuxer, type WebmTrack } from './webm-demuxer.js';
