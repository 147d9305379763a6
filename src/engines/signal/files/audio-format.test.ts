import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIO } from '../../../../test/inference/fixtures.js';
import { sniffAudioFormat } from './audio-format.js';

const head = (name: string, bytes = 64): Uint8Array => readFileSync(AUDIO(name)).subarray(0, bytes);

describe('sniffAudioFormat', () => {
  it.each([
    ['speech-am.wav', 'wav'],
    ['speech-am.flac', 'flac'],
    ['speech-am.mp3', 'mp3'],
    ['speech-am.m4a', 'm4a'],
    ['speech-am.ogg', 'ogg'],
    ['speech-am.webm', 'webm'],
    ['speech-am.aac', 'aac'],
  ])('recognises %s as %s from its first bytes', (file, format) => {
    expect(sniffAudioFormat(head(file))).toBe(format);
    expect(sniffAudioFormat(head(file, 12))).toBe(format);
  });

  it('refuses non-audio and too-short heads', () => {
    expect(sniffAudioFormat(head('not-audio.txt'))).toBeNull();
    expect(sniffAudioFormat(new Uint8Array(0))).toBeNull();
    expect(sniffAudioFormat(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]))).toBeNull(); // PNG
    expect(sniffAudioFormat(Buffer.from('%PDF-1.7\n%....'))).toBeNull();
    expect(sniffAudioFormat(Buffer.from('RIFF\0\0\0\0AVI LIST'))).toBeNull();
  });

  it('accepts corrupt files whose container magic is right (decoding finds the damage later)', () => {
    expect(sniffAudioFormat(head('corrupt.m4a'))).toBe('m4a');
    expect(sniffAudioFormat(head('corrupt.mp3'))).toBe('mp3');
  });

  it('tells MPEG audio from ADTS by the layer bits and refuses reserved values', () => {
    expect(sniffAudioFormat(Uint8Array.from([0xff, 0xfb, 0x90, 0x64]))).toBe('mp3'); // MPEG-1 layer III 128 kb/s 44.1 kHz
    expect(sniffAudioFormat(Uint8Array.from([0xff, 0xf3, 0x48, 0xc4]))).toBe('mp3'); // MPEG-2 layer III
    expect(sniffAudioFormat(Uint8Array.from([0xff, 0xf1, 0x50, 0x80]))).toBe('aac'); // ADTS, MPEG-4, 44.1 kHz
    expect(sniffAudioFormat(Uint8Array.from([0xff, 0xfb, 0xf0, 0x64]))).toBeNull(); // bitrate index 15
    expect(sniffAudioFormat(Uint8Array.from([0xff, 0xfb, 0x9c, 0x64]))).toBeNull(); // sample-rate index 3
    expect(sniffAudioFormat(Uint8Array.from([0xff, 0xf1, 0x3c, 0x80]))).toBeNull(); // ADTS frequency index 15
    expect(sniffAudioFormat(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBeNull(); // JPEG
  });
});
