// Segment types through a real gateway (port 0, shipped models): a file of a male and a female
// espeak-ng voice (variants the segment-type model was not fitted on) taking turns around a
// stretch of synthesised music (test/fixtures/audio/segment-types-am.txt gives the layout; made
// by scripts/make-segment-types-fixture.ts). With diarize, speech segments are typed by voice and
// the music is a segment of its own; without it, every segment is `speech`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFileServer } from '../helpers/audio-files.js';
import { fixturePath, REPO_ROOT } from '../helpers/fixtures.js';
import { JobsClient, TranscribeJobClient, type Job } from '../helpers/jobs-client.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

const FILE = fixturePath('audio/segment-types-am.flac');
const LIMITS = { MODELS_DIR: join(REPO_ROOT, 'models'), RATE_LIMIT_PER_MINUTE: '100000', JOB_SUBMISSIONS_PER_HOUR: '1000', MAX_CONCURRENT_JOBS: '20' };

/** The fixture's layout: [startMs, endMs, what] per piece. */
const layout = readFileSync(fixturePath('audio/segment-types-am.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.length > 0 && !l.startsWith('#'))
  .map((l) => {
    const [start, end, what] = l.split('\t');
    return { startMs: Number(start) * 1000, endMs: Number(end) * 1000, kind: what!.split(' ')[0]! as 'male' | 'female' | 'music' };
  });

let gw: TestGateway;
let files: Awaited<ReturnType<typeof startFileServer>>;

beforeAll(async () => {
  files = await startFileServer({ 'types.flac': FILE });
  gw = await startTestGateway(LIMITS);
}, 120_000);

afterAll(async () => {
  await files?.close();
  await gw?.close();
});

interface JobApiSegment {
  id: number;
  start_time: string;
  end_time: string;
  type: string;
  text: string;
  speaker?: string | null;
}

async function transcribe(body: Record<string, unknown>): Promise<{ segments: JobApiSegment[]; speakers?: { count: number } }> {
  const { job, transcript } = await new TranscribeJobClient(gw.url, await gw.key()).run({ audio_urls: [files.url('types.flac')], language: 'am', ...body });
  expect(job.status).toBe('COMPLETED');
  return transcript;
}

/** The piece of the fixture covering most of [startMs, endMs). */
function pieceOf(startMs: number, endMs: number): (typeof layout)[number] | null {
  let best: (typeof layout)[number] | null = null;
  let most = 0;
  for (const piece of layout) {
    const shared = Math.min(endMs, piece.endMs) - Math.max(startMs, piece.startMs);
    if (shared > most) {
      most = shared;
      best = piece;
    }
  }
  return best;
}

describe('segment types on the job API', () => {
  it('types the male and female voices and makes the music a segment with empty text and no speaker', async () => {
    expect(layout.map((p) => p.kind)).toEqual(['male', 'female', 'music', 'male', 'female']);
    const { segments, speakers } = await transcribe({ diarize: true });
    expect(segments.map((s) => s.id)).toEqual(segments.map((_, i) => i));
    for (const s of segments) expect(['speech', 'male', 'female', 'music']).toContain(s.type);
    // Every segment with text sits in a voice piece and carries that voice's type.
    const spoken = segments.filter((s) => s.text !== '');
    expect(spoken.length).toBeGreaterThanOrEqual(4);
    for (const s of spoken) {
      const piece = pieceOf(Number(s.start_time) * 1000, Number(s.end_time) * 1000);
      expect(piece?.kind, `${s.start_time}-${s.end_time} ${s.text}`).not.toBe('music');
      expect(s.type, `${s.start_time}-${s.end_time} ${s.text}`).toBe(piece!.kind);
      expect(s.speaker).toMatch(/^SPEAKER_\d\d$/);
    }
    // Both voices are found, and the music is segments of type music, text "", speaker null, covering most of it.
    expect(new Set(spoken.map((s) => s.type))).toEqual(new Set(['male', 'female']));
    const music = segments.filter((s) => s.type === 'music');
    expect(music.length).toBeGreaterThanOrEqual(1);
    for (const s of music) {
      expect(s.text).toBe('');
      expect(s.speaker).toBeNull();
    }
    const piece = layout[2]!;
    const covered = music.reduce(
      (sum, s) => sum + Math.max(0, Math.min(piece.endMs, Number(s.end_time) * 1000) - Math.max(piece.startMs, Number(s.start_time) * 1000)),
      0,
    );
    expect(covered / (piece.endMs - piece.startMs)).toBeGreaterThan(0.7);
    const outside = music.reduce((sum, s) => sum + (Number(s.end_time) - Number(s.start_time)) * 1000, 0) - covered;
    expect(outside).toBeLessThan(1000);
    // Music is nobody's speech: the two voices are the speakers.
    expect(speakers?.count).toBe(2);
  });

  it('without diarize every segment is speech and there is no music segment', async () => {
    const { segments } = await transcribe({});
    expect(segments.length).toBeGreaterThan(0);
    for (const s of segments) expect(s.type).toBe('speech');
  });
});

describe('segment types on the unified API (extension)', () => {
  it('diarized segments carry type; plain ones have none', async () => {
    const client = new JobsClient(gw.url, await gw.key());
    const asked = await client.submitUrl({ audio_url: files.url('types.flac'), language: 'am', diarize: true });
    expect(asked.status).toBe(202);
    const job: Job = await client.waitFor(asked.body.id, undefined, 120_000);
    expect(job.status).toBe('completed');
    const types = new Set(job.segments.map((s: { type?: string }) => s.type));
    expect(types).toEqual(new Set(['male', 'female', 'music']));
    const plain: Job = await client.waitFor((await client.submitUrl({ audio_url: files.url('types.flac'), language: 'am' })).body.id, undefined, 120_000);
    for (const s of plain.segments) expect(s).not.toHaveProperty('type');
  });

  it('OpenAPI describes Segment.type with its four values', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
    };
    const segment = doc.components.schemas['Segment']!;
    const type = JSON.stringify(segment.properties['type']);
    for (const value of ['speech', 'male', 'female', 'music']) expect(type).toContain(`"${value}"`);
    expect(segment.required ?? []).not.toContain('type');
  });
});
