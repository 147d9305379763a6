// An empty file gets one message on every endpoint that takes audio (issue 31 item 6): uploads to
// a job, an upload, a batch part, a signed PUT, an OpenAI-style upload, and a file fetched from
// `audio_url` by a job or by the job API. The name is the file's, or "The file" when fetched.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsupportedAudioMessage } from '../../src/engines/signal/signal.js';
import { TranscribeJobClient } from '../helpers/jobs-client.js';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';

const suite = useTestGateway({ RATE_LIMIT_PER_MINUTE: '100000', SYNC_WAIT_SECONDS: '30' });
let server: Server;
let emptyUrl: string;

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': '0' }).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  emptyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/empty.wav`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const EMPTY = 'empty.wav is empty (0 bytes); send audio in a supported format (MP3, WAV, M4A, FLAC, OGG, WEBM or AAC).';
const FETCHED = 'The file is empty (0 bytes); send audio in a supported format (MP3, WAV, M4A, FLAC, OGG, WEBM or AAC).';

function form(field: string, fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append(field, new Blob([new Uint8Array(0)]), 'empty.wav');
  return body;
}

async function errorOf(response: Response): Promise<{ status: number; message: string }> {
  const body = (await response.json()) as { error: { message: string } };
  return { status: response.status, message: body.error.message };
}

describe('an empty file', () => {
  it('gets the same message from every endpoint that takes audio', async () => {
    expect(unsupportedAudioMessage('empty.wav', 0)).toBe(EMPTY);
    const { gw, key } = suite;
    const post = (path: string, body: FormData): Promise<Response> => fetch(`${gw.url}${path}`, { method: 'POST', headers: bearer(key), body });

    expect(await errorOf(await post('/v1/transcriptions', form('file', { language: 'am' })))).toEqual({ status: 400, message: EMPTY });
    expect(await errorOf(await post('/v1/uploads', form('file')))).toEqual({ status: 400, message: EMPTY });
    expect(await errorOf(await post('/v1/audio/transcriptions', form('file', { model: 'whisper-1' })))).toEqual({ status: 400, message: EMPTY });

    const signed = (await (await fetch(`${gw.url}/v1/uploads/signed-url?filename=empty.wav&content_type=audio/wav`, { headers: bearer(key) })).json()) as {
      upload_url: string;
    };
    const put = await fetch(signed.upload_url.replace(gw.gateway.baseUrl, gw.url), {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: new Uint8Array(0),
    });
    expect(await errorOf(put)).toEqual({ status: 400, message: EMPTY });

    // A batch part fails its child job with the same message.
    const batch = (await (await post('/v1/transcriptions/batch', form('files', { language: 'am' }))).json()) as { id: string };
    let parent: { status: string; metadata: { jobs?: Array<{ job_id: string }> } };
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      parent = (await (await fetch(`${gw.url}/v1/transcriptions/${batch.id}`, { headers: bearer(key) })).json()) as typeof parent;
    } while (parent.status !== 'completed' && parent.status !== 'failed');
    const child = (await (await fetch(`${gw.url}/v1/transcriptions/${parent.metadata.jobs![0]!.job_id}`, { headers: bearer(key) })).json()) as {
      error: { message: string };
    };
    expect(child.error.message).toBe(EMPTY);

    // Fetched from audio_url: by a job, and by the job API.
    const job = (await (
      await fetch(`${gw.url}/v1/transcriptions`, {
        method: 'POST',
        headers: bearer(key, { 'content-type': 'application/json' }),
        body: JSON.stringify({ audio_url: emptyUrl, language: 'am', mode: 'sync' }),
      })
    ).json()) as { status: string; error: { message: string } };
    expect(job).toMatchObject({ status: 'failed', error: { message: FETCHED } });
    const { job: fileJob } = await new TranscribeJobClient(gw.url, key).run({ audio_urls: [emptyUrl], language: 'am' });
    expect(fileJob.results[0]).toMatchObject({ status: 'FAILED', error: FETCHED });
  }, 60_000);
});
