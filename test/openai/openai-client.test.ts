// The OpenAI-compatible routes driven by the official `openai` npm client against a real gateway
// (port 0) on the shipped models (the repository's models/ folder: speech and translation), with
// a held-out Amharic clip (a speaker no shipped model trained on): every response format, both
// timestamp granularities, translations, the model list, and errors as the client raises them.
import { createReadStream, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import OpenAI, { AuthenticationError, BadRequestError, RateLimitError } from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { wavData, wavOf } from '../helpers/fixtures.js';
import { type Job, JobsClient } from '../helpers/jobs-client.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { REPO_MODELS_DIR, scriptShare } from '../helpers/translation-model.js';
import { heldOutClip } from '../../training/common/heldout-fixtures.js';

const CLIP = heldOutClip('alffa_spk_heldout-tr_10780_tr02103.wav').path;
const CLIP_SECONDS = wavData(readFileSync(CLIP)).pcm.length / 32_000;

const suite = useTestGateway({ MODELS_DIR: REPO_MODELS_DIR, RATE_LIMIT_PER_MINUTE: '100000', MAX_CONCURRENT_JOBS: '20' });
let client: OpenAI;
/** The text POST /v1/transcriptions gives for the clip: the OpenAI routes run the same job. */
let restText: string;

beforeAll(async () => {
  client = new OpenAI({ apiKey: suite.key, baseURL: `${suite.gw.url}/v1`, maxRetries: 0, timeout: 120_000 });
  const rest = new JobsClient(suite.gw.url, suite.key);
  const created = await rest.submitFile(CLIP, { language: 'am', mode: 'sync' });
  const job = created.body.status === 'completed' ? created.body : await rest.waitFor(created.body.id);
  expect(job.status).toBe('completed');
  restText = job.text as string;
  expect(restText.length).toBeGreaterThan(0);
}, 120_000);

type Format = 'json' | 'text' | 'srt' | 'vtt' | 'verbose_json';
const transcribe = (format: Format, extra: Partial<OpenAI.Audio.TranscriptionCreateParamsNonStreaming> = {}) =>
  client.audio.transcriptions.create({
    file: createReadStream(CLIP),
    model: 'whisper-1',
    language: 'am',
    response_format: format,
    ...extra,
  } as OpenAI.Audio.TranscriptionCreateParamsNonStreaming);
const verbose = async (extra: Partial<OpenAI.Audio.TranscriptionCreateParamsNonStreaming> = {}) =>
  (await transcribe('verbose_json', extra)) as unknown as OpenAI.Audio.TranscriptionVerbose & { task: string };

describe('client.audio.transcriptions.create', () => {
  it('json: the text the REST job gives, with the job named in X-Transcription-Id', async () => {
    const { data, response } = await transcribe('json').withResponse();
    expect((data as OpenAI.Audio.Transcription).text).toBe(restText);
    expect((data as OpenAI.Audio.Transcription).usage).toEqual({ type: 'duration', seconds: Math.ceil(CLIP_SECONDS) });
    const id = response.headers.get('x-transcription-id');
    expect(id).toMatch(/^tr_/);
    const job = await new JobsClient(suite.gw.url, suite.key).get(id!);
    expect(job.body).toMatchObject({ id, status: 'completed', text: restText });
  });

  it('text: the text and a line break', async () => {
    expect((await transcribe('text')) as unknown).toBe(`${restText}\n`);
  });

  it('srt and vtt: caption files whose cues hold the text in order, within the audio', async () => {
    for (const format of ['srt', 'vtt'] as const) {
      const file = (await transcribe(format)) as unknown as string;
      expect(typeof file).toBe('string');
      if (format === 'vtt') expect(file.startsWith('WEBVTT\n\n')).toBe(true);
      const separator = format === 'srt' ? ',' : '\\.';
      const timing = new RegExp(`^(\\d\\d):(\\d\\d):(\\d\\d)${separator}(\\d{3}) --> (\\d\\d):(\\d\\d):(\\d\\d)${separator}(\\d{3})$`);
      const blocks = file
        .replace(/^WEBVTT\n\n/, '')
        .trim()
        .split('\n\n');
      expect(blocks.length).toBeGreaterThan(0);
      const text: string[] = [];
      blocks.forEach((block, i) => {
        const [index, times, ...lines] = block.split('\n');
        expect(index).toBe(String(i + 1));
        const m = timing.exec(times!);
        expect(m, times).not.toBeNull();
        const seconds = (h: string, mi: string, s: string, ms: string) => Number(h) * 3600 + Number(mi) * 60 + Number(s) + Number(ms) / 1000;
        const start = seconds(m![1]!, m![2]!, m![3]!, m![4]!);
        const end = seconds(m![5]!, m![6]!, m![7]!, m![8]!);
        expect(end).toBeGreaterThan(start);
        expect(start).toBeLessThanOrEqual(CLIP_SECONDS);
        text.push(...lines);
      });
      expect(text.join(' ')).toBe(restText);
    }
  });

  it('verbose_json (segment granularity by default): task, language name, duration and OpenAI segments', async () => {
    const result = await verbose();
    expect(result.task).toBe('transcribe');
    expect(result.language).toBe('amharic');
    expect(result.duration).toBeCloseTo(CLIP_SECONDS, 1);
    expect(result.text).toBe(restText);
    expect(result.words).toBeUndefined();
    const segments = result.segments!;
    expect(segments.length).toBeGreaterThan(0);
    expect(segments.map((s) => s.text).join(' ')).toBe(restText);
    segments.forEach((s, i) => {
      expect(Object.keys(s).sort()).toEqual([
        'avg_logprob',
        'compression_ratio',
        'end',
        'id',
        'no_speech_prob',
        'seek',
        'start',
        'temperature',
        'text',
        'tokens',
      ]);
      expect(s.id).toBe(i);
      expect(s.seek).toBe(Math.round(s.start * 100));
      expect(s.end).toBeGreaterThan(s.start);
      expect(s.end).toBeLessThanOrEqual(CLIP_SECONDS + 0.05);
      expect(s.avg_logprob).toBeLessThan(0);
      expect(s.compression_ratio).toBeGreaterThan(0);
      expect(s).toMatchObject({ tokens: [], temperature: 0, no_speech_prob: 0 });
    });
  });

  it('verbose_json with both granularities: segments and words, each word inside the audio and in text order', async () => {
    const both = await verbose({ timestamp_granularities: ['word', 'segment'] });
    expect(both.segments!.length).toBeGreaterThan(0);
    const words = both.words!;
    expect(Array.isArray(words)).toBe(true);
    for (const w of words) {
      expect(w.end).toBeGreaterThanOrEqual(w.start);
      expect(w.start).toBeGreaterThanOrEqual(0);
      expect(w.end).toBeLessThanOrEqual(CLIP_SECONDS + 0.05);
    }
    for (let i = 1; i < words.length; i++) expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.start);
    expect(words.length).toBeGreaterThan(0);
    expect(words.map((w) => w.word).join(' ')).toBe(restText);
    const wordsOnly = await verbose({ timestamp_granularities: ['word'] });
    expect(wordsOnly.segments).toBeUndefined();
    expect(wordsOnly.words).toEqual(words);
  });

  it('takes a model name, no language (detected) and a keyterm prompt, temperature and stream=false', async () => {
    const { data: named, response } = await client.audio.transcriptions
      .create({ file: createReadStream(CLIP), model: 'small-am-v2', prompt: 'ጐመራ, አተር\nጐመራ', temperature: 0.3, stream: false })
      .withResponse();
    expect((named as OpenAI.Audio.Transcription).text.length).toBeGreaterThan(0);
    // The prompt reached the job as its keyterms (the option the job runner hands the decoder).
    const job = await suite.gw.gateway.jobs.jobs.get(response.headers.get('x-transcription-id')!);
    expect(job).toMatchObject({ requestedLanguage: 'am', requestedModel: 'small-am-v2', options: { keyterms: ['ጐመራ', 'አተር'] } });
    const detected = (await client.audio.transcriptions.create({
      file: createReadStream(CLIP),
      model: 'whisper-1',
      response_format: 'verbose_json',
    })) as OpenAI.Audio.TranscriptionVerbose;
    expect(['amharic', 'tigrinya']).toContain(detected.language);
  });
});

describe('a client that goes away', () => {
  it('cancels its job', async () => {
    // 400 times the clip (about 23 min, 45 MB; 80 times took 1.9 s on a quiet machine): still running
    // when the client leaves, with room for a busy one. This test failed 2 of 7 runs beside a training
    // run until the server's wait began to honour a signal that had fired before it (awaited-job.test.ts),
    // and then in rare full runs until the request body stopped pausing the socket on its last chunk
    // (request-body-stream.test.ts): a server that reads the upload slower than it arrives paused the
    // socket, nothing resumed it after the end, and uWS never saw the client leave, so the job completed.
    const { pcm } = wavData(readFileSync(CLIP));
    const long = Buffer.concat(Array.from({ length: 400 }, () => pcm));
    const form = new FormData();
    form.append('file', new Blob([wavOf(long)]), 'long.wav');
    form.append('model', 'whisper-1');
    form.append('language', 'am');
    // node:http, whose destroy() closes the connection for certain. (With fetch and an AbortController
    // the job once completed too: most likely the paused socket above, as the server never saw the client leave.)
    const encoded = new Request(`${suite.gw.url}/v1/audio/transcriptions`, { method: 'POST', body: form });
    const body = Buffer.from(await encoded.arrayBuffer());
    const leaving = httpRequest(`${suite.gw.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${suite.key}`, 'content-type': encoded.headers.get('content-type')!, 'content-length': String(body.length) },
    });
    const request = new Promise<unknown>((resolve) => {
      leaving.on('error', resolve);
      leaving.on('close', () => resolve(new Error('closed')));
      leaving.on('response', (response) => resolve(`answered ${response.statusCode} before the client left`));
    });
    leaving.end(body);
    const rest = new JobsClient(suite.gw.url, suite.key);
    const listed = async (): Promise<Job | undefined> => {
      const response = await fetch(`${suite.gw.url}/v1/transcriptions?limit=5`, { headers: rest.headers() });
      return ((await response.json()) as { data: Job[] }).data.find((j) => j.status === 'processing');
    };
    let running: Job | undefined;
    const deadline = Date.now() + 30_000;
    while (running === undefined && Date.now() < deadline) {
      running = await listed();
      if (running === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(running, 'the job never ran').toBeDefined();
    leaving.destroy();
    expect(await request).toBeInstanceOf(Error);
    const ended = await rest.waitFor(running!.id);
    expect(ended.status).toBe('cancelled');
  }, 60_000);
});

describe('client.audio.translations.create', () => {
  it('speech to English text in every format (recognition, then the translation engine)', async () => {
    const translate = (format: 'json' | 'text' | 'srt' | 'vtt' | 'verbose_json') =>
      client.audio.translations.create({ file: createReadStream(CLIP), model: 'whisper-1', response_format: format });
    const json = (await translate('json')) as OpenAI.Audio.Translation;
    expect(json.text.length).toBeGreaterThan(0);
    expect(scriptShare(json.text, 'en')).toBeGreaterThan(0.8);
    expect(await translate('text')).toBe(`${json.text}\n`);
    const verbose = (await translate('verbose_json')) as OpenAI.Audio.TranslationVerbose & { task: string };
    expect(verbose).toMatchObject({ task: 'translate', language: 'english', text: json.text });
    expect(verbose.duration).toBeCloseTo(CLIP_SECONDS, 1);
    expect(verbose.segments!.map((s) => s.text).join(' ')).toBe(json.text);
    const srt = (await translate('srt')) as unknown as string;
    expect(srt.startsWith('1\n00:00:')).toBe(true);
    const vtt = (await translate('vtt')) as unknown as string;
    expect(vtt.startsWith('WEBVTT\n\n1\n00:00:')).toBe(true);
  });
});

describe('client.models', () => {
  it('list: the speech models and the aliases, in OpenAI’s shape', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      expect(model.object).toBe('model');
      expect(model.owned_by).toBe('horn-speech-gateway');
      expect(Number.isInteger(model.created)).toBe(true);
      ids.push(model.id);
    }
    expect(ids).toEqual(expect.arrayContaining(['small-am-v2', 'small-om-v1', 'small-ti-v1', 'whisper-1', 'gpt-4o-transcribe']));
    expect((await client.models.retrieve('whisper-1')).id).toBe('whisper-1');
  });
});

describe('errors as the client raises them', () => {
  it('a bad key is AuthenticationError with our message, in OpenAI’s envelope', async () => {
    const stranger = new OpenAI({ apiKey: 'sk_not_a_key', baseURL: `${suite.gw.url}/v1`, maxRetries: 0 });
    const error = await stranger.audio.transcriptions.create({ file: createReadStream(CLIP), model: 'whisper-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const auth = error as AuthenticationError;
    expect(auth.status).toBe(401);
    expect(auth.error).toEqual({ message: 'Invalid API key.', type: 'authentication_error', param: null, code: 'invalid_api_key' });
    expect(auth.message).toContain('Invalid API key.');
  });

  it('an unsupported language, a model of another language and stream=true are BadRequestError naming the field', async () => {
    const refused = async (params: Record<string, unknown>): Promise<BadRequestError> => {
      const error = await client.audio.transcriptions
        .create({ file: createReadStream(CLIP), model: 'whisper-1', ...params } as OpenAI.Audio.TranscriptionCreateParamsNonStreaming)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      return error as BadRequestError;
    };
    const english = await refused({ language: 'en' });
    expect(english.status).toBe(400);
    expect(english.error).toMatchObject({ type: 'invalid_request_error', param: 'language', code: 'UNSUPPORTED_LANGUAGE' });
    expect(english.message).toContain("Language 'en' is not supported");
    expect((await refused({ model: 'small-om-v1', language: 'am' })).error).toMatchObject({ param: 'model', code: 'UNSUPPORTED_MODEL' });
    expect((await refused({ stream: true })).error).toMatchObject({ param: 'stream', code: 'invalid_field_value' });
    const notAudio = await client.audio.transcriptions
      .create({ file: new File([Buffer.from('not audio at all')], 'notes.txt'), model: 'whisper-1' })
      .catch((e: unknown) => e);
    expect(notAudio).toBeInstanceOf(BadRequestError);
    expect((notAudio as BadRequestError).error).toMatchObject({ param: 'file', code: 'invalid_audio_format' });
  });

  it('unknown paths under /v1/audio answer 404 in OpenAI’s envelope', async () => {
    const response = await fetch(`${suite.gw.url}/v1/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${suite.key}` } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: Record<string, unknown> }).error).toMatchObject({ param: null, code: 'resource_not_found' });
  });
});

describe('rate limits and content types', () => {
  // A gateway of its own (test fixture models) whose key may make two requests a minute.
  const limited = useTestGateway({ RATE_LIMIT_PER_MINUTE: '2' });

  it('past the rate limit the client raises RateLimitError, with Retry-After and our message', async () => {
    const own = new OpenAI({ apiKey: limited.key, baseURL: `${limited.gw.url}/v1`, maxRetries: 0 });
    const first = await fetch(`${limited.gw.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limited.key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(first.status).toBe(415);
    expect(((await first.json()) as { error: Record<string, unknown> }).error).toMatchObject({ code: 'unsupported_content_type', param: 'Content-Type' });
    await own.models.retrieve('whisper-1');
    const error = await own.models.retrieve('whisper-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const refused = error as RateLimitError;
    expect(Number(refused.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null });
    expect(refused.message).toContain('Rate limit exceeded: 2 requests per minute');
  });
});
