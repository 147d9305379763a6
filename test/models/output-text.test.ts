/**
 * Output text rules on the held-out clips, through a gateway serving the shipped models:
 * Oromo (true-case models) starts each text with a capital and has no stray capitals
 * mid-sentence or mid-word; Tigrinya never doubles punctuation. The CER stays within the
 * shipped-models bounds (test/models/shipped-models.test.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scoredCharacterErrorRate } from '../../src/engines/scoring/character-error-rate.js';
import { floatToPcm16, wavOf } from '../helpers/fixtures.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { bearer } from '../helpers/test-gateway.js';
import { concat, readPcm16Wav } from '../native/audio-helpers.js';
import { heldOutFixtures } from '../../training/common/heldout-fixtures.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const clips = heldOutFixtures();

const suite = useTestGateway({ MODELS_DIR, RATE_LIMIT_PER_MINUTE: '100000', MAX_CONCURRENT_JOBS: '50' }, { scopes: ['write'] });

async function transcribe(file: string | Buffer, language: string, model: string): Promise<{ text: string; segments: { text: string }[] }> {
  const form = new FormData();
  form.append('language', language);
  form.append('model', model);
  form.append('mode', 'sync');
  form.append('file', new Blob([typeof file === 'string' ? readFileSync(file) : file]), 'audio.wav');
  const response = await fetch(`${suite.gw.url}/v1/transcriptions`, { method: 'POST', headers: bearer(suite.key), body: form });
  const job = (await response.json()) as { status: string; text: string; segments: { text: string }[] };
  expect(job.status, JSON.stringify(job)).toBe('completed');
  return job;
}

const CER_BOUND: Record<string, number> = {
  'small-om-v1': 18,
  'small-om-v2': 11,
  'small-om-v3': 11,
  'small-om-v5': 11,
  'beta-om-v1': 16,
  'small-ti-v1': 7,
  'small-ti-v2': 7,
  'small-ti-v3': 7,
  'small-ti-v4': 7,
  'beta-ti-v1': 5,
};

/** The CER of the jobs' texts against the clips' references stays within `model`'s bound (percent). */
function expectCerWithinBound(mine: typeof clips, jobs: { text: string }[], language: string, model: string): void {
  const { cer } = scoredCharacterErrorRate(
    mine.map((c) => c.reference),
    jobs.map((j) => j.text),
    language,
  );
  expect(cer * 100).toBeLessThanOrEqual(CER_BOUND[model]!);
}

describe('output text on the held-out clips', () => {
  for (const model of ['small-om-v1', 'small-om-v2', 'small-om-v3', 'small-om-v5', 'beta-om-v1']) {
    it(`${model}: sentence-start capital, no stray capitals, CER within bounds`, async () => {
      const mine = clips.filter((c) => c.language === 'om');
      const jobs = await Promise.all(mine.map((c) => transcribe(c.path, 'om', model)));
      for (const job of jobs) {
        for (const text of [job.text, ...job.segments.map((s) => s.text)]) {
          expect(text, text).toMatch(/^\p{Lu}/u);
          const words = text.split(' ');
          for (const word of words.slice(1)) {
            const acronym = /^\p{Lu}{2,}('|$)/u.test(word);
            if (!acronym) expect(word, text).toBe(word.toLowerCase());
          }
          expect(text, text).not.toMatch(/\p{Ll}\p{Lu}/u);
        }
      }
      expectCerWithinBound(mine, jobs, 'om', model);
    }, 120_000);
  }

  for (const model of ['small-ti-v1', 'small-ti-v2', 'small-ti-v3', 'small-ti-v4', 'beta-ti-v1']) {
    it(`${model}: no doubled punctuation, CER within bounds`, async () => {
      const mine = clips.filter((c) => c.language === 'ti');
      const jobs = await Promise.all(mine.map((c) => transcribe(c.path, 'ti', model)));
      for (const job of jobs) {
        for (const text of [job.text, ...job.segments.map((s) => s.text)]) {
          expect(text, text).not.toMatch(/[።፣፤፥፦?!]\s*[።፣፤፥፦?!]/u);
          expect(text, text).not.toMatch(/^\s*[።፣፤፥፦?!]/u);
        }
      }
      expectCerWithinBound(mine, jobs, 'ti', model);
    }, 120_000);
  }

  it('small-ti-v1: the held-out clips in one recording (several pieces) join without doubled marks', async () => {
    const mine = clips.filter((c) => c.language === 'ti');
    const silence = new Float32Array(16_000);
    const audio = concat(mine.flatMap((c) => [readPcm16Wav(readFileSync(c.path)).samples, silence]));
    const job = await transcribe(wavOf(floatToPcm16(audio)), 'ti', 'small-ti-v1');
    expect(job.segments.length).toBeGreaterThan(1);
    expect(job.text).not.toMatch(/[።፣፤፥፦?!]\s*[።፣፤፥፦?!]/u);
    expect(job.text).toMatch(/።/u);
  }, 120_000);
});
