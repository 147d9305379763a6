import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioFixture, startFileServer, startStallingServer } from '../helpers/audio-files.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
let client: JobsClient;
let files: Awaited<ReturnType<typeof startFileServer>>;
let stalling: Awaited<ReturnType<typeof startStallingServer>>;

beforeAll(async () => {
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000', SYNC_WAIT_SECONDS: '30' });
  client = new JobsClient(gw.url, await gw.key());
  stalling = await startStallingServer();
  files = await startFileServer({ 'speech.mp3': audioFixture('speech-am.mp3'), 'text.txt': audioFixture('not-audio.txt') });
}, 120_000);

afterAll(async () => {
  await stalling?.close();
  await files?.close();
  await gw?.close();
});

const SEGMENT_KEYS = ['confidence', 'duration_ms', 'end_ms', 'id', 'speaker', 'start_ms', 'text'];
/** The one extension a plain request's segments carry beyond the spec's keys (OpenAPI Segment `words`, issue 31). */
const SEGMENT_EXTENSIONS = ['words'];

describe('POST /v1/transcriptions', () => {
  it('transcribes an audio_url into the spec job record', async () => {
    const created = await client.submitUrl({ audio_url: files.url('speech.mp3'), language: 'am' });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ object: 'transcription', status: 'queued', language: 'am', text: null, segments: null, speakers: null });
    expect(created.body.url).toBe(`/v1/transcriptions/${created.body.id}`);
    expect(created.body.metadata).toMatchObject({ language: 'am', model: '' });
    expect(created.body.audio_url).toBe(files.url('speech.mp3'));
    const job = await client.waitFor(created.body.id);
    expect(job.status).toBe('completed');
    expect(job.duration_seconds).toBeGreaterThan(7);
    expect(job.duration_seconds).toBeLessThan(9);
    expect(job.processing_time_seconds).toBeGreaterThan(0);
    expect(job.progress).toMatchObject({ stage: 'completed', percent: 100 });
    expect(typeof job.text).toBe('string');
    expect(job.segments.length).toBeGreaterThan(0);
    for (const [i, segment] of job.segments.entries()) {
      expect(
        Object.keys(segment)
          .filter((key) => !SEGMENT_EXTENSIONS.includes(key))
          .sort(),
      ).toEqual(SEGMENT_KEYS);
      for (const word of segment.words) expect(Object.keys(word).sort()).toEqual(['confidence', 'end_ms', 'start_ms', 'word']);
      expect(segment.id).toBe(i);
      expect(segment.duration_ms).toBe(segment.end_ms - segment.start_ms);
      expect(segment.end_ms).toBeLessThanOrEqual(job.duration_seconds * 1000 + 50);
    }
    expect(job.error).toBeNull();
    expect(job.completed_at).not.toBeNull();
    expect(job.result_url).toBe(`/v1/transcriptions/${job.id}/transcript`);
  });

  it.each(['mp3', 'wav', 'm4a', 'flac', 'ogg', 'webm', 'aac'])('accepts a %s upload', async (extension) => {
    const created = await client.submitFile(audioFixture(`speech-am.${extension}`), { language: 'am' });
    expect(created.status).toBe(202);
    expect(created.body.audio_url).toBeNull();
    const job = await client.waitFor(created.body.id);
    expect(job.status).toBe('completed');
    expect(job.duration_seconds).toBeGreaterThan(7);
  });

  it('refuses non-audio and corrupt uploads at submission with 400 invalid_audio_format', async () => {
    for (const name of ['not-audio.txt', 'corrupt.m4a']) {
      const refused = await client.submitFile(audioFixture(name), { language: 'am' });
      expect(refused.status, name).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_audio_format', param: 'file' });
    }
  });

  it('fails a job whose audio_url is not audio, with the error on the job', async () => {
    const created = await client.submitUrl({ audio_url: files.url('text.txt'), language: 'am' });
    const job = await client.waitFor(created.body.id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_audio_format' });
  });

  it('fails a job whose audio_url answers 404', async () => {
    const created = await client.submitUrl({ audio_url: files.url('missing.mp3'), language: 'am' });
    const job = await client.waitFor(created.body.id);
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('audio_download_failed');
    expect(job.error.message).toContain('404');
  });

  it('applies the model rules with their exact codes', async () => {
    const auto = await client.submitUrl({ audio_url: files.url('speech.mp3'), language: 'auto', model: 'tiny-ctc' });
    expect(auto.status).toBe(400);
    expect(auto.body.error.code).toBe('INVALID_FIELD');
    const unknownModel = await client.submitUrl({ audio_url: files.url('speech.mp3'), language: 'am', model: 'huge-am-v9' });
    expect(unknownModel.status).toBe(422);
    expect(unknownModel.body.error.code).toBe('UNSUPPORTED_MODEL');
    expect(unknownModel.body.error.message).toContain('tiny-ctc');
    const unknownLanguage = await client.submitUrl({ audio_url: files.url('speech.mp3'), language: 'en' });
    expect(unknownLanguage.status).toBe(422);
    expect(unknownLanguage.body.error.code).toBe('UNSUPPORTED_LANGUAGE');
    expect(unknownLanguage.body.error.message).toContain('auto');
    const missing = await client.submitUrl({ audio_url: files.url('speech.mp3') });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'missing_required_field', param: 'language' });
    const explicit = await client.submitUrl({ audio_url: files.url('speech.mp3'), language: 'am', model: 'tiny-ctc' });
    expect(explicit.status).toBe(202);
    expect(explicit.body.metadata.model).toBe('tiny-ctc');
  });

  it('detects the language for auto and reports it', async () => {
    const created = await client.submitFile(audioFixture('speech-om.flac'), { language: 'auto' });
    expect(created.status).toBe(202);
    expect(created.body.language).toBe('auto');
    const job = await client.waitFor(created.body.id);
    expect(job.status).toBe('completed');
    expect(['am', 'om']).toContain(job.language);
    expect(job.metadata.language).toBe('auto');
  });

  it("waits in sync mode and answers 202 (the spec's status) with the finished job", async () => {
    const created = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('completed');
    expect(created.body.segments.length).toBeGreaterThan(0);
  });

  it('rejects audio_url values that are not http(s) URLs', async () => {
    const bad = await client.submitUrl({ audio_url: 'ftp://example.com/a.mp3', language: 'am' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_field_value', param: 'audio_url' });
  });
});

describe('cancel, delete and stored files', () => {
  it('cancels a processing job, and refuses to cancel a finished one with 409', async () => {
    const created = await client.submitUrl({ audio_url: stalling.url, language: 'am' });
    await client.waitFor(created.body.id, (j) => j.status === 'processing');
    const cancelled = await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/cancel`, { method: 'POST', headers: client.headers() });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { status: string }).status).toBe('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await client.get(created.body.id)).body.status).toBe('cancelled');
    const again = await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/cancel`, { method: 'POST', headers: client.headers() });
    expect(again.status).toBe(409);

    const done = await client.submitFile(audioFixture('speech-am.ogg'), { language: 'am', mode: 'sync' });
    const refused = await fetch(`${gw.url}/v1/transcriptions/${done.body.id}/cancel`, { method: 'POST', headers: client.headers() });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('job_not_cancellable');
  });

  it('deletes a job during processing together with its files', async () => {
    const created = await client.submitUrl({ audio_url: stalling.url, language: 'am' });
    await client.waitFor(created.body.id, (j) => j.status === 'processing');
    const deleted = await fetch(`${gw.url}/v1/transcriptions/${created.body.id}`, { method: 'DELETE', headers: client.headers() });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: created.body.id, object: 'transcription', deleted: true });
    expect((await client.get(created.body.id)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { readdirSync, existsSync } = await import('node:fs');
    const accountDirs = readdirSync(join(gw.dataDir, 'files', 'accounts'));
    for (const account of accountDirs) expect(existsSync(join(gw.dataDir, 'files', 'accounts', account, 'jobs', created.body.id))).toBe(false);
  });

  it('redirects /audio and /transcript to signed URLs that serve the files, with Range', async () => {
    const created = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' });
    const id = created.body.id;
    const audio = await fetch(`${gw.url}/v1/transcriptions/${id}/audio`, { headers: client.headers(), redirect: 'manual' });
    expect(audio.status).toBe(302);
    const audioUrl = audio.headers.get('location')!;
    expect(audioUrl).toMatch(/expires=\d+&sig=/);
    const whole = await fetch(audioUrl);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(readFileSync(audioFixture('speech-am.wav')))).toBe(true);
    const part = await fetch(audioUrl, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${readFileSync(audioFixture('speech-am.wav')).length}`);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    const tampered = audioUrl.replace(/sig=([^&]+)/, (_, sig: string) => `sig=${sig.slice(0, -2)}AA`);
    expect((await fetch(tampered)).status).toBe(403);
    const otherPath = audioUrl.replace('/audio?', '/transcript?');
    expect((await fetch(otherPath)).status).toBe(403);

    const transcript = await fetch(`${gw.url}/v1/transcriptions/${id}/transcript`, { headers: client.headers(), redirect: 'manual' });
    expect(transcript.status).toBe(302);
    const document = (await (await fetch(transcript.headers.get('location')!)).json()) as Record<string, unknown>;
    expect(document).toMatchObject({ id, language: 'am', text: created.body.text });
    expect(document['segments']).toEqual(created.body.segments);
  });

  it('answers 409 for files of an unfinished job and 404 for another account', async () => {
    const created = await client.submitUrl({ audio_url: stalling.url, language: 'am' });
    const early = await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/transcript`, { headers: client.headers(), redirect: 'manual' });
    expect(early.status).toBe(409);
    expect(((await early.json()) as { error: { code: string } }).error.code).toBe('job_not_completed');
    const stranger = new JobsClient(gw.url, await gw.key({ account: 'someone-else' }));
    expect((await stranger.get(created.body.id)).status).toBe(404);
    const cancelAsStranger = await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/cancel`, { method: 'POST', headers: stranger.headers() });
    expect(cancelAsStranger.status).toBe(404);
    await fetch(`${gw.url}/v1/transcriptions/${created.body.id}/cancel`, { method: 'POST', headers: client.headers() });
  });
});

describe('GET /v1/transcriptions', () => {
  it("pages with a cursor, filters, counts the total, and shows only the account's jobs", async () => {
    const own = new JobsClient(gw.url, await gw.key({ account: 'lister' }));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await own.submitFile(audioFixture('speech-am.mp3'), { language: 'am', mode: 'sync' })).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const page = (await (await fetch(`${gw.url}/v1/transcriptions${query}`, { headers: own.headers() })).json()) as any;
      expect(page.total).toBe(5);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((j: { id: string }) => j.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([...ids].reverse());
    const completed = (await (await fetch(`${gw.url}/v1/transcriptions?status_filter=completed&source=batch`, { headers: own.headers() })).json()) as any;
    expect(completed.total).toBe(5);
    const failed = (await (await fetch(`${gw.url}/v1/transcriptions?status_filter=failed`, { headers: own.headers() })).json()) as any;
    expect(failed).toEqual({ data: [], has_more: false, next_cursor: null, total: 0 });
    const sockets = (await (await fetch(`${gw.url}/v1/transcriptions?source=websocket`, { headers: own.headers() })).json()) as any;
    expect(sockets.total).toBe(0);
  });

  it('answers 422 for bad query values', async () => {
    for (const query of ['status_filter=done', 'limit=0', 'limit=100000', 'cursor=%%%', 'source=ftp']) {
      const response = await fetch(`${gw.url}/v1/transcriptions?${query}`, { headers: client.headers() });
      expect(response.status, query).toBe(422);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('validation_error');
    }
  });
});
