// The storage contract on a real S3-protocol server (s3rver from npm, in this process), then a
// gateway on it: jobs, transcripts and uploads in the bucket, playback through presigned GETs.
// s3rver checks requests' shape but not SigV4 signatures: signature checks are S3's (or MinIO's).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3FileStorage } from '../../src/platform/files/s3-file-storage.js';
import { audioFixture } from '../helpers/audio-files.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { S3RVER_CREDENTIALS, startS3, type TestS3 } from '../helpers/s3-server.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { storageContract } from './storage-contract.js';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => s3?.close());

const open = (prefix = ''): S3FileStorage =>
  new S3FileStorage({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    prefix,
    presignedDownloads: true,
    directUploads: true,
  });

storageContract('S3 (s3rver)', () => open());
storageContract('S3 with a key prefix', () => open('gateway/test'));

describe('S3 specifics', () => {
  it('presigns a GET that serves the object and Range without credentials', async () => {
    const storage = open();
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256));
    await storage.putBuffer('media/m1/audio.ogg', bytes, 'audio/ogg');
    const url = await storage.presignGet!('media/m1/audio.ogg', { expiresInSeconds: 60, filename: 'talk.ogg', contentType: 'audio/ogg' });
    expect(url).toContain('X-Amz-Signature=');
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await fetch(url, { headers: { range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 1000-1999/5000');
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    // (s3rver does not verify SigV4 signatures, so an altered link is not refused here; S3 and MinIO refuse it.)
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('60');
    expect(new URL(url).searchParams.get('response-content-disposition')).toBe('inline; filename="talk.ogg"');
  });

  it('reports an unreachable or missing bucket as unhealthy, without credentials in the detail', async () => {
    const missing = new S3FileStorage({
      bucket: 'no-such-bucket',
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
      prefix: '',
      presignedDownloads: true,
      directUploads: false,
    });
    const health = await missing.health();
    expect(health.ok).toBe(false);
    expect(health.detail).not.toContain(S3RVER_CREDENTIALS.secretAccessKey);
  });
});

describe('a gateway on S3 storage', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGateway({ ...s3.env, S3_PREFIX: 'gw', S3_DIRECT_UPLOADS: 'true', RATE_LIMIT_PER_MINUTE: '100000', SYNC_WAIT_SECONDS: '30' });
    key = await gw.key();
  }, 60_000);
  afterAll(async () => gw?.close());

  it('stores job audio and transcripts in the bucket and serves them through presigned GETs with Range', async () => {
    const health = (await (await fetch(`${gw.url}/health`)).json()) as { storage: { files: { backend: string; ok: boolean } } };
    expect(health.storage.files).toMatchObject({ backend: 's3', ok: true });
    const client = new JobsClient(gw.url, key);
    const created = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am' });
    expect(created.status).toBe(202);
    const job = await client.waitFor(created.body.id);
    expect(job.status).toBe('completed');
    const storage = open('gw');
    // The signed gateway link redirects to a presigned GET on the bucket.
    const signed = await fetch(`${gw.url}/v1/transcriptions/${job.id}/audio`, { headers: bearer(key), redirect: 'manual' });
    expect(signed.status).toBe(302);
    const gatewayLink = signed.headers.get('location')!;
    const redirect = await fetch(gatewayLink, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const presigned = redirect.headers.get('location')!;
    expect(presigned.startsWith(`${s3.endpoint}/${s3.bucket}/gw/accounts/`)).toBe(true);
    const original = readFileSync(audioFixture('speech-am.wav'));
    const part = await fetch(presigned, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(original.subarray(100, 200))).toBe(true);
    const transcriptLink = await fetch(`${gw.url}/v1/transcriptions/${job.id}/transcript`, { headers: bearer(key), redirect: 'manual' });
    const transcript = (await (await fetch(transcriptLink.headers.get('location')!)).json()) as { id: string; text: string };
    expect(transcript.id).toBe(job.id);
    expect(transcript.text).toBe(job.text);
    // Deleting the job removes its objects from the bucket.
    const audioKey = new URL(presigned).pathname.replace(`/${s3.bucket}/gw/`, '');
    expect(await storage.stat(audioKey)).not.toBeNull();
    expect((await fetch(`${gw.url}/v1/transcriptions/${job.id}`, { method: 'DELETE', headers: bearer(key) })).ok).toBe(true);
    expect(await storage.stat(audioKey)).toBeNull();
  }, 60_000);

  it('keeps uploads in the bucket and plays media back through a presigned GET', async () => {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(audioFixture('speech-am.mp3'))]), 'speech-am.mp3');
    const uploaded = await fetch(`${gw.url}/v1/uploads`, { method: 'POST', headers: bearer(key), body: form });
    expect(uploaded.status).toBe(201);
    const media = (await uploaded.json()) as { file_id: string };
    const described = (await (await fetch(`${gw.url}/v1/media/${media.file_id}`, { headers: bearer(key) })).json()) as { playback_url: string };
    const redirect = await fetch(new URL(described.playback_url, gw.url), { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const part = await fetch(redirect.headers.get('location')!, { headers: { range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(readFileSync(audioFixture('speech-am.mp3')).subarray(0, 100))).toBe(true);
  }, 60_000);

  it('direct uploads go to the bucket through a presigned PUT, are checked at finalize, and can be transcribed', async () => {
    const mp3 = readFileSync(audioFixture('speech-am.mp3'));
    const issue = async (filename: string, type: string): Promise<{ upload_url: string; file_id: string; file_url: string; method: string }> =>
      (await (
        await fetch(`${gw.url}/v1/uploads/signed-url?filename=${filename}&content_type=${encodeURIComponent(type)}`, { headers: bearer(key) })
      ).json()) as never;
    const upload = await issue('talk.mp3', 'audio/mpeg');
    expect(upload.method).toBe('PUT');
    expect(upload.upload_url.startsWith(`${s3.endpoint}/${s3.bucket}/gw/`)).toBe(true);
    const finalize = (id: string): Promise<Response> => fetch(`${gw.url}/v1/uploads/${id}/finalize`, { method: 'POST', headers: bearer(key) });
    // Nothing in the bucket yet.
    const early = await finalize(upload.file_id);
    expect(early.status).toBe(409);
    expect(((await early.json()) as { error: { code: string } }).error.code).toBe('upload_not_complete');
    const put = await fetch(upload.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/mpeg' }, body: mp3 });
    expect(put.status).toBe(200);
    const done = await finalize(upload.file_id);
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ file_id: upload.file_id, status: 'ready', format: 'mp3', size_bytes: mp3.length });
    // Usable as a job's audio.
    const client = new JobsClient(gw.url, key);
    const created = await client.submitUrl({ audio_url: upload.file_url, language: 'am' });
    expect(created.status).toBe(202);
    expect((await client.waitFor(created.body.id)).status).toBe('completed');

    // Bytes that are not audio are refused at finalize and removed from the bucket.
    const bogus = await issue('notes.mp3', 'audio/mpeg');
    await fetch(bogus.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/mpeg' }, body: 'not audio at all' });
    const refused = await finalize(bogus.file_id);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_audio_format');
    const storage = open('gw');
    const bogusKey = new URL(bogus.upload_url).pathname.replace(`/${s3.bucket}/gw/`, '');
    expect(await storage.stat(bogusKey)).toBeNull();
  }, 60_000);
});
