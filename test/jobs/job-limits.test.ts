import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioFixture, startStallingServer } from '../helpers/audio-files.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
let stalling: Awaited<ReturnType<typeof startStallingServer>>;

beforeAll(async () => {
  stalling = await startStallingServer();
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000', MAX_CONCURRENT_JOBS: '2', DAILY_AUDIO_MINUTES: '0.2' });
}, 120_000);

afterAll(async () => {
  await stalling?.close();
  await gw?.close();
});

describe('job admission limits', () => {
  it('answers 429 concurrent_limit_exceeded beyond the running-jobs limit, per key', async () => {
    const client = new JobsClient(gw.url, await gw.key({ account: 'busy', limits: { dailyAudioMinutes: 10_000 } }));
    // Both download from a server that stalls: they stay processing until cancelled.
    const first = await client.submitUrl({ audio_url: stalling.url, language: 'am' });
    const second = await client.submitUrl({ audio_url: stalling.url, language: 'am' });
    expect([first.status, second.status]).toEqual([202, 202]);
    const third = await client.submitFile(audioFixture('speech-am.mp3'), { language: 'am' });
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ type: 'rate_limit_error', code: 'concurrent_limit_exceeded' });
    expect(third.body.error.retry_after).toBeGreaterThan(0);
    const usage = (await (await fetch(`${gw.url}/v1/usage`, { headers: client.headers() })).json()) as Record<string, number>;
    expect(usage['concurrent_jobs']).toBe(2);
    expect(usage['concurrent_jobs_limit']).toBe(2);
    // A key with its own higher limit is not held back.
    const roomy = new JobsClient(gw.url, await gw.key({ account: 'busy', limits: { concurrentJobs: 5, dailyAudioMinutes: 10_000 } }));
    expect((await roomy.submitFile(audioFixture('speech-am.mp3'), { language: 'am' })).status).toBe(202);
    for (const job of [first, second]) await fetch(`${gw.url}/v1/transcriptions/${job.body.id}/cancel`, { method: 'POST', headers: client.headers() });
    expect((await client.submitFile(audioFixture('speech-am.mp3'), { language: 'am' })).status).toBe(202);
  });

  it("answers 429 daily_quota_exceeded once the day's audio minutes are used", async () => {
    // 8.1 s a day: the first 8.14 s file fits (a second of slack), and uses the day up.
    const client = new JobsClient(gw.url, await gw.key({ account: 'thrifty', limits: { dailyAudioMinutes: 0.135 } }));
    const first = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' });
    expect(first.body.status).toBe('completed');
    const second = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am' });
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe('daily_quota_exceeded');
    const secondsToMidnight = 86_400 - ((Date.now() / 1000) % 86_400);
    expect(Math.abs(second.body.error.retry_after - secondsToMidnight)).toBeLessThan(5);
    const usage = (await (await fetch(`${gw.url}/v1/usage`, { headers: client.headers() })).json()) as Record<string, any>;
    expect(usage['daily_minutes_used']).toBeGreaterThan(0.135);
    expect(usage['daily_minutes_limit']).toBe(0.135);
    expect(usage['history'].at(-1).jobs).toBe(1);
  });

  it('fails a job whose probed audio is more than the quota left, before decoding it', async () => {
    // 12 s a day (the server's DAILY_AUDIO_MINUTES): 3.9 s are left after the first file.
    const client = new JobsClient(gw.url, await gw.key({ account: 'thrifty' }));
    expect((await client.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' })).body.status).toBe('completed');
    const second = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' });
    expect(second.body.status).toBe('failed');
    expect(second.body.error).toMatchObject({ type: 'rate_limit_error', code: 'daily_quota_exceeded' });
  });
});
