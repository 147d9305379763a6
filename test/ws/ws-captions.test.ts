// Live caption messages (issue 18 item 3): captions=webvtt|srt sends ready-to-display cues for
// every committed text, numbered on across the session, never overlapping, within broadcast line
// rules, carrying exactly the committed text; the finished session serves the same text as a file.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floatToPcm16 } from '../helpers/fixtures.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { readPcm16Wav } from '../native/audio-helpers.js';
import { heldOutFixtures } from '../../training/common/heldout-fixtures.js';
import { chunks, connect, paced, wsUrl } from './ws-client.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am' });
  key = await gw.key({ scopes: ['write', 'read'] });
}, 120_000);
afterAll(async () => gw?.close());

/** Three held-out Amharic clips with 1.5 s of silence after each: three turns. */
function conversation(): Buffer {
  const files = heldOutFixtures()
    .filter((clip) => clip.language === 'am')
    .map((clip) => clip.path)
    .slice(0, 3);
  const silence = floatToPcm16(new Float32Array(24_000));
  return Buffer.concat(files.flatMap((file) => [floatToPcm16(readPcm16Wav(readFileSync(file)).samples), silence]));
}

const letters = (text: string): string => text.replace(/\s+/g, '');

describe('captions=webvtt', () => {
  it('sends cues for every committed turn, numbered on, in order, within the line rules; the job serves them as a file', async () => {
    const client = connect(wsUrl(gw.url, { turn_detection: 'server_vad', language: 'am', captions: 'webvtt' }), bearer(key));
    const ready = await client.waitFor('ready');
    await paced(client, chunks(conversation(), 32_000), 0);
    client.send('END');
    const final = await client.waitFor('transcription', (m) => m.is_final, 60_000);
    expect((await client.closed).code).toBe(1000);

    const captions = client.ofType('caption');
    const turns = client.ofType('turn_detected');
    expect(turns.length).toBeGreaterThan(0);
    expect(captions.length).toBeGreaterThanOrEqual(turns.length);
    const cues = captions.flatMap((m) => m.cues);
    expect(cues.map((c) => c.index)).toEqual(cues.map((_, i) => i + 1));
    for (const [i, cue] of cues.entries()) {
      expect(cue.end_ms).toBeGreaterThan(cue.start_ms);
      if (i > 0) expect(cue.start_ms).toBeGreaterThanOrEqual(cues[i - 1]!.end_ms);
      expect(cue.lines.length).toBeLessThanOrEqual(2);
      for (const line of cue.lines) expect([...line].length).toBeLessThanOrEqual(42);
    }
    for (const message of captions) {
      expect(message.format).toBe('webvtt');
      expect(message.text.startsWith(`${message.cues[0]!.index}\n`)).toBe(true);
      expect(message.text).toMatch(/^\d+\n\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}\n/);
    }
    const committed = [...turns.map((t) => t.text), ...(final.text ? [final.text] : [])].join(' ');
    expect(letters(cues.flatMap((c) => c.lines).join(''))).toBe(letters(committed));

    const file = await fetch(`${gw.url}/v1/transcriptions/${ready.job_id}/captions.vtt`, { headers: bearer(key) });
    expect(file.status).toBe(200);
    const body = await file.text();
    expect(body.startsWith('WEBVTT\n\n')).toBe(true);
    const fileLines = body
      .split('\n')
      .filter((line) => line !== 'WEBVTT' && !/^\d+$/.test(line) && !line.includes('-->'))
      .join('');
    expect(letters(fileLines)).toBe(letters(committed));
  }, 120_000);

  it('refuses an unknown captions value before the session starts', async () => {
    const client = connect(wsUrl(gw.url, { captions: 'ttml' }), bearer(key));
    const error = await client.waitFor('error');
    expect(error.error.code).toBe('invalid_field_value');
    expect((await client.closed).code).toBe(1008);
  });
});
