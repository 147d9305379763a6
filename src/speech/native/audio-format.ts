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
