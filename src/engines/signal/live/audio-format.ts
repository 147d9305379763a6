// The WebSocket API's audio formats (spec: GET /v1/ws/transcribe, and this gateway's telephone
// extensions) and the native front end's codes for those it decodes itself
// (native/src/dsp/stream-front-end.h AudioFormat).

/**
 * The formats the native front end reads as they arrive: the spec's five, and 8 kHz G.711
 * (extensions: `mulaw_8k`, and `alaw_8k`, the law of the telephone networks outside North
 * America and Japan), expanded and upsampled to 16 kHz in C++ (native/src/dsp/g711.h).
 */
export const AUDIO_FORMATS = ['pcm_s16le', 'pcm_s16le_48k', 'wav', 'webm_opus', 'opus_raw_16k', 'mulaw_8k', 'alaw_8k'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

const CODES: Record<AudioFormat, number> = {
  pcm_s16le: 0,
  pcm_s16le_48k: 1,
  wav: 2,
  webm_opus: 3,
  opus_raw_16k: 4,
  mulaw_8k: 5,
  alaw_8k: 6,
};

/** The sample rate a format is declared with (the `ready` message's sample_rate). */
export const FORMAT_SAMPLE_RATE: Record<AudioFormat, number> = {
  pcm_s16le: 16000,
  pcm_s16le_48k: 48000,
  wav: 16000,
  webm_opus: 48000,
  opus_raw_16k: 16000,
  mulaw_8k: 8000,
  alaw_8k: 8000,
};

export function isAudioFormat(value: string): value is AudioFormat {
  return (AUDIO_FORMATS as readonly string[]).includes(value);
}

export function audioFormatCode(format: AudioFormat): number {
  return CODES[format];
}

/**
 * The formats a WebSocket client may declare: the native ones, and 8 kHz 16-bit PCM
 * (`pcm_s16le_8k`), which stream-input.ts upsamples to 16 kHz before the front end sees it.
 * Listed in the order the API documents them (the spec's five, then the telephone ones).
 */
export const STREAM_FORMATS = ['pcm_s16le', 'pcm_s16le_48k', 'wav', 'webm_opus', 'opus_raw_16k', 'pcm_s16le_8k', 'mulaw_8k', 'alaw_8k'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

export const STREAM_FORMAT_SAMPLE_RATE: Record<StreamFormat, number> = { ...FORMAT_SAMPLE_RATE, pcm_s16le_8k: 8000 };

/** Formats that can be split per channel (channels=2): interleaved frames, WAV, and WebM with a stereo Opus track. */
export const MULTICHANNEL_FORMATS: readonly StreamFormat[] = ['pcm_s16le', 'pcm_s16le_48k', 'wav', 'pcm_s16le_8k', 'mulaw_8k', 'alaw_8k', 'webm_opus'];

/** One byte a sample: G.711 at 8 kHz (a stereo frame is two bytes, one per channel). */
export function isG711(format: StreamFormat): format is 'mulaw_8k' | 'alaw_8k' {
  return format === 'mulaw_8k' || format === 'alaw_8k';
}

export function isStreamFormat(value: string): value is StreamFormat {
  return (STREAM_FORMATS as readonly string[]).includes(value);
}
