// DIARIZATION_EMBEDDING_MODEL on a real gateway (port 0, shipped models): a WeSpeaker-style
// speaker-embedding ONNX (test/fixtures/speaker-embedding/tiny-wespeaker.onnx, random weights) is
// checked at start-up (logged with its framework and size), and diarized jobs of both backends,
// through the unified API, get speakers from it: the operator sees the windows it embedded in
// gateway_diarization_embedding_model_windows_total. A missing file, or one without the metadata,
// stops start-up with an error naming the file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logging/logger.js';
import { fixturePath, REPO_ROOT, writeConversationWav } from '../helpers/fixtures.js';
import { JobsClient, type Job } from '../helpers/jobs-client.js';
import { twoSpeakerConversation } from '../helpers/speaker-conversation.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

const MODEL = fixturePath('speaker-embedding/tiny-wespeaker.onnx');
const SETTINGS = {
  MODELS_DIR: join(REPO_ROOT, 'models'),
  METRICS_ENABLED: 'true',
  RATE_LIMIT_PER_MINUTE: '100000',
  JOB_SUBMISSIONS_PER_HOUR: '1000',
  MAX_CONCURRENT_JOBS: '20',
};

const scratch = useScratchDir('embedding-model-api-');
let gw: TestGateway;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  writeConversationWav(scratch('two.wav'), twoSpeakerConversation());
  const logger = createLogger('info', { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
  gw = await startTestGateway({ ...SETTINGS, DIARIZATION_EMBEDDING_MODEL: MODEL }, { logger });
}, 120_000);

afterAll(async () => {
  await gw?.close();
});

/** The sample of `name` with these labels, or null. */
async function metric(name: string, labels: Record<string, string>): Promise<number | null> {
  const exposition = await (await fetch(gw.metricsUrl!)).text();
  const found = exposition.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return found === undefined ? null : Number(found.slice(found.lastIndexOf(' ') + 1));
}

describe('DIARIZATION_EMBEDDING_MODEL', () => {
  it('is checked and logged at start-up', () => {
    const line = logLines.find((l) => l['msg'] === 'diarization embeds speaker windows with a speaker-embedding network');
    expect(line).toMatchObject({ diarizationEmbeddingModel: MODEL, framework: 'wespeaker', dim: 16 });
  });

  it('gives the speakers of diarized jobs on both backends, through the unified API', async () => {
    const client = new JobsClient(gw.url, await gw.key());
    expect(await metric('gateway_diarization_embedding_model_windows_total', { backend: 'backend_a' })).toBeNull();
    for (const backend of ['backend_a', 'backend_b']) {
      const upload = await client.submitFile(scratch('two.wav'), {
        language: 'am',
        diarize: 'true',
        diarization_config: JSON.stringify({ backend, min_speakers: 2, max_speakers: 2 }),
      });
      expect(upload.status).toBe(202);
      const job: Job = await client.waitFor(upload.body.id, undefined, 120_000);
      expect(job.status).toBe('completed');
      expect(job.warnings).toEqual([]);
      expect(job.speakers).toEqual({ count: 2, labels: ['SPEAKER_00', 'SPEAKER_01'] });
      const labelled = job.segments.filter((s: { speaker: string | null }) => s.speaker !== null);
      expect(labelled.length).toBeGreaterThan(0);
      // 6 turns of speech, about 20 s: 1.5 s windows every 0.76 s.
      const windows = await metric('gateway_diarization_embedding_model_windows_total', { backend });
      expect(windows).toBeGreaterThan(15);
    }
    // Every file ran to the end (no fallback to the built-in features without the metric).
    expect(await metric('gateway_diarization_runs_total', { backend: 'backend_a', outcome: 'ok' })).toBe(1);
    expect(await metric('gateway_diarization_runs_total', { backend: 'backend_b', outcome: 'ok' })).toBe(1);
  }, 240_000);

  it('stops start-up naming the file when it is missing or lacks the metadata', async () => {
    await expect(startTestGateway({ ...SETTINGS, DIARIZATION_EMBEDDING_MODEL: scratch('none.onnx') })).rejects.toThrow(
      `speaker embedding model ${scratch('none.onnx')}: the file is missing or unreadable`,
    );
    // The fixture's metadata entries are appended at its end; cut them off.
    const bytes = readFileSync(MODEL);
    const bare = scratch('bare.onnx');
    writeFileSync(bare, bytes.subarray(0, bytes.indexOf(Buffer.from('framework')) - 4));
    await expect(startTestGateway({ ...SETTINGS, DIARIZATION_EMBEDDING_MODEL: bare })).rejects.toThrow(
      `speaker embedding model ${bare}: metadata framework null is not wespeaker or 3d-speaker`,
    );
    // Not an ONNX file at all.
    const text = scratch('text.onnx');
    writeFileSync(text, 'not a model');
    await expect(startTestGateway({ ...SETTINGS, DIARIZATION_EMBEDDING_MODEL: text })).rejects.toThrow(`speaker embedding model ${text}:`);
  }, 60_000);
});
