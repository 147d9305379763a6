// Test audio for the streaming tests, built from the committed speech fixture.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpusEncoder } from '@discordjs/opus';
import { audioFixture } from '../helpers/audio-files.js';
import { wavOf } from '../helpers/fixtures.js';
import { wavPcm } from './ws-client.js';

export const NATIVE_FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'native');

/** 16 kHz 16-bit mono speech (8.1 s). */
export function speech16k(): Buffer {
  return wavPcm(audioFixture('speech-am.wav')).pcm;
}

export function silence(ms: number, rate = 16_000): Buffer {
  return Buffer.alloc(Math.round((ms * rate) / 1000) * 2);
}

/** Two turns: speech, a pause, speech, a pause (16 kHz PCM). */
export function twoTurns(pauseMs = 1_500): { pcm: Buffer; turnEndsMs: number[] } {
  const speech = speech16k();
  const first = speech.subarray(0, 16_000 * 2 * 3);
  const second = speech.subarray(16_000 * 2 * 4, 16_000 * 2 * 7);
  return {
    pcm: Buffer.concat([silence(300), first, silence(pauseMs), second, silence(pauseMs)]),
    turnEndsMs: [300 + 3000, 300 + 3000 + pauseMs + 3000],
  };
}

/** 16 kHz PCM -> 48 kHz PCM by sample repetition with linear interpolation. */
export function upsample3(pcm16k: Buffer): Buffer {
  const n = pcm16k.length / 2;
  const out = Buffer.alloc(n * 3 * 2);
  for (let i = 0; i < n; i++) {
    const a = pcm16k.readInt16LE(2 * i);
    const b = i + 1 < n ? pcm16k.readInt16LE(2 * i + 2) : a;
    for (let k = 0; k < 3; k++) out.writeInt16LE(Math.round(a + ((b - a) * k) / 3), 2 * (3 * i + k));
  }
  return out;
}

/** One Opus packet per 20 ms of 16 kHz PCM, made with @discordjs/opus. */
export function opusFrames(pcm16k: Buffer): Buffer[] {
  const encoder = new OpusEncoder(16_000, 1);
  const frameBytes = 320 * 2;
  const frames: Buffer[] = [];
  for (let at = 0; at + frameBytes <= pcm16k.length; at += frameBytes) frames.push(encoder.encode(pcm16k.subarray(at, at + frameBytes)));
  return frames;
}

/** Splits bytes at uneven, deterministic boundaries (WebM/WAV chunks split at any byte). */
export function oddSplits(bytes: Buffer, seed = 7): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  let state = seed;
  while (at < bytes.length) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % 9000);
    out.push(bytes.subarray(at, Math.min(bytes.length, at + size)));
    at += size;
  }
  return out;
}

export function nativeFixture(name: string): Buffer {
  return readFileSync(join(NATIVE_FIXTURES, name));
}

/** The REST text of 16 kHz PCM16 sent as a WAV upload in sync mode (the reference a live turn is held to). */
export async function restText(
  baseUrl: string,
  headers: Record<string, string>,
  pcm: Buffer,
  options: { language?: string; model?: string; file?: { bytes: Buffer; name: string } } = {},
): Promise<string> {
  const { language = 'am', model, file = { bytes: wavOf(pcm), name: 'clip.wav' } } = options;
  const form = new FormData();
  form.append('language', language);
  if (model !== undefined) form.append('model', model);
  form.append('mode', 'sync');
  form.append('file', new Blob([file.bytes]), file.name);
  const response = await fetch(`${baseUrl}/v1/transcriptions`, { method: 'POST', headers, body: form });
  const body = (await response.json()) as { status: string; text: string };
  if (body.status !== 'completed') throw new Error(`REST transcription ended ${body.status} (HTTP ${response.status}: ${JSON.stringify(body).slice(0, 200)})`);
  return body.text;
}
