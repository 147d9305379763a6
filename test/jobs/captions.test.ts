import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioFixture } from '../helpers/audio-files.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
let client: JobsClient;
let otherClient: JobsClient;

beforeAll(async () => {
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000' });
  client = new JobsClient(gw.url, await gw.key());
  otherClient = new JobsClient(gw.url, await gw.key({ account: 'someone-else' }));
}, 120_000);

afterAll(async () => {
  await gw?.close();
});

const CUE_TIMES = /^(\d{2}):(\d{2}):(\d{2})([.,])(\d{3}) --> (\d{2}):(\d{2}):(\d{2})[.,](\d{3})$/;

function parseCues(body: string): { startMs: number; endMs: number; lines: string[] }[] {
  const blocks = body
    .replace(/^WEBVTT\n\n/, '')
    .trim()
    .split('\n\n');
  return blocks.map((block) => {
    const [, times, ...lines] = block.split('\n');
    const m = CUE_TIMES.exec(times!);
    expect(m, times).not.toBeNull();
    const ms = (h: string, mi: string, s: string, f: string) => ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 + Number(f);
    return { startMs: ms(m![1]!, m![2]!, m![3]!, m![5]!), endMs: ms(m![6]!, m![7]!, m![8]!, m![9]!), lines };
  });
}

describe('GET /v1/transcriptions/{id}/captions.vtt|.srt', () => {
  it('serves WebVTT and SRT cues that carry the transcript in order within broadcast rules', async () => {
    const created = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am' });
    const job = await client.waitFor(created.body.id);
    expect(job.status).toBe('completed');
    const letters = (job.segments as { text: string }[])
      .map((s) => s.text)
      .join('')
      .replace(/\s+/g, '');

    const vtt = await fetch(`${gw.url}/v1/transcriptions/${job.id}/captions.vtt`, { headers: client.headers() });
    expect(vtt.status).toBe(200);
    expect(vtt.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    const vttBody = await vtt.text();
    expect(vttBody.startsWith('WEBVTT\n\n1\n')).toBe(true);
    const cues = parseCues(vttBody);
    expect(
      cues
        .flatMap((c) => c.lines)
        .join('')
        .replace(/\s+/g, ''),
    ).toBe(letters);
    for (const [i, cue] of cues.entries()) {
      expect(cue.lines.length).toBeLessThanOrEqual(2);
      for (const line of cue.lines) expect([...line].length).toBeLessThanOrEqual(42);
      expect(cue.endMs).toBeGreaterThan(cue.startMs);
      expect(cue.endMs).toBeLessThanOrEqual(job.duration_seconds * 1000 + 1000);
      if (i > 0) expect(cue.startMs).toBeGreaterThanOrEqual(cues[i - 1]!.endMs);
    }

    const srt = await fetch(`${gw.url}/v1/transcriptions/${job.id}/captions.srt`, { headers: client.headers() });
    expect(srt.status).toBe(200);
    expect(srt.headers.get('content-type')).toBe('application/x-subrip; charset=utf-8');
    const srtBody = await srt.text();
    expect(srtBody.startsWith('1\n')).toBe(true);
    expect(parseCues(srtBody)).toEqual(cues);
  });

  it('answers 409 before completion, 404 for another account and 401 without a key', async () => {
    const created = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am' });
    const early = await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/captions.vtt`, { headers: client.headers() });
    if (early.status !== 200) {
      expect(early.status).toBe(409);
      expect(((await early.json()) as { error: { code: string } }).error.code).toBe('job_not_completed');
    }
    const foreign = await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/captions.srt`, { headers: otherClient.headers() });
    expect(foreign.status).toBe(404);
    const anonymous = await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/captions.srt`);
    expect(anonymous.status).toBe(401);
    await client.waitFor(created.body.id);
  });
});
