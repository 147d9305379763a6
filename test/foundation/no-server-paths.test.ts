import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFfmpeg } from '../helpers/audio-files.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { JobsClient, TranscribeJobClient } from '../helpers/jobs-client.js';
import { startTestServer, type TestServer } from '../helpers/tls-servers.js';

/** Errors about bad audio say what is wrong in the user's terms and never name server paths. */
const AUDIO = (name: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'audio', name));
/** The first half of an M4A whose index (moov) comes last, as ffmpeg writes it: a cut-off upload. */
function makeTruncatedM4a(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'truncated-'));
  try {
    const target = join(dir, 'full.m4a');
    runFfmpeg(['-i', join(import.meta.dirname, '..', 'fixtures', 'audio', 'speech-am.flac'), '-c:a', 'aac', target]);
    const full = readFileSync(target);
    return full.subarray(0, Math.floor(full.length / 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const truncatedM4a = makeTruncatedM4a();
const corruptMp3 = AUDIO('corrupt.mp3');

const suite = useTestGateway({ RATE_LIMIT_PER_MINUTE: '100000' }, { scopes: ['write'] });
let files: TestServer;
beforeAll(async () => {
  files = await startTestServer({
    tls: true,
    respond: (req, res) => {
      const body = req.url.includes('truncated') ? truncatedM4a : corruptMp3;
      res.writeHead(200, { 'content-type': 'audio/mp4', 'content-length': String(body.length) }).end(body);
    },
  });
});
afterAll(async () => {
  await files?.close();
});

function expectNoPath(message: string): void {
  expect(message).not.toContain(suite.gw.dataDir);
  expect(message).not.toMatch(/\/(tmp|files|accounts|jobs)\//);
  expect(message).not.toMatch(/acct_|tr_[0-9a-z]{6,}|0x[0-9a-f]{6,}/);
}

describe('no server paths in error messages', () => {
  it('a truncated m4a upload is refused in user terms (transcriptions and uploads)', async () => {
    for (const path of ['/v1/transcriptions', '/v1/uploads']) {
      const form = new FormData();
      form.append('language', 'am');
      form.append('file', new Blob([truncatedM4a]), 'talk.m4a');
      const response = await fetch(`${suite.gw.url}${path}`, { method: 'POST', headers: bearer(suite.key), body: form });
      const body = (await response.json()) as any;
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(body.error.code).toBe('invalid_audio_format');
      expectNoPath(body.error.message);
      expect(body.error.message).toMatch(/talk\.m4a.*(incomplete|damaged)/);
    }
  });

  it('a URL job with a truncated or damaged file fails with a message in user terms (unified and job API)', async () => {
    const client = new JobsClient(suite.gw.url, suite.key);
    for (const name of ['truncated.m4a', 'corrupt.mp3']) {
      const created = await client.submitUrl({ audio_url: `${files.origin}/${name}`, language: 'am' });
      expect(created.status).toBe(202);
      const job = await client.waitFor(created.body.id);
      expect(job.status).toBe('failed');
      expect(job.error.code).toBe('invalid_audio_format');
      expectNoPath(job.error.message);
      expect(job.error.message).toMatch(/incomplete|damaged/);
    }
    const jobApi = new TranscribeJobClient(suite.gw.url, suite.key);
    const submitted = await jobApi.submit({ audio_urls: [`${files.origin}/truncated.m4a`], language: 'am' });
    const status = await jobApi.waitDone(((await submitted.json()) as { job_id: string }).job_id, 20_000);
    expect(status.status).toBe('FAILED');
    for (const text of [status.error, ...status.results.map((r: any) => r.error)]) expectNoPath(String(text));
  });
});
