/**
 * A model downloaded in the transformers.js layout (test/fixtures/wav2vec2-hf, random weights)
 * and imported in place with `npm run models -- import --in-place` is served like a bundled one:
 * it appears in /v1/languages and /health, is its language's default, and the REST and
 * OpenAI-compatible endpoints transcribe with it when it is chosen.
 */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../helpers/fixtures.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { downloadModel, runModelsCli } from '../helpers/models-cli.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { heldOutClip } from '../../training/common/heldout-fixtures.js';

const CLIP = heldOutClip('alffa_spk_heldout-tr_10778_tr02101.wav').path;

const scratch = useScratchDir('hub-serve-');
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  const modelsDir = scratch();
  await cp(fixturePath('models/tiny-ctc'), join(modelsDir, 'tiny-ctc'), { recursive: true });
  const hub = await downloadModel(fixturePath('wav2vec2-hf'), modelsDir, 'w2v-hub');
  const imported = await runModelsCli(['import', hub, '--in-place', '--name', 'w2v-hub-om', '--lang', 'om']);
  if (imported.code !== 0) throw new Error(imported.stderr);
  gw = await startTestGateway({ MODELS_DIR: modelsDir, FILE_SPEECH_GATE: 'off' });
  key = await gw.key();
}, 120_000);

afterAll(async () => {
  await gw?.close();
});

describe('an imported hub model is served like a bundled one', () => {
  it('appears in /v1/languages and /health as its language default', async () => {
    const languages = (await (await fetch(`${gw.url}/v1/languages`, { headers: bearer(key) })).json()) as {
      languages: string[];
      data: Array<{ code: string; default_model: string; models: Array<{ name: string }> }>;
    };
    expect(languages.languages).toContain('om');
    expect(languages.data.find((l) => l.code === 'om')).toMatchObject({ default_model: 'w2v-hub-om', models: [{ name: 'w2v-hub-om' }] });
    const health = (await (await fetch(`${gw.url}/health`)).json()) as { languages: string[]; models: Array<{ name: string; language: string }> };
    expect(health.languages).toContain('om');
    expect(health.models).toContainEqual(expect.objectContaining({ name: 'w2v-hub-om', language: 'om' }));
  });

  it('transcribes with it on the REST and the OpenAI-compatible endpoints', async () => {
    const client = new JobsClient(gw.url, key);
    const { status, body } = await client.submitFile(CLIP, { language: 'om', model: 'w2v-hub-om', mode: 'sync' });
    expect(status, JSON.stringify(body)).toBe(202);
    expect(body.status).toBe('completed');
    expect(body.metadata).toMatchObject({ model: 'w2v-hub-om', resolved_model: 'w2v-hub-om' });
    expect(body.text.length).toBeGreaterThan(0);

    const form = new FormData();
    form.append('file', new Blob([await readFile(CLIP)]), 'clip.wav');
    form.append('model', 'w2v-hub-om');
    form.append('language', 'om');
    const response = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: bearer(key), body: form });
    const openai = (await response.json()) as { text: string };
    expect(response.status, JSON.stringify(openai)).toBe(200);
    expect(openai.text).toBe(body.text);
  }, 60_000);
});
