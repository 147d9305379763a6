// Issue 34: a lying header buys no work, audio is bounded and billed by what is decoded, and one
// account cannot hold every job worker. One gateway (two workers, so one per account) on the
// untrained fixture models; WAVs are made here from the fixture speech (8.14 s).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioFixture, startFileServer, startStallingServer } from '../helpers/audio-files.js';
import { wavData, wavHeader } from '../helpers/fixtures.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

const MAX_AUDIO_SECONDS = 20;
const SPEECH_SECONDS = 8.14;

let gw: TestGateway;
let dir: string;
let files: Awaited<ReturnType<typeof startFileServer>>;
let stalling: Awaited<ReturnType<typeof startStallingServer>>;
const paths: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'duration-limits-'));
  const speech = readFileSync(audioFixture('speech-am.wav'));
  // The fixture speech whose header says 4 Hz: ffmpeg would read its 260 kB as 9 h of audio.
  const fourHertz = Buffer.from(speech);
  fourHertz.writeUInt32LE(4, 24);
  // A data chunk claiming 500 MB that the file does not hold.
  const claimsMore = Buffer.from(speech);
  claimsMore.writeUInt32LE(500_000_000, 40);
  claimsMore.writeUInt32LE(500_000_036, 4);
  // Three times the speech: 24 s, past the 20 s maximum.
  const { pcm } = wavData(speech);
  const long = Buffer.concat([wavHeader(pcm.length * 3), pcm, pcm, pcm]);
  for (const [name, bytes] of Object.entries({ 'four-hertz.wav': fourHertz, 'claims-more.wav': claimsMore, 'long.wav': long })) {
    paths[name] = join(dir, name);
    writeFileSync(paths[name], bytes);
  }
  files = await startFileServer(paths);
  stalling = await startStallingServer();
  gw = await startTestGateway({
    RATE_LIMIT_PER_MINUTE: '100000',
    JOB_WORKERS: '2',
    SYNC_WAIT_SECONDS: '30',
    MAX_AUDIO_SECONDS: String(MAX_AUDIO_SECONDS),
  });
}, 120_000);

afterAll(async () => {
  await stalling?.close();
  await files?.close();
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('audio duration limits', () => {
  it('refuses a WAV whose header states 4 Hz, uploaded or fetched, before any decoding', async () => {
    const client = new JobsClient(gw.url, await gw.key({ account: 'liar' }));
    const started = Date.now();
    const upload = await client.submitFile(paths['four-hertz.wav']!, { language: 'am' });
    expect(upload.status).toBe(400);
    expect(upload.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_audio_format' });
    expect(upload.body.error.message).toContain('4 Hz');
    const fetched = await client.submitUrl({ audio_url: files.url('four-hertz.wav'), language: 'am', mode: 'sync' });
    expect(fetched.body.status).toBe('failed');
    expect(fetched.body.error).toMatchObject({ code: 'invalid_audio_format' });
    expect(Date.now() - started).toBeLessThan(15_000);
    const usage = (await (await fetch(`${gw.url}/v1/usage`, { headers: client.headers() })).json()) as Record<string, number>;
    expect(usage['daily_minutes_used']).toBe(0);
  });

  it('transcribes a WAV claiming 500 MB of data as the 8 s it holds', async () => {
    const client = new JobsClient(gw.url, await gw.key({ account: 'claims' }));
    const job = await client.submitUrl({ audio_url: files.url('claims-more.wav'), language: 'am', mode: 'sync' });
    expect(job.body.status).toBe('completed');
    expect(job.body.duration_seconds).toBeCloseTo(SPEECH_SECONDS, 1);
  });

  it('refuses audio past MAX_AUDIO_SECONDS with 400 file_too_large (upload) or a failed job (URL)', async () => {
    const client = new JobsClient(gw.url, await gw.key({ account: 'long' }));
    const upload = await client.submitFile(paths['long.wav']!, { language: 'am' });
    expect(upload.status).toBe(400);
    expect(upload.body.error).toMatchObject({ type: 'invalid_request_error', code: 'file_too_large', param: 'file' });
    expect(upload.body.error.message).toContain('0:00:20');
    const fetched = await client.submitUrl({ audio_url: files.url('long.wav'), language: 'am', mode: 'sync' });
    expect(fetched.body.status).toBe('failed');
    expect(fetched.body.error).toMatchObject({ code: 'file_too_large' });
  });

  it('checks the probed duration against the daily quota before the work, and bills what was decoded', async () => {
    // 12 s a day: the first 8.14 s file fits; the second does not fit in the 3.9 s left.
    const client = new JobsClient(gw.url, await gw.key({ account: 'quota', limits: { dailyAudioMinutes: 0.2 } }));
    const first = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' });
    expect(first.body.status).toBe('completed');
    const second = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' });
    expect(second.body.status).toBe('failed');
    expect(second.body.error).toMatchObject({ type: 'rate_limit_error', code: 'daily_quota_exceeded' });
    const usage = (await (await fetch(`${gw.url}/v1/usage`, { headers: client.headers() })).json()) as Record<string, any>;
    expect(usage['daily_minutes_used']).toBeCloseTo(first.body.duration_seconds / 60, 3);
    expect(usage['history'].at(-1).jobs).toBe(1);
  });

  it("lets another account's short sync job run while one account's jobs hold its share of the workers", async () => {
    const hog = new JobsClient(gw.url, await gw.key({ account: 'hog' }));
    // Each downloads from a server that stalls: it holds a worker until cancelled.
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await hog.submitUrl({ audio_url: stalling.url, language: 'am' }));
    expect(held.map((job) => job.status)).toEqual([202, 202, 202]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const other = new JobsClient(gw.url, await gw.key({ account: 'other' }));
    const started = Date.now();
    const quick = await other.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' });
    expect(quick.body.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(20_000);
    // The hog holds one of the two workers; its other jobs wait their turn.
    const states = await Promise.all(held.map(async (job) => (await hog.get(job.body.id)).body.status));
    expect(states.filter((status) => status === 'processing')).toHaveLength(1);
    for (const job of held) await fetch(`${gw.url}/v1/transcriptions/${job.body.id}/cancel`, { method: 'POST', headers: hog.headers() });
  });
});
