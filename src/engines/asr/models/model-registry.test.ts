import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_LID } from '../../../../test/inference/fixtures.js';
import { makeModelFolder } from '../../../../test/inference/model-folders.js';
import { ModelSelectionError } from './model-errors.js';
import { loadModelFolder, parseVocabulary } from './model-loader.js';
import { audioBandOf, ModelRegistry } from './model-registry.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'registry-'));
  await makeModelFolder(root, 'small-am-v1', { name: 'small-am-v1', language: 'am' });
  await makeModelFolder(root, 'beta-am-v1', { name: 'beta-am-v1', language: 'am' });
  await makeModelFolder(root, 'small-ti-v1', { name: 'small-ti-v1', language: 'ti' });
  await makeModelFolder(root, 'beta-ti-v1', { name: 'beta-ti-v1', language: 'ti', default: true });
  await makeModelFolder(root, 'lid-v1', { name: 'lid-v1' }, TINY_LID);
  await makeModelFolder(root, 'broken-blank', { name: 'broken-blank', blank_id: 99 });
  await makeModelFolder(root, 'broken-delimiter', { name: 'broken-delimiter', word_delimiter: '#' });
  await mkdir(join(root, 'broken-json'));
  await writeFile(join(root, 'broken-json', 'manifest.json'), '{ nope');
  await mkdir(join(root, 'training')); // no manifest: not a model folder, silently ignored
  await mkdir(join(root, 'translate-xx-v1')); // a translation model: the translation engine's, silently skipped
  await writeFile(join(root, 'translate-xx-v1', 'manifest.json'), JSON.stringify({ kind: 'translation', name: 'translate-xx-v1' }));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const selectionError = (fn: () => unknown): ModelSelectionError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ModelSelectionError) return error;
    throw error;
  }
  throw new Error('expected a ModelSelectionError');
};

describe('ModelRegistry', () => {
  it('finds the models, their languages and defaults, and reports broken folders', async () => {
    const registry = await ModelRegistry.scan(root);
    expect(registry.languages()).toEqual(['am', 'ti']);
    expect(registry.defaultModel('am')?.name).toBe('small-am-v1');
    expect(registry.modelsFor('am').map((m) => m.name)).toEqual(['small-am-v1', 'beta-am-v1']);
    // an explicit "default": true beats the small-<lang>-v1 convention
    expect(registry.defaultModel('ti')?.name).toBe('beta-ti-v1');
    expect(registry.languageIdModel()?.name).toBe('lid-v1');
    expect(registry.autoDetect()).toBe(true);
    const problems = registry.problems().map((p) => `${p.dir.split('/').pop()}: ${p.message}`);
    expect(problems).toHaveLength(3);
    expect(registry.get('translate-xx-v1')).toBeUndefined();
    expect(problems.find((p) => p.startsWith('broken-blank'))).toContain('blank_id 99 is outside the vocabulary (32 tokens)');
    expect(problems.find((p) => p.startsWith('broken-delimiter'))).toContain('word_delimiter "#" is not in the vocabulary');
    expect(problems.find((p) => p.startsWith('broken-json'))).toContain('not valid JSON');
  });

  it('applies the spec rules in resolve()', async () => {
    const registry = await ModelRegistry.scan(root);
    expect(registry.resolve('am')).toEqual({ language: 'am', model: 'small-am-v1' });
    expect(registry.resolve('am', '')).toEqual({ language: 'am', model: 'small-am-v1' });
    expect(registry.resolve('am', 'beta-am-v1')).toEqual({ language: 'am', model: 'beta-am-v1' });
    expect(registry.resolve('auto')).toEqual({ language: 'auto', model: null });

    const withAuto = selectionError(() => registry.resolve('auto', 'small-am-v1'));
    expect([withAuto.engineError, withAuto.param]).toEqual(['model_with_auto', 'model']);

    const otherLanguage = selectionError(() => registry.resolve('am', 'small-ti-v1'));
    expect([otherLanguage.engineError, otherLanguage.param]).toEqual(['unsupported_model', 'model']);
    expect(otherLanguage.message).toContain('Available models: small-am-v1, beta-am-v1.');

    const noModels = selectionError(() => registry.resolve('om'));
    expect([noModels.engineError, noModels.param]).toEqual(['unsupported_language', 'language']);
    expect(noModels.message).toContain('Available languages: am, ti, auto.');
    expect(selectionError(() => registry.resolve('xx', 'beta-am-v1')).engineError).toBe('unsupported_language');
  });

  it("takes DEFAULT_MODELS over the folders' flags, and refuses a name that is not of its language without changing anything", async () => {
    const registry = await ModelRegistry.scan(root);
    registry.chooseDefaults(new Map([['am', 'beta-am-v1']]));
    expect(registry.defaultModel('am')?.name).toBe('beta-am-v1');
    expect(registry.resolve('am')).toEqual({ language: 'am', model: 'beta-am-v1' });
    expect(registry.modelsFor('am').map((m) => m.name)).toEqual(['beta-am-v1', 'small-am-v1']);
    expect(registry.isDefault(registry.get('small-am-v1')!)).toBe(false);
    expect(registry.defaultModel('ti')?.name).toBe('beta-ti-v1'); // not named: its flag still decides

    expect(() =>
      registry.chooseDefaults(
        new Map([
          ['ti', 'small-ti-v1'],
          ['am', 'small-ti-v1'],
        ]),
      ),
    ).toThrow('DEFAULT_MODELS am=small-ti-v1: not a speech model of language am (am models: beta-am-v1, small-am-v1)');
    expect(() => registry.chooseDefaults(new Map([['am', 'lid-v1']]))).toThrow(/am=lid-v1: not a speech model of language am/);
    expect(() => registry.chooseDefaults(new Map([['om', 'small-om-v9']]))).toThrow('DEFAULT_MODELS om=small-om-v9: no model of that name (om models: none)');
    // a refused choice changes nothing, not even the pairs before it
    expect(registry.defaultModel('ti')?.name).toBe('beta-ti-v1');
    expect(registry.defaultModel('am')?.name).toBe('beta-am-v1');
  });

  it('is empty, and refuses every language, when the folder is missing', async () => {
    const registry = await ModelRegistry.scan(join(root, 'does-not-exist'));
    expect(registry.languages()).toEqual([]);
    expect(registry.autoDetect()).toBe(false);
    const error = selectionError(() => registry.resolve('auto'));
    expect(error.engineError).toBe('unsupported_language');
    expect(error.message).toContain('none (no models are installed)');
  });

  it('keeps the first of two models with the same name', async () => {
    const dupRoot = await mkdtemp(join(tmpdir(), 'registry-dup-'));
    try {
      await makeModelFolder(dupRoot, 'a', { name: 'small-om-v1', language: 'om' });
      await makeModelFolder(dupRoot, 'b', { name: 'small-om-v1', language: 'om' });
      const registry = await ModelRegistry.scan(dupRoot);
      expect(registry.modelsFor('om')).toHaveLength(1);
      expect(registry.problems()[0]?.message).toContain('duplicate model name small-om-v1');
    } finally {
      await rm(dupRoot, { recursive: true, force: true });
    }
  });
});

describe('telephone models (manifest telephone_model)', () => {
  let phones: string;
  beforeAll(async () => {
    phones = await mkdtemp(join(tmpdir(), 'registry-phone-'));
    await makeModelFolder(phones, 'small-am-v1', { name: 'small-am-v1', language: 'am', telephone_model: 'small-am-v1-telephone' });
    await makeModelFolder(phones, 'small-am-v1-telephone', { name: 'small-am-v1-telephone', language: 'am' });
    await makeModelFolder(phones, 'beta-am-v1', { name: 'beta-am-v1', language: 'am', telephone_model: 'beta-am-v1' });
    await makeModelFolder(phones, 'small-ti-v1', { name: 'small-ti-v1', language: 'ti', telephone_model: 'small-am-v1-telephone' });
    await makeModelFolder(phones, 'small-om-v1', { name: 'small-om-v1', language: 'om', telephone_model: 'gone' });
  });
  afterAll(async () => {
    await rm(phones, { recursive: true, force: true });
  });

  it('reads 8 kHz or less as narrow band, and an unstated rate as wide band', () => {
    expect([8000, 6000, 11025, 16000, 0].map(audioBandOf)).toEqual(['narrowband', 'narrowband', 'wideband', 'wideband', 'wideband']);
  });

  it('serves narrow-band audio of the default on its telephone model only when no model is named', async () => {
    const registry = await ModelRegistry.scan(phones);
    expect(registry.telephoneModelOf('small-am-v1')).toBe('small-am-v1-telephone');
    expect(registry.resolve('am', null, 'narrowband')).toEqual({ language: 'am', model: 'small-am-v1-telephone' });
    expect(registry.resolve('am', '', 'narrowband')).toEqual({ language: 'am', model: 'small-am-v1-telephone' });
    expect(registry.resolve('am', null, 'wideband')).toEqual({ language: 'am', model: 'small-am-v1' });
    expect(registry.resolve('am', null)).toEqual({ language: 'am', model: 'small-am-v1' });
    // a named model is the one that runs, whatever the band
    expect(registry.resolve('am', 'small-am-v1', 'narrowband')).toEqual({ language: 'am', model: 'small-am-v1' });
    expect(registry.resolve('am', 'beta-am-v1', 'narrowband')).toEqual({ language: 'am', model: 'beta-am-v1' });
    expect(registry.resolve('am', 'small-am-v1-telephone')).toEqual({ language: 'am', model: 'small-am-v1-telephone' });
    // auto: decided once the language is detected
    expect(registry.resolve('auto', null, 'narrowband')).toEqual({ language: 'auto', model: null });
  });

  it('refuses a telephone model of another language, one that is missing and a model naming itself, keeping the model', async () => {
    const registry = await ModelRegistry.scan(phones);
    const problems = registry.problems().map((p) => `${p.dir.split('/').pop()}: ${p.message}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        "small-ti-v1: telephone_model small-am-v1-telephone is not used (small-am-v1-telephone (am) is not of small-ti-v1's language (ti)); small-ti-v1 reads narrow-band audio itself",
        'small-om-v1: telephone_model gone is not used (gone is not a speech model here); small-om-v1 reads narrow-band audio itself',
        'beta-am-v1: telephone_model beta-am-v1 is not used (a model cannot be its own telephone model); beta-am-v1 reads narrow-band audio itself',
      ]),
    );
    expect(problems).toHaveLength(3);
    expect(registry.resolve('ti', null, 'narrowband').model).toBe('small-ti-v1');
    expect(registry.resolve('om', null, 'narrowband').model).toBe('small-om-v1');
  });

  it('follows DEFAULT_MODELS, and TELEPHONE_MODELS=off turns them off', async () => {
    const registry = await ModelRegistry.scan(phones);
    registry.chooseDefaults(new Map([['am', 'beta-am-v1']]));
    expect(registry.resolve('am', null, 'narrowband').model).toBe('beta-am-v1');
    registry.chooseDefaults(new Map([['am', 'small-am-v1']]));
    expect(registry.resolve('am', null, 'narrowband').model).toBe('small-am-v1-telephone');
    registry.disableTelephoneModels();
    expect(registry.telephoneModelOf('small-am-v1')).toBeNull();
    expect(registry.resolve('am', null, 'narrowband').model).toBe('small-am-v1');
  });
});

describe('model folders', () => {
  it('parses vocabularies line by line without trimming tokens', () => {
    expect(parseVocabulary('<blank>\n|\n a\r\nb\n')).toEqual(['<blank>', '|', ' a', 'b']);
    expect(parseVocabulary('x\n\ny')).toEqual(['x', '', 'y']);
  });

  it('loads a folder into a model with its vocabulary', async () => {
    const model = await loadModelFolder(join(root, 'small-am-v1'));
    expect(model.kind).toBe('ctc');
    if (model.kind !== 'ctc') return;
    expect(model.vocabulary.tokens).toHaveLength(32);
    expect(model.vocabulary.blankId).toBe(0);
    expect(model.vocabulary.wordDelimiter).toBe('|');
    expect(model.lmPath).toBeNull();
  });

  it('names the missing file', async () => {
    const dir = await makeModelFolder(root, 'no-lm', { name: 'no-lm', lm: { file: 'lm.arpa', unit: 'char', order: 3, alpha: 0.5, beta: 0 } });
    await expect(loadModelFolder(dir)).rejects.toThrow('language model lm.arpa is missing');
    await expect(loadModelFolder(join(root, 'training'))).rejects.toThrow('manifest.json is missing');
  });
});
