// The one place tests and benchmarks find the committed fixtures (test/fixtures/) and read the
// speech recordings. It works from test/helpers (vitest, tsx) and from dist/test/helpers (the
// compiled benchmarks), so paths are found from the repository root, not from this file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../training/common/repository-root.js';

export { REPO_ROOT };
export const FIXTURES_DIR = join(REPO_ROOT, 'test', 'fixtures');

/** Path of a committed fixture, e.g. `audio/speech-am.wav` or `models/tiny-ctc`. */
export const fixturePath = (relative: string): string => join(FIXTURES_DIR, relative);

/** The sample rate and the `data` chunk (16-bit little-endian PCM) of a WAV file's bytes. */
export function wavData(bytes: Buffer): { rate: number; pcm: Buffer } {
  let at = 12;
  let rate = 0;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('ascii', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'fmt ') rate = bytes.readUInt32LE(at + 12);
    if (id === 'data') return { rate, pcm: bytes.subarray(at + 8, at + 8 + size) };
    at += 8 + size + (size & 1);
  }
  throw new Error('WAV has no data chunk');
}

/** 16-bit PCM as float samples in [-1, 1). */
export function pcm16ToFloat(pcm: Buffer): Float32Array {
  const samples = new Float32Array(pcm.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(2 * i) / 32768;
  return samples;
}

/** Float samples in [-1, 1) as 16-bit little-endian PCM (clamped): the inverse of pcm16ToFloat. */
export function floatToPcm16(samples: Float32Array): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768))), 2 * i);
  return out;
}

/**
 * The 44-byte header of a 16-bit PCM WAV file (mono unless told) whose `data` chunk holds `dataBytes`
 * bytes; `dataBytes: 'stream'` writes 0xffffffff sizes, as a live WAV stream whose data runs to the end.
 */
export function wavHeader(dataBytes: number | 'stream', rate = 16_000, channels = 1): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(dataBytes === 'stream' ? 0xffffffff : 36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2 * channels, 28);
  header.writeUInt16LE(2 * channels, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes === 'stream' ? 0xffffffff : dataBytes, 40);
  return header;
}

/** Interleaves two mono 16-bit PCM buffers into stereo frames, the shorter padded with silence. */
export function interleaveStereo(left: Buffer, right: Buffer): Buffer {
  const frames = Math.max(left.length, right.length) / 2;
  const out = Buffer.alloc(frames * 4);
  for (let i = 0; i < frames; i++) {
    out.writeInt16LE(2 * i < left.length ? left.readInt16LE(2 * i) : 0, 4 * i);
    out.writeInt16LE(2 * i < right.length ? right.readInt16LE(2 * i) : 0, 4 * i + 2);
  }
  return out;
}

/** A mono 16-bit WAV file (16 kHz unless told) of PCM bytes. */
export function wavOf(pcm: Buffer, rate = 16_000): Buffer {
  return Buffer.concat([wavHeader(pcm.length, rate), pcm]);
}

/** Writes float samples (a built conversation) as a 16 kHz mono 16-bit WAV file, what the APIs are given; returns the path. */
export function writeConversationWav(path: string, conversation: { readonly pcm: Float32Array }): string {
  writeFileSync(path, wavOf(floatToPcm16(conversation.pcm)));
  return path;
}

/** 16 kHz mono 16-bit PCM of the Amharic speech fixture (audio/speech-am.wav, 8.1 s): streaming tests and benchmarks. */
export function speechAmPcm(): Buffer {
  return wavData(readFileSync(fixturePath('audio/speech-am.wav'))).pcm;
}

/** Samples of the native tests' 16 kHz speech fixture (native/speech-16k.wav): DSP and VAD benchmarks. */
export function nativeSpeech16k(): Float32Array {
  return pcm16ToFloat(wavData(readFileSync(fixturePath('native/speech-16k.wav'))).pcm);
}
