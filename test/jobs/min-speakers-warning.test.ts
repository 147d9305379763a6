import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { JobsClient, type Job } from '../helpers/jobs-client.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { MEDIA_DIR } from '../helpers/tls-servers.js';

// `min_speakers` a file cannot honour (a short clip of one voice asked for 20 speakers) completes
// with the speakers it has and a warning saying so, never silently.

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ MODELS_DIR: join(REPO_ROOT, 'models'), RATE_LIMIT_PER_MINUTE: '100000' });
}, 120_000);
afterAll(async () => gw?.close());

describe('min_speakers beyond what the audio holds', () => {
  it('completes with the speakers found and a warning naming min_speakers', async () => {
    const client = new JobsClient(gw.url, await gw.key());
    const submitted = await client.submitFile(join(MEDIA_DIR, 'hello-am.wav'), {
      language: 'am',
      diarize: 'true',
      diarization_config: JSON.stringify({ min_speakers: 20 }),
    });
    expect(submitted.status).toBe(202);
    const job: Job & { warnings?: string[] } = await client.waitFor(submitted.body.id, undefined, 60_000);
    expect(job.status).toBe('completed');
    expect(job.speakers.count).toBeLessThan(20);
    expect(job.warnings).toEqual([expect.stringMatching(new RegExp(`^min_speakers is 20, but only ${job.speakers.count} speakers? could be told apart`))]);
  });
});
