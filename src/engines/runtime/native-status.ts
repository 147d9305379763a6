// Status codes returned by the native parts (mirror of native/src/dsp/status.h). Codes are
// stable: the WebSocket layer maps them to protocol errors and close codes.

export enum NativeStatus {
  Ok = 0,
  BufferFull = 1,
  InvalidArgument = 2,
  StreamFailed = 3,
  OpusInvalidPacket = 10,
  OpusFrameDuration = 11,
  OpusEmptyPacket = 12,
  WebmInvalid = 20,
  WebmNotWebm = 21,
  WebmUnsupportedCodec = 22,
  WebmNoAudioTrack = 23,
  WebmUnsupportedChannels = 24,
  WebmBlockTooLarge = 25,
  WebmUnknownSizeElement = 26,
  WebmInvalidLacing = 27,
  WavInvalid = 30,
  WavNotPcm = 31,
  WavUnsupportedSampleRate = 32,
  WavUnsupportedBitDepth = 33,
  WavUnsupportedChannels = 34,
  UnsupportedSampleRate = 40,
}

/**
 * What a status means for the stream:
 * - `ok`
 * - `buffer_full`: the hard buffer limit was reached (close with 1009); audio already
 *   buffered is intact.
 * - `bad_message`: this message was rejected (e.g. an Opus packet that is not 20 ms); the
 *   stream can continue.
 * - `bad_stream`: the container is unreadable or unsupported; every later push returns the
 *   same status until the format is set again (FORMAT command).
 */
export type NativeStatusKind = 'ok' | 'buffer_full' | 'bad_message' | 'bad_stream';

export interface NativeStatusInfo {
  status: NativeStatus;
  name: string;
  kind: NativeStatusKind;
  message: string;
}

const MESSAGES: Record<NativeStatus, [NativeStatusKind, string]> = {
  [NativeStatus.Ok]: ['ok', 'ok'],
  [NativeStatus.BufferFull]: ['buffer_full', 'audio buffer limit exceeded'],
  [NativeStatus.InvalidArgument]: ['bad_message', 'invalid argument'],
  [NativeStatus.StreamFailed]: ['bad_stream', 'the audio stream is in a failed state'],
  [NativeStatus.OpusInvalidPacket]: ['bad_message', 'the Opus packet could not be decoded'],
  [NativeStatus.OpusFrameDuration]: ['bad_message', 'opus_raw_16k expects exactly one 20 ms Opus packet per message'],
  [NativeStatus.OpusEmptyPacket]: ['bad_message', 'empty Opus packet'],
  [NativeStatus.WebmInvalid]: ['bad_stream', 'malformed WebM/Matroska data'],
  [NativeStatus.WebmNotWebm]: ['bad_stream', 'the stream is not WebM (no EBML header or wrong DocType)'],
  [NativeStatus.WebmUnsupportedCodec]: ['bad_stream', 'the WebM audio track is not Opus (A_OPUS)'],
  [NativeStatus.WebmNoAudioTrack]: ['bad_stream', 'WebM media data arrived before an audio track was declared'],
  [NativeStatus.WebmUnsupportedChannels]: ['bad_stream', 'WebM Opus with more than 2 channels (multistream) is not supported'],
  [NativeStatus.WebmBlockTooLarge]: ['bad_message', 'a WebM audio block exceeds the block size limit and was skipped'],
  [NativeStatus.WebmUnknownSizeElement]: ['bad_stream', 'unknown element size is only accepted on Segment and Cluster'],
  [NativeStatus.WebmInvalidLacing]: ['bad_stream', 'WebM block lacing is inconsistent with the block size'],
  [NativeStatus.WavInvalid]: ['bad_stream', 'malformed WAV data (RIFF/WAVE header or fmt chunk)'],
  [NativeStatus.WavNotPcm]: ['bad_stream', 'the WAV file is not PCM (integer or float); compressed WAV codecs are not accepted'],
  [NativeStatus.WavUnsupportedSampleRate]: ['bad_stream', 'WAV sample rate must be between 8 and 192 kHz'],
  [NativeStatus.WavUnsupportedBitDepth]: ['bad_stream', 'WAV PCM must be 8, 16, 24 or 32-bit integer or 32/64-bit float'],
  [NativeStatus.WavUnsupportedChannels]: ['bad_stream', 'WAV must have 1 to 8 channels'],
  [NativeStatus.UnsupportedSampleRate]: ['bad_stream', 'unsupported sample rate'],
};

export function describeNativeStatus(status: number): NativeStatusInfo {
  const entry = MESSAGES[status as NativeStatus];
  if (!entry) {
    return { status: status as NativeStatus, name: `Status${status}`, kind: 'bad_stream', message: `native status ${status}` };
  }
  return { status: status as NativeStatus, name: NativeStatus[status as NativeStatus], kind: entry[0], message: entry[1] };
}
