/** Containers the gateway accepts (spec: MP3, WAV, M4A, FLAC, OGG, WEBM, AAC). */
export type AudioContainer = 'mp3' | 'wav' | 'm4a' | 'flac' | 'ogg' | 'webm' | 'aac';

export const SUPPORTED_CONTAINERS: readonly AudioContainer[] = ['mp3', 'wav', 'm4a', 'flac', 'ogg', 'webm', 'aac'];

/** The supported containers as every refusal names them. */
export const SUPPORTED_FORMATS_TEXT = 'MP3, WAV, M4A, FLAC, OGG, WEBM or AAC';

/**
 * Why a file is not taken as audio, in the same words on every endpoint (uploads, jobs, batches,
 * the job API, signed uploads): an empty file is said to be empty, anything else that is not a
 * supported container is said to be that. `name` is the file's name or "The file".
 */
export function unsupportedAudioMessage(name: string, sizeBytes: number): string {
  return sizeBytes === 0
    ? `${name} is empty (0 bytes); send audio in a supported format (${SUPPORTED_FORMATS_TEXT}).`
    : `${name} is not audio in a supported format (${SUPPORTED_FORMATS_TEXT}).`;
}

/** Bytes `sniffAudioFormat` needs to see to recognise every supported container. */
export const SNIFF_BYTES = 12;

const ascii = (head: Uint8Array, offset: number, text: string): boolean => {
  if (head.length < offset + text.length) return false;
  for (let i = 0; i < text.length; i++) if (head[offset + i] !== text.charCodeAt(i)) return false;
  return true;
};

/**
 * Recognises a supported container from the first bytes of a file (at least `SNIFF_BYTES`;
 * the HTTP layer passes 64). Returns null for anything else, so unsupported or non-audio
 * uploads can be refused with `invalid_audio_format` before a job is created. A positive answer
 * only means the container looks right: the content may still be corrupt, which ffprobe/ffmpeg
 * find later and the job then fails with the same code.
 *
 * An ID3v2 tag is reported as `mp3`: the tag is almost always in front of MPEG audio, and the
 * real stream is behind the tag, out of reach of a short head.
 */
export function sniffAudioFormat(head: Uint8Array): AudioContainer | null {
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'wav';
  if (ascii(head, 0, 'RF64') && ascii(head, 8, 'WAVE')) return 'wav';
  if (ascii(head, 0, 'fLaC')) return 'flac';
  if (ascii(head, 0, 'OggS')) return 'ogg';
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  if (ascii(head, 4, 'ftyp')) return 'm4a';
  if (ascii(head, 0, 'ID3')) return 'mp3';
  if (ascii(head, 0, 'ADIF')) return 'aac';
  if (head.length >= 4 && head[0] === 0xff) return sniffFrameSync(head[1]!, head[2]!);
  return null;
}

/** MPEG audio (layer I-III) and AAC ADTS both start with a 12-bit (ADTS) or 11-bit sync word. */
function sniffFrameSync(b1: number, b2: number): AudioContainer | null {
  if ((b1 & 0xe0) !== 0xe0) return null;
  const layer = (b1 >> 1) & 0x03;
  if ((b1 & 0xf0) === 0xf0 && layer === 0) {
    // ADTS: sampling frequency index 13-15 is reserved.
    const frequencyIndex = (b2 >> 2) & 0x0f;
    return frequencyIndex <= 12 ? 'aac' : null;
  }
  const version = (b1 >> 3) & 0x03;
  const bitrateIndex = (b2 >> 4) & 0x0f;
  const rateIndex = (b2 >> 2) & 0x03;
  if (version === 1 || layer === 0 || bitrateIndex === 0x0f || rateIndex === 0x03) return null;
  return 'mp3';
}
