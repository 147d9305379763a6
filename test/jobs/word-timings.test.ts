// Word timings on every surface (issue 31 item 2), through a real gateway with the shipped
// Amharic model: REST sync segments carry `words` that spell their text, lie inside the segment
// and never go back in time, the first near the speech onset of the file (model-free check); the
// stored captions start with the first word; the job API renders the words in seconds; a
// WebSocket turn carries its words in stream ms and its caption starts with them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { speechOnset } from '../../bench/speech-onset.js';
import type { Segment } from '../../src/platform/db/job-records.js';
import { audioFixture, startFileServer } from '../helpers/audio-files.js';
import { wavData } from '../helpers/fixtures.js';
import { JobsClient, TranscribeJobClient } from '../helpers/jobs-client.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { readPcm16Wav } from '../native/audio-helpers.js';
import { chunks, connectReady, paced, wsUrl } from '../ws/ws-client.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const SPEECH = audioFixture('speech-am.wav');

let gw: TestGateway;
let key: string;
let files: Awaited<ReturnType<typeof startFileServer>>;

beforeAll(async () => {
  gw = await startTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am', RATE_LIMIT_PER_MINUTE: '100000' });
  key = await gw.key({ scopes: ['write'] });
  files = await startFileServer({ 'speech.wav': SPEECH });
}, 120_000);
afterAll(async () => {
  await files?.close();
  await gw?.close();
});

/** The checks every surface's segments pass: words spell the text, lie inside the segment, go forward. */
function expectTimedWords(segments: readonly Segment[]): void {
  expect(segments.length).toBeGreaterThan(0);
  for (const segment of segments) {
    const words = segment.words!;
    expect(words.length, segment.text).toBeGreaterThan(0);
    expect(words.map((w) => w.word).join(' ')).toBe(segment.text);
    for (const [i, w] of words.entries()) {
      expect(w.start_ms).toBeGreaterThanOrEqual(segment.start_ms);
      expect(w.end_ms).toBeLessThanOrEqual(segment.end_ms);
      expect(w.end_ms).toBeGreaterThan(w.start_ms);
      if (i > 0) expect(w.start_ms).toBeGreaterThanOrEqual(words[i - 1]!.end_ms);
      expect(w.confidence).toBeGreaterThan(0);
      expect(w.confidence).toBeLessThanOrEqual(1);
    }
  }
}

describe('word timings', () => {
  it('REST sync: segments carry timed words that spell their text; the first starts at the speech onset; captions start with it', async () => {
    const client = new JobsClient(gw.url, key);
    const created = await client.submitFile(SPEECH, { language: 'am', mode: 'sync' });
    expect(created.body.status).toBe('completed');
    const segments = created.body.segments as Segment[];
    expectTimedWords(segments);
    // Not the letter interpolation over the segment: the segment keeps its margin before the
    // first word, and the first word starts where the energy says speech starts (within 120 ms).
    const { samples } = readPcm16Wav(readFileSync(SPEECH));
    const onsetMs = speechOnset(samples) / 16;
    const first = segments[0]!.words![0]!;
    expect(Math.abs(first.start_ms - onsetMs)).toBeLessThanOrEqual(120);
    expect(first.start_ms).toBeGreaterThan(segments[0]!.start_ms);

    const vtt = await (await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/captions.vtt`, { headers: client.headers() })).text();
    const firstCue = /\n(\d{2}):(\d{2}):(\d{2})\.(\d{3}) -->/.exec(vtt)!;
    expect(((Number(firstCue[1]) * 60 + Number(firstCue[2])) * 60 + Number(firstCue[3])) * 1000 + Number(firstCue[4])).toBe(first.start_ms);
  });

  it('job API: transcript segments carry the words in seconds', async () => {
    const { transcript } = await new TranscribeJobClient(gw.url, key).run({ audio_urls: [files.url('speech.wav')], language: 'am' });
    const segment = transcript.segments[0];
    expect(segment.words.length).toBeGreaterThan(0);
    expect(segment.words.map((w: { word: string }) => w.word).join(' ')).toBe(segment.text);
    for (const w of segment.words) {
      expect(Object.keys(w).sort()).toEqual(['confidence', 'end_time', 'start_time', 'word']);
      expect(w.start_time).toMatch(/^\d+\.\d\d$/);
      expect(Number(w.start_time)).toBeGreaterThanOrEqual(Number(segment.start_time));
      expect(Number(w.end_time)).toBeLessThanOrEqual(Number(segment.end_time));
    }
  });

  it('WebSocket: a turn carries its words in stream ms, and its caption starts with the first word', async () => {
    const { pcm } = wavData(readFileSync(SPEECH));
    const stream = await connectReady(wsUrl(gw.url, { language: 'am', turn_detection: 'server_vad', captions: 'webvtt' }), bearer(key));
    await paced(stream, chunks(pcm, 3_200), 0);
    stream.send('END');
    await stream.waitFor('transcription', (m) => m.is_final, 60_000);
    const turns = stream.ofType('turn_detected');
    expect(turns.length).toBeGreaterThan(0);
    for (const turn of turns) {
      expectTimedWords(turn.segments as Segment[]);
      for (const segment of turn.segments) {
        expect(segment.start_ms).toBeGreaterThanOrEqual(turn.start_ms);
        expect(segment.end_ms).toBeLessThanOrEqual(turn.end_ms);
      }
    }
    const caption = stream.ofType('caption')[0]!;
    expect(caption.cues[0]!.start_ms).toBe(turns[0]!.segments[0]!.words![0]!.start_ms);
    stream.close();
  });
});
