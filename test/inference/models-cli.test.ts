import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCharNgramLm } from '../../src/engines/asr/decoding/lm/char-ngram-builder.js';
import { runModelsCli } from '../helpers/models-cli.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { TINY_CTC, TINY_CTC_MEL, TINY_LID } from './fixtures.js';
import { makeModelFolder } from './model-folders.js';

/** Runs `npm run models -- <args>`, its JSON answer parsed. */
async function models(...args: string[]): Promise<{ code: number; json: Record<string, unknown> | null; stderr: string }> {
  return modelsWith({}, ...args);
}

/** `models` with environment variables set for the CLI. */
async function modelsWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; json: Record<string, unknown> | null; stderr: string }> {
  const { code, stdout, stderr } = await runModelsCli(args, { timeout: 60_000, env });
  return { code, json: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : null, stderr };
}

type CheckRow = { name: string; ok: boolean; detail: string; required?: false };
const failed = (json: Record<string, unknown> | null): string[] => ((json?.checks as CheckRow[]) ?? []).filter((c) => !c.ok).map((c) => c.name);

const scratch = useScratchDir('models-cli-');

describe('npm run models', () => {
  it.each([
    ['tiny-ctc', TINY_CTC],
    ['tiny-ctc-mel', TINY_CTC_MEL],
    ['tiny-lid', TINY_LID],
  ])('check passes the %s fixture model', async (_name, dir) => {
    const { code, json } = await models('check', dir);
    expect(failed(json)).toEqual([]);
    expect(code).toBe(0);
    expect(json!.ok).toBe(true);
    if (json!.kind === 'ctc') {
      expect((json!.checks as CheckRow[]).map((c) => c.name)).toEqual(
        expect.arrayContaining(['run_batch_2', 'frame_stride', 'test_decode', 'padding_invariance']),
      );
      expect(json!.test_decode).toHaveLength(2);
    }
  });

  it('check fails a vocabulary that does not match the logits', async () => {
    const dir = await makeModelFolder(scratch(), 'short-vocab', { name: 'short-vocab' });
    const vocab = (await readFile(join(dir, 'vocab.txt'), 'utf8')).split('\n').slice(0, 30).join('\n');
    await writeFile(join(dir, 'vocab.txt'), `${vocab}\n`);
    const { code, json } = await models('check', dir);
    expect(code).toBe(1);
    expect(failed(json)).toEqual(['output_logits']);
  });

  it('check fails input names the graph does not have, and a wrong frame stride', async () => {
    const names = await makeModelFolder(scratch(), 'wrong-names', {
      name: 'wrong-names',
      io: { audio: 'input_values', lengths: 'lengths', logits: 'logits', out_lengths: 'out_lengths' },
    });
    const wrongNames = await models('check', names);
    expect(wrongNames.code).toBe(1);
    expect(failed(wrongNames.json)).toEqual(['input_audio']);

    const stride = await makeModelFolder(scratch(), 'wrong-stride', { name: 'wrong-stride', frame_stride_samples: 160 });
    const wrongStride = await models('check', stride);
    expect(wrongStride.code).toBe(1);
    expect(failed(wrongStride.json)).toEqual(['frame_stride']);
  });

  it('check fails a folder that is not a model and explains why', async () => {
    const { code, json } = await models('check', scratch());
    expect(code).toBe(1);
    expect((json!.checks as CheckRow[])[0]).toMatchObject({ name: 'folder', ok: false, detail: expect.stringContaining('manifest.json is missing') });
  });

  it('check loads the LM a manifest names and runs a beam + LM decode', async () => {
    const dir = scratch('with-lm');
    await mkdir(join(dir, 'lm'), { recursive: true });
    await writeFile(join(dir, 'lm/am-char-3gram.bin'), buildCharNgramLm(['ሰላም ነው', 'አዲስ አበባ', 'ዝናቡ ነገ ይቀጥላል'], { order: 3, minCharCount: 1 }).bytes);
    const lm = { file: '../lm/am-char-3gram.bin', unit: 'char', order: 3, alpha: 0.5, beta: 1 };
    const model = await makeModelFolder(dir, 'beam-am', { name: 'beam-am', lm, decoding: { default: 'beam', beam_width: 4 } });
    const { code, json } = await models('check', model);
    expect(failed(json)).toEqual(expect.not.arrayContaining(['lm_load', 'lm_order', 'beam_lm_decode']));
    expect(code).toBe(0);
    expect((json!.checks as CheckRow[]).map((c) => c.name)).toEqual(expect.arrayContaining(['lm_load', 'lm_order', 'lm_vocabulary', 'beam_lm_decode']));
    expect(json!.lm).toMatchObject({ file: '../lm/am-char-3gram.bin', order: 3 });
    expect(json!.beam_decode).toHaveLength(2);

    await writeFile(join(dir, 'lm/am-char-3gram.bin'), 'not a language model at all, just text'.padEnd(100));
    const corrupt = await models('check', model);
    expect(corrupt.code).toBe(1);
    expect((corrupt.json!.checks as CheckRow[])[0]).toMatchObject({ name: 'folder', ok: false, detail: expect.stringContaining('not a valid HNLM file') });
  });

  it('list shows languages, defaults and problems', async () => {
    const dir = scratch('tree');
    await makeModelFolder(dir, 'small-am-v1', { name: 'small-am-v1', language: 'am' });
    await makeModelFolder(dir, 'beta-am-v1', { name: 'beta-am-v1', language: 'am' });
    await makeModelFolder(dir, 'broken', { name: 'broken', blank_id: 40 });
    const { code, json } = await models('list', dir);
    expect(code).toBe(0);
    expect(json!.languages).toEqual([{ language: 'am', default: 'small-am-v1', models: ['small-am-v1', 'beta-am-v1'] }]);
    expect(json!.problems).toHaveLength(1);

    // DEFAULT_MODELS: the defaults the gateway would serve with it
    const chosen = await modelsWith({ DEFAULT_MODELS: 'am=beta-am-v1' }, 'list', dir);
    expect(chosen.code).toBe(0);
    expect(chosen.json!.languages).toEqual([{ language: 'am', default: 'beta-am-v1', models: ['beta-am-v1', 'small-am-v1'] }]);
    const unknown = await modelsWith({ DEFAULT_MODELS: 'am=small-am-v9' }, 'list', dir);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('DEFAULT_MODELS am=small-am-v9: no model of that name (am models: beta-am-v1, small-am-v1)');
  });

  it('prints usage for an unknown command', async () => {
    const { code, stderr } = await models('frobnicate');
    expect(code).toBe(2);
    expect(stderr).toContain('usage: npm run models');
  });
});
