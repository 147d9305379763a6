import { describe, expect, it } from 'vitest';
import { ApiError } from '../../platform/errors/api-error.js';
import { chooseModel, MAX_PROMPT_KEYTERMS, promptKeyterms, readOpenAiFields, type ModelCatalogue } from './openai-request.js';

const CATALOGUE: ModelCatalogue = {
  models: [
    { name: 'small-am-v2', language: 'am' },
    { name: 'beta-am-v1', language: 'am' },
    { name: 'small-om-v1', language: 'om' },
    { name: 'small-ti-v1', language: 'ti' },
  ],
  languages: ['am', 'om', 'ti'],
};

function refusal(run: () => unknown): { code: string; param: string | undefined; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, param: error.param, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('promptKeyterms', () => {
  it('splits at commas, Ethiopic commas and line breaks, trims, and keeps each term once', () => {
    expect(promptKeyterms(' ኢትዮ ቴሌኮም, አዲስ አበባ፣ዳሸን ባንክ\nአዲስ አበባ\r\n , Safaricom ')).toEqual(['ኢትዮ ቴሌኮም', 'አዲስ አበባ', 'ዳሸን ባንክ', 'Safaricom']);
  });

  it('makes inner white space one space, as the keyterms field does', () => {
    expect(promptKeyterms('ኢትዮ   ቴሌኮም,\tAbebe\t Kebede ')).toEqual(['ኢትዮ ቴሌኮም', 'Abebe Kebede']);
  });

  it('normalises to NFC, so a decomposed and a composed spelling are one term', () => {
    const decomposed = 'Cafe\u0301';
    expect(promptKeyterms(`${decomposed}, Café`)).toEqual(['Café']);
  });

  it('leaves out pieces over 50 characters (prose prompts) and takes at most 100 terms', () => {
    const prose = 'This is a recording of a long meeting about the budget of the regional health bureau';
    expect(promptKeyterms(`${prose}, Abebe`)).toEqual(['Abebe']);
    expect(promptKeyterms('x'.repeat(50))).toEqual(['x'.repeat(50)]);
    const many = Array.from({ length: 150 }, (_, i) => `term${i}`).join(',');
    const terms = promptKeyterms(many);
    expect(terms).toHaveLength(MAX_PROMPT_KEYTERMS);
    expect(terms[0]).toBe('term0');
    expect(terms.at(-1)).toBe('term99');
  });

  it('gives nothing for no prompt or an empty one', () => {
    expect(promptKeyterms(undefined)).toEqual([]);
    expect(promptKeyterms(' , \n ')).toEqual([]);
  });
});

describe('chooseModel', () => {
  it('runs an alias or no model as the default model of the language, auto when no language is named', () => {
    expect(chooseModel('whisper-1', 'am', CATALOGUE)).toEqual({ language: 'am', model: null });
    expect(chooseModel('gpt-4o-transcribe', undefined, CATALOGUE)).toEqual({ language: 'auto', model: null });
    expect(chooseModel(undefined, 'TI', CATALOGUE)).toEqual({ language: 'ti', model: null });
  });

  it('takes the language of a named model, and refuses a model of another language', () => {
    expect(chooseModel('small-om-v1', undefined, CATALOGUE)).toEqual({ language: 'om', model: 'small-om-v1' });
    expect(chooseModel('beta-am-v1', 'am', CATALOGUE)).toEqual({ language: 'am', model: 'beta-am-v1' });
    const wrong = refusal(() => chooseModel('small-om-v1', 'am', CATALOGUE));
    expect(wrong).toMatchObject({ code: 'UNSUPPORTED_MODEL', param: 'model' });
    expect(wrong.message).toContain('small-am-v2, beta-am-v1');
  });

  it('refuses an unknown model, listing the models and aliases', () => {
    const unknown = refusal(() => chooseModel('whisper-large-v3', 'am', CATALOGUE));
    expect(unknown).toMatchObject({ code: 'UNSUPPORTED_MODEL', param: 'model' });
    expect(unknown.message).toContain('whisper-1');
  });

  it('accepts ISO-639-1 codes of languages with models only', () => {
    expect(refusal(() => chooseModel(undefined, 'en', CATALOGUE))).toMatchObject({ code: 'UNSUPPORTED_LANGUAGE', param: 'language' });
    expect(refusal(() => chooseModel(undefined, 'amh', CATALOGUE))).toMatchObject({ code: 'invalid_field_value', param: 'language' });
    expect(refusal(() => chooseModel(undefined, 'auto', CATALOGUE))).toMatchObject({ code: 'invalid_field_value', param: 'language' });
  });
});

describe('readOpenAiFields', () => {
  it('reads the defaults of an upload with only a model', () => {
    expect(readOpenAiFields({ model: 'whisper-1' }, CATALOGUE, 'transcribe')).toEqual({
      language: 'auto',
      model: null,
      keyterms: [],
      responseFormat: 'json',
      granularities: ['segment'],
      temperature: null,
    });
  });

  it('reads every field as the openai client sends it', () => {
    const request = readOpenAiFields(
      {
        model: 'small-am-v2',
        language: 'am',
        prompt: 'ኢትዮ ቴሌኮም, Abebe',
        response_format: 'verbose_json',
        'timestamp_granularities[]': ['word', 'segment', 'word'],
        temperature: '0.2',
        stream: 'false',
      },
      CATALOGUE,
      'transcribe',
    );
    expect(request).toEqual({
      language: 'am',
      model: 'small-am-v2',
      keyterms: ['ኢትዮ ቴሌኮም', 'Abebe'],
      responseFormat: 'verbose_json',
      granularities: ['word', 'segment'],
      temperature: 0.2,
    });
  });

  it('refuses stream=true, a temperature outside 0..1, unknown formats and granularities, and repeated scalar fields', () => {
    const read =
      (fields: Record<string, string | string[]>, task: 'transcribe' | 'translate' = 'transcribe') =>
      () =>
        readOpenAiFields(fields, CATALOGUE, task);
    const stream = refusal(read({ stream: 'true' }));
    expect(stream).toMatchObject({ code: 'invalid_field_value', param: 'stream' });
    expect(stream.message).toContain('not supported');
    expect(refusal(read({ temperature: '1.5' }))).toMatchObject({ code: 'invalid_field_value', param: 'temperature' });
    expect(refusal(read({ temperature: 'warm' }))).toMatchObject({ code: 'invalid_field_value', param: 'temperature' });
    expect(refusal(read({ response_format: 'diarized_json' }))).toMatchObject({ code: 'invalid_field_value', param: 'response_format' });
    expect(refusal(read({ 'timestamp_granularities[]': 'token' }))).toMatchObject({ code: 'invalid_field_value', param: 'timestamp_granularities[]' });
    expect(refusal(read({ language: ['am', 'ti'] }))).toMatchObject({ code: 'invalid_field_value', param: 'language' });
    expect(refusal(read({ 'timestamp_granularities[]': 'word' }, 'translate'))).toMatchObject({ code: 'invalid_field_value' });
  });

  it('accepts the boundary temperatures and the granularities without brackets', () => {
    expect(readOpenAiFields({ temperature: '0' }, CATALOGUE, 'transcribe').temperature).toBe(0);
    expect(readOpenAiFields({ temperature: '1' }, CATALOGUE, 'transcribe').temperature).toBe(1);
    expect(readOpenAiFields({ timestamp_granularities: 'word' }, CATALOGUE, 'transcribe').granularities).toEqual(['word']);
  });
});
