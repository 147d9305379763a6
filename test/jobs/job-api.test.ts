import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioFixture, startFileServer } from '../helpers/audio-files.js';
import { TranscribeJobClient } from '../helpers/jobs-client.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
let key: string;
let files: Awaited<ReturnType<typeof startFileServer>>;
let jobs: TranscribeJobClient;

beforeAll(async () => {
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000', JOB_SUBMISSIONS_PER_HOUR: '3' });
  key = await gw.key();
  jobs = new TranscribeJobClient(gw.url, key);
  files = await startFileServer({ 'a.mp3': audioFixture('speech-am.mp3'), 'b.flac': audioFixture('speech-am.flac') });
});

afterAll(async () => {
  await files?.close();
  await gw?.close();
});

describe('the job API', () => {
  it('transcribes several files and serves transcript JSON through 15-minute signed URLs', async () => {
    const response = await jobs.submit({ audio_urls: [files.url('a.mp3'), files.url('b.flac')], language: 'am' });
    expect(response.status).toBe(202);
    const submitted = (await response.json()) as { job_id: string; status: string; message: string };
    expect(submitted.status).toBe('pending');
    const job = await jobs.waitDone(submitted.job_id);
    expect(job.status).toBe('COMPLETED');
    expect(job.transcript_urls).toHaveLength(2);
    expect(job.results.map((r: { original_url: string }) => r.original_url)).toEqual([files.url('a.mp3'), files.url('b.flac')]);
    for (const result of job.results) {
      expect(result).toMatchObject({ status: 'COMPLETED', error: null });
      expect(result.duration).toBeGreaterThan(7);
      expect(result.num_segments).toBeGreaterThan(0);
    }
    const expires = Number(new URL(job.transcript_urls[0]).searchParams.get('expires'));
    expect(expires - Date.now() / 1000).toBeGreaterThan(14 * 60);
    expect(expires - Date.now() / 1000).toBeLessThanOrEqual(15 * 60);
    const transcript = (await (await fetch(job.transcript_urls[0])).json()) as any;
    expect(transcript).toMatchObject({ job_id: submitted.job_id, status: 'COMPLETED', language: 'am' });
    expect(transcript.segments[0]).toMatchObject({ id: 0, type: 'speech' });
    expect(transcript.segments[0].start_time).toMatch(/^\d+\.\d\d$/);
    expect(transcript.speakers).toBeUndefined();
  });

  it('reports PARTIAL with a per-file error when one file fails; the completed file is diarized', async () => {
    const response = await jobs.submit({ audio_urls: [files.url('a.mp3'), files.url('missing.wav')], language: 'am', diarize: true });
    const { job_id } = (await response.json()) as { job_id: string };
    const job = await jobs.waitDone(job_id);
    expect(job.status).toBe('PARTIAL');
    expect(job.results[1]).toMatchObject({ status: 'FAILED', transcript_url: null });
    expect(job.results[1].error).toContain('404');
    const transcript = (await (await fetch(job.transcript_urls[0])).json()) as any;
    expect(transcript.warnings).toEqual([]);
    expect(transcript.speakers.count).toBeGreaterThanOrEqual(1);
    expect(transcript.speakers.labels[0]).toBe('SPEAKER_00');
    expect(transcript.segments[0].speaker).toBe('SPEAKER_00');
  });

  it('reports FAILED with a top-level error when every file fails', async () => {
    const { job_id } = (await (await jobs.submit({ audio_urls: [files.url('nope.mp3')], language: 'am' })).json()) as { job_id: string };
    const job = await jobs.waitDone(job_id);
    expect(job.status).toBe('FAILED');
    expect(job.error).toContain('failed');
    expect(job.transcript_urls).toEqual([]);
  });

  it('validates diarization bounds and limits submissions per hour', async () => {
    const bounds = await jobs.submit({
      audio_urls: [files.url('a.mp3')],
      language: 'am',
      diarize: true,
      diarization_config: { min_speakers: 5, max_speakers: 2 },
    });
    expect(bounds.status).toBe(422);
    expect(((await bounds.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(['body', 'diarization_config']);
    const over = await jobs.submit({ audio_urls: [files.url('a.mp3')], language: 'am' });
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ detail: 'Rate limit exceeded: 3 requests/hour' });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers 404 for unified jobs and other accounts', async () => {
    const other = await gw.key({ account: 'other' });
    const { job_id } = (await (await jobs.submit({ audio_urls: [files.url('a.mp3')], language: 'zz' })).json()) as { job_id?: string };
    expect(job_id).toBeUndefined();
    const list = (await (await fetch(`${gw.url}/v1/transcriptions`, { headers: { authorization: `Bearer ${key}` } })).json()) as { total: number };
    expect(list.total).toBe(0); // job-API jobs are not mixed into the unified list
    const response = await fetch(`${gw.url}/transcribe/tr_x`, { headers: { 'x-api-key': other } });
    expect(response.status).toBe(404);
  });
});
