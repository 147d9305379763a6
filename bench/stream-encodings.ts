/**
 * The streamed encodings of 16 kHz PCM the live-accuracy benchmark and its test send: WebM/Opus
 * as a browser's MediaRecorder makes it (48 kHz, libopus through the bundled ffmpeg) and raw
 * 16 kHz Opus, one 20 ms packet per message (@discordjs/opus).
 */
import { spawnSync } from 'node:child_process';
import opus from '@discordjs/opus';
import { resolveMediaTools } from '../src/platform/subprocess/media-tools.js';
import { wavOf } from '../test/helpers/fixtures.js';

export type StreamFormat = 'pcm' | 'webm_opus' | 'opus_raw_16k';
export const STREAM_FORMATS: readonly StreamFormat[] = ['pcm', 'webm_opus', 'opus_raw_16k'];

/** WebM/Opus bitrate: MediaRecorder's usual choice for speech. */
export const WEBM_OPUS_BITRATE = '32k';
// @discordjs/opus is CommonJS: take the class from its default export.
const { OpusEncoder } = opus;
const FRAME_BYTES = 320 * 2; // 20 ms of 16 kHz 16-bit audio

/** A WebM file with one Opus track at 48 kHz, written to a pipe (no cues, no duration: as MediaRecorder streams it). */
export function webmOpusOf(pcm: Buffer): Buffer {
  const made = spawnSync(
    resolveMediaTools().ffmpeg,
    ['-hide_banner', '-loglevel', 'error', '-f', 'wav', '-i', 'pipe:0', '-ar', '48000', '-c:a', 'libopus', '-b:a', WEBM_OPUS_BITRATE, '-f', 'webm', 'pipe:1'],
    { input: wavOf(pcm), maxBuffer: 256 * 1024 * 1024 },
  );
  if (made.status !== 0) throw new Error(`ffmpeg failed: ${made.stderr.toString().slice(0, 500)}`);
  return made.stdout;
}

/**
 * One Opus packet per 20 ms of 16 kHz PCM (the encoder's default bitrate), the last frame padded
 * with silence so that no audio is left out.
 */
export function opusFramesOf(pcm: Buffer): { frames: Buffer[]; bitrate: number } {
  const encoder = new OpusEncoder(16_000, 1);
  const frames: Buffer[] = [];
  for (let at = 0; at < pcm.length; at += FRAME_BYTES) {
    const frame = pcm.subarray(at, at + FRAME_BYTES);
    frames.push(encoder.encode(frame.length === FRAME_BYTES ? frame : Buffer.concat([frame, Buffer.alloc(FRAME_BYTES - frame.length)])));
  }
  return { frames, bitrate: encoder.getBitrate() };
}

/** 16 kHz PCM that libopus decodes from `frames` (what the gateway's decoder hands on). */
export function decodeOpusFrames(frames: readonly Buffer[]): Buffer {
  const decoder = new OpusEncoder(16_000, 1);
  return Buffer.concat(frames.map((frame) => decoder.decode(frame)));
}
