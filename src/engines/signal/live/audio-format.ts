// The WebSocket API's audio formats (spec: GET /v1/ws/transcribe) and their native codes.

export const AUDIO_FORMATS = ['pcm_s16le', 'pcm_s16le_48k', 'wav', 'webm_opus', 'opus_raw_16k'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

const CODES: Record<AudioFormat, number> = {
  pcm_s16le: 0,
  pcm_s16le_48k: 1,
  wav: 2,
  webm_opus: 3,
  opus_raw_16k: 4,
};

/** The sample rate a format is declared with in the spec (the `ready` message's sample_rate). */
export const FORMAT_SAMPLE_RATE: Record<AudioFormat, number> = {
  pcm_s16le: 16000,
  pcm_s16le_48k: 48000,
  wav: 16000,
  webm_opus: 48000,
  opus_raw_16k: 16000,
};

export function isAudioFormat(value: string): value is AudioFormat {
  return (AUDIO_FORMATS as readonly string[]).includes(value);
}

export function audioFormatCode(format: AudioFormat): number {
  return CODES[format];
}

/**
 * The formats a WebSocket client may declare: the native ones, and 8 kHz telephone audio
 * (16-bit PCM and G.711 mu-law) that stream-input.ts decodes and upsamples to 16 kHz before
 * the front end sees it.
 */
export const STREAM_FORMATS = [...AUDIO_FORMATS, 'pcm_s16le_8k', 'mulaw_8k'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

export const STREAM_FORMAT_SAMPLE_RATE: Record<StreamFormat, number> = { ...FORMAT_SAMPLE_RATE, pcm_s16le_8k: 8000, mulaw_8k: 8000 };

/** Formats that can be split per channel (channels=2): interleaved frames, WAV, and WebM with a stereo Opus track. */
export const MULTICHANNEL_FORMATS: readonly StreamFormat[] = ['pcm_s16le', 'pcm_s16le_48k', 'wav', 'pcm_s16le_8k', 'mulaw_8k', 'webm_opus'];

export function isStreamFormat(value: string): value is StreamFormat {
  return (STREAM_FORMATS as readonly string[]).includes(value);
}
