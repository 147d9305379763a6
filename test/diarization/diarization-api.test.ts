// Speaker diarization through the job API and the unified API, on a real gateway (port 0) with
// the shipped models, fed synthetic conversations of real ALFFA speakers (two speaker groups =
// two people) built by the diarization benchmark's builder.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConversation, loadGroupClips, type Conversation } from '../../training/common/diarization-conversations.js';
import { startFileServer } from '../helpers/audio-files.js';
import { REPO_ROOT, writeConversationWav } from '../helpers/fixtures.js';
import { JobsClient, TranscribeJobClient, type Job } from '../helpers/jobs-client.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

/** Two held-out speaker groups (neither trained nor tuned on), eight alternating turns. */
const GROUPS = ['091', '120'];
const MODELS_DIR = join(REPO_ROOT, 'models');
const LIMITS = { MODELS_DIR, METRICS_ENABLED: 'true', RATE_LIMIT_PER_MINUTE: '100000', JOB_SUBMISSIONS_PER_HOUR: '1000', MAX_CONCURRENT_JOBS: '20' };

let gw: TestGateway;
let failing: TestGateway;
let dir: string;
let conversation: Conversation;
let files: Awaited<ReturnType<typeof startFileServer>>;

beforeAll(async () => {
  await loadGroupClips(GROUPS, 12);
  conversation = buildConversation('two-speakers', GROUPS, 2, 8, 42);
  dir = mkdtempSync(join(tmpdir(), 'diarization-api-'));
  files = await startFileServer({ 'two.wav': writeConversationWav(join(dir, 'two.wav'), conversation) });
  gw = await startTestGateway(LIMITS);
  // The failure rule, provoked for real: no diarization finishes within 1 ms.
  failing = await startTestGateway({ ...LIMITS, DIARIZATION_TIMEOUT_MS: '1' });
}, 120_000);

afterAll(async () => {
  await files?.close();
  await gw?.close();
  await failing?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function jobApi(gateway: TestGateway, body: Record<string, unknown>): Promise<{ job: any; transcript: any }> {
  return new TranscribeJobClient(gateway.url, await gateway.key()).run({ audio_urls: [files.url('two.wav')], language: 'am', ...body });
}

/** The reference speaker (of the builder's turns) covering most of a segment. */
function referenceSpeaker(startMs: number, endMs: number): string | null {
  let best: string | null = null;
  let most = 0;
  for (const turn of conversation.reference) {
    const shared = Math.min(endMs, turn.endMs) - Math.max(startMs, turn.startMs);
    if (shared > most) {
      most = shared;
      best = turn.speaker;
    }
  }
  return best;
}

const speakersIn = (segments: { speaker: string | null }[]): string[] => [...new Set(segments.map((s) => s.speaker).filter((s): s is string => s !== null))];

describe('diarization on the job API', () => {
  it('finds the two speakers of a two-speaker file, labelled SPEAKER_00/SPEAKER_01 by first appearance', async () => {
    const { job, transcript } = await jobApi(gw, { diarize: true });
    expect(job.status).toBe('COMPLETED');
    expect(transcript.speakers).toEqual({ count: 2, labels: ['SPEAKER_00', 'SPEAKER_01'] });
    expect(transcript.warnings).toEqual([]);
    const segments = transcript.segments as { id: number; start_time: string; end_time: string; speaker: string | null; text: string }[];
    expect(segments.length).toBeGreaterThan(4);
    expect(segments.map((s) => s.id)).toEqual(segments.map((_, i) => i));
    for (const s of segments) expect(s.speaker === null || /^SPEAKER_\d\d$/.test(s.speaker)).toBe(true);
    // Numbered by first appearance: the first labelled segment is SPEAKER_00, the next new one SPEAKER_01.
    expect(speakersIn(segments)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    // Segments split at a speaker change split their words: each keeps the words of its own text, inside it.
    for (const s of segments as unknown as {
      start_time: string;
      end_time: string;
      text: string;
      words?: { word: string; start_time: string; end_time: string }[];
    }[]) {
      if (s.text === '') continue;
      expect(s.words!.map((w) => w.word).join(' ')).toBe(s.text);
      for (const w of s.words!) expect(Number(w.start_time) >= Number(s.start_time) && Number(w.end_time) <= Number(s.end_time)).toBe(true);
    }
    // And they are the two people: most segments' label matches the builder's reference speaker.
    const pairs = segments
      .filter((s) => s.speaker !== null)
      .map((s) => [s.speaker!, referenceSpeaker(Number(s.start_time) * 1000, Number(s.end_time) * 1000)] as const);
    const mapping = new Map<string, Map<string | null, number>>();
    for (const [hyp, ref] of pairs) mapping.set(hyp, new Map([...(mapping.get(hyp) ?? new Map()), [ref, (mapping.get(hyp)?.get(ref) ?? 0) + 1]]));
    const agreeing = [...mapping.values()].reduce((sum, refs) => sum + Math.max(...refs.values()), 0);
    expect(agreeing / pairs.length).toBeGreaterThan(0.7);
    const refOf = (label: string) => [...mapping.get(label)!.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    expect(refOf('SPEAKER_00')).not.toBe(refOf('SPEAKER_01'));
  });

  it('honours the speaker bounds: min=max=1 gives one speaker, min=3 at least three', async () => {
    const one = await jobApi(gw, { diarize: true, diarization_config: { min_speakers: 1, max_speakers: 1 } });
    expect(one.transcript.speakers).toEqual({ count: 1, labels: ['SPEAKER_00'] });
    expect(speakersIn(one.transcript.segments)).toEqual(['SPEAKER_00']);
    const three = await jobApi(gw, { diarize: true, diarization_config: { min_speakers: 3, backend: 'backend_b' } });
    expect(three.transcript.speakers.count).toBeGreaterThanOrEqual(3);
    // Labels on segments come first, in order of first appearance; every one of them is listed.
    const onSegments = speakersIn(three.transcript.segments);
    expect(three.transcript.speakers.labels.slice(0, onSegments.length)).toEqual(onSegments);
    expect(three.transcript.speakers.labels).toEqual(
      Array.from({ length: three.transcript.speakers.count }, (_, i) => `SPEAKER_${String(i).padStart(2, '0')}`),
    );
  });

  it('a diarization that times out leaves the job COMPLETED with the plain transcript and a warning', async () => {
    const plain = await jobApi(failing, {});
    const { job, transcript } = await jobApi(failing, { diarize: true });
    expect(job.status).toBe('COMPLETED');
    expect(job.results[0]).toMatchObject({ status: 'COMPLETED', error: null });
    expect(transcript.warnings).toHaveLength(1);
    expect(transcript.warnings[0]).toMatch(/diarization timed out after 1 ms/i);
    expect(transcript.speakers).toEqual({ count: 0, labels: [] });
    expect(transcript.text).toBe(plain.transcript.text);
    expect(transcript.segments.map((s: { speaker: unknown }) => s.speaker)).toEqual(plain.transcript.segments.map(() => null));
    expect(transcript.segments.map(({ speaker: _s, ...rest }: { speaker: unknown }) => rest)).toEqual(plain.transcript.segments);
  });

  it('exports each diarization by backend and outcome, with its time, audio and speakers', async () => {
    /** The sample of `name` with these labels (in any order), or null. */
    const metric = async (gateway: TestGateway, name: string, labels: Record<string, string>): Promise<number | null> => {
      const exposition = await (await fetch(gateway.metricsUrl!)).text();
      const found = exposition.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
      return found === undefined ? null : Number(found.slice(found.lastIndexOf(' ') + 1));
    };
    // The tests above ran on `gw`: the two-speaker file and min=max=1 with backend_a (default), min=3 with backend_b.
    expect(await metric(gw, 'gateway_diarization_runs_total', { backend: 'backend_a', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect(await metric(gw, 'gateway_diarization_runs_total', { backend: 'backend_b', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(await metric(gw, 'gateway_diarization_seconds_count', { backend: 'backend_b' })).toBeGreaterThanOrEqual(1);
    expect(await metric(gw, 'gateway_diarization_audio_seconds_total', { backend: 'backend_b' })).toBeCloseTo(conversation.pcm.length / 16_000, 0);
    // The min=3 run found several speakers: backend_b's one file is not in the one-speaker bucket.
    expect(await metric(gw, 'gateway_diarization_speakers_bucket', { le: '1', backend: 'backend_b' })).toBe(0);
    expect(await metric(failing, 'gateway_diarization_runs_total', { backend: 'backend_a', outcome: 'timeout' })).toBe(1);
    expect(await metric(failing, 'gateway_diarization_runs_total', { backend: 'backend_a', outcome: 'ok' })).toBeNull();
  });

  it('without diarize, segments have no speaker field and the transcript no speakers or warnings', async () => {
    const { transcript } = await jobApi(gw, {});
    expect(transcript.speakers).toBeUndefined();
    expect(transcript.warnings).toBeUndefined();
    for (const s of transcript.segments) expect(s).not.toHaveProperty('speaker');
  });
});

describe('diarization on the unified API (extension)', () => {
  it('POST /v1/transcriptions with diarize fills segment speakers and speakers; without it both stay null', async () => {
    const client = new JobsClient(gw.url, await gw.key());
    const asked = await client.submitUrl({ audio_url: files.url('two.wav'), language: 'am', diarize: true, diarization_config: { max_speakers: 2 } });
    expect(asked.status).toBe(202);
    const plain = await client.submitUrl({ audio_url: files.url('two.wav'), language: 'am' });
    const diarized: Job = await client.waitFor(asked.body.id, undefined, 120_000);
    expect(diarized.status).toBe('completed');
    expect(diarized.speakers).toEqual({ count: 2, labels: ['SPEAKER_00', 'SPEAKER_01'] });
    expect(diarized.warnings).toEqual([]);
    expect(speakersIn(diarized.segments)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    const undiarized: Job = await client.waitFor(plain.body.id, undefined, 120_000);
    expect(undiarized.speakers).toBeNull();
    expect(undiarized).not.toHaveProperty('warnings');
    expect(undiarized.segments.every((s: { speaker: unknown }) => s.speaker === null)).toBe(true);
  });

  it('checks the bounds (400) and takes the multipart form', async () => {
    const client = new JobsClient(gw.url, await gw.key());
    const inverted = await client.submitUrl({
      audio_url: files.url('two.wav'),
      language: 'am',
      diarize: true,
      diarization_config: { min_speakers: 4, max_speakers: 2 },
    });
    expect(inverted.status).toBe(400);
    expect(inverted.body.error).toMatchObject({ code: 'invalid_field_value', param: 'diarization_config' });
    const upload = await client.submitFile(join(dir, 'two.wav'), {
      language: 'am',
      diarize: 'true',
      diarization_config: '{"min_speakers":1,"max_speakers":1}',
    });
    expect(upload.status).toBe(202);
    const job: Job = await client.waitFor(upload.body.id, undefined, 120_000);
    expect(job.speakers).toEqual({ count: 1, labels: ['SPEAKER_00'] });
  });

  it('a batch with diarize gives each child its speakers', async () => {
    const client = new JobsClient(gw.url, await gw.key());
    // Batch URLs must be https://, so the file goes up as a multipart part.
    const form = new FormData();
    form.append('language', 'am');
    form.append('diarize', 'true');
    form.append('diarization_config', JSON.stringify({ min_speakers: 2, max_speakers: 2 }));
    form.append('files', new Blob([readFileSync(join(dir, 'two.wav'))]), 'two.wav');
    const response = await fetch(`${gw.url}/v1/transcriptions/batch`, { method: 'POST', headers: client.headers(), body: form });
    expect(response.status).toBe(202);
    const parent = await client.waitFor(((await response.json()) as { id: string }).id, undefined, 120_000);
    expect(parent.status).toBe('completed');
    expect(parent.speakers).toBeNull();
    const child: Job = (await client.get(parent.metadata.jobs[0].job_id)).body;
    expect(child.speakers).toEqual({ count: 2, labels: ['SPEAKER_00', 'SPEAKER_01'] });
  });
});

describe('diarization in the published descriptions', () => {
  it('OpenAPI declares diarize and diarization_config on every create route, and /llms.txt lists the guide', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as any;
    const resolve = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)] : schema);
    for (const path of ['/transcribe', '/v1/transcriptions', '/v1/transcriptions/batch']) {
      const body = resolve(doc.paths[path].post.requestBody.content['application/json'].schema);
      expect(Object.keys(body.properties), path).toEqual(expect.arrayContaining(['diarize', 'diarization_config']));
    }
    const job = resolve(doc.components.schemas.TranscriptionJob);
    expect(JSON.stringify(job.properties.speakers)).toContain('Speakers');
    expect(await (await fetch(`${gw.url}/llms.txt`)).text()).toContain('Speaker diarization');
    const full = await (await fetch(`${gw.url}/llms-full.txt`)).text();
    expect(full).toContain('SPEAKER_00');
    expect(full).toContain('DIARIZATION_TIMEOUT_MS');
  });
});
