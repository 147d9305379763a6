// OpenAI-compatible routes (docs/openai-compatible.md): POST /v1/audio/transcriptions and
// /v1/audio/translations, GET /v1/models and /v1/models/{model}, with the bearer key and errors
// in OpenAI's envelope. Each audio request is a transcription job of the key, submitted as
// POST /v1/transcriptions submits one and awaited here (awaited-job.ts); its id is in the
// X-Transcription-Id header. The fields are read by openai-request.ts and the answer rendered by
// openai-formats.ts; translations translate the segments' texts to English with the gateway's
// translation engine.
import type { Limits } from '../../platform/config/config.js';
import { ApiError } from '../../platform/errors/api-error.js';
import { defineRoute, type RequestContext, type Reply, type RouteDefinition } from '../../platform/http/route-types.js';
import type { FileStorage } from '../../platform/files/file-storage.js';
import type { Asr } from '../../engines/asr/asr.js';
import type { TranslationEngine, TranslationLanguage } from '../../engines/translation/translation.js';
import { awaitCompletedJob, type CompletedJob } from '../../jobs/awaited-job.js';
import type { JobService } from '../../jobs/job-service.js';
import { OPENAI_READ, OPENAI_WRITE } from '../route-access.js';
import { withAudioUpload } from '../transcriptions/transcription-routes.js';
import { keytermJobOptions } from '../keyterm-fields.js';
import { renderAudioResult, TEXT_CONTENT_TYPE, type AudioResult, type ResultSegment } from './openai-formats.js';
import { MODEL_ALIASES, readOpenAiFields, type ModelCatalogue, type OpenAiAudioRequest, type OpenAiTask } from './openai-request.js';
import {
  OpenAiAudioResultSchema,
  OpenAiModelListSchema,
  OpenAiModelParams,
  OpenAiModelSchema,
  OpenAiTranscriptionFields,
  OpenAiTranslationFields,
} from './openai-schemas.js';
import { CAPTION_CONTENT_TYPES } from '../../jobs/caption-formats.js';

export interface OpenAiRouteDeps {
  readonly jobs: JobService;
  readonly asr: Pick<Asr, 'resolveModel' | 'sniff' | 'verifyAudio' | 'models' | 'languages'>;
  readonly storage: FileStorage;
  readonly limits: Limits;
  /** The translation engine of /v1/audio/translations; null: 500 service_unavailable. */
  readonly translation: () => TranslationEngine | null;
  /** When the gateway started (ms): the `created` of the models. */
  readonly startedAt: number;
}

const TAGS = ['OpenAI-compatible'];
const OWNER = 'horn-speech-gateway';
/** The header naming the transcription job behind an answer. */
export const JOB_ID_HEADER = 'X-Transcription-Id';

export function openAiRoutes(deps: OpenAiRouteDeps): RouteDefinition[] {
  const catalogue = (): ModelCatalogue => ({
    models: deps.asr.models().map((m) => ({ name: m.name, language: m.language })),
    languages: deps.asr.languages().flatMap((l) => (l.defaultModel === null ? [] : [l.code])),
  });
  const languageName = (code: string): string => (deps.asr.languages().find((l) => l.code === code)?.name ?? code).toLowerCase();
  const modelIds = (): string[] => [...deps.asr.models().map((m) => m.name), ...MODEL_ALIASES];
  const model = (id: string) => ({ id, object: 'model' as const, created: Math.floor(deps.startedAt / 1000), owned_by: OWNER });

  const audioRoute = (task: OpenAiTask) =>
    defineRoute({
      method: 'POST',
      path: task === 'transcribe' ? '/v1/audio/transcriptions' : '/v1/audio/translations',
      operationId: task === 'transcribe' ? 'createOpenAiTranscription' : 'createOpenAiTranslation',
      summary:
        task === 'transcribe'
          ? "Transcribe an audio file, OpenAI's request and answer (whole result, synchronous)"
          : "Translate speech to English text, OpenAI's request and answer (recognition, then the translation engine)",
      description:
        (task === 'transcribe'
          ? 'Multipart as OpenAI takes it: `file`, `model`, `language`, `prompt` (keyterms), `response_format`, `timestamp_granularities[]`, `temperature`, `stream` (false only). '
          : 'Multipart as OpenAI takes it: `file`, `model`, `prompt` (keyterms), `response_format`, `temperature`; extension: `language` (the spoken one, am or ti; left out: detected). The segments are translated one by one, their times kept. ') +
        'The answer comes when the transcription is done; the request is a transcription job of the key (its id in the X-Transcription-Id header, listed by GET /v1/transcriptions). ' +
        "Errors use OpenAI's envelope `{error: {message, type, param, code}}`; invalid values are 400. docs/openai-compatible.md.",
      tags: TAGS,
      ...OPENAI_WRITE,
      body: { kind: 'multipart', schema: task === 'transcribe' ? OpenAiTranscriptionFields : OpenAiTranslationFields },
      maxBodyBytes: deps.limits.maxAudioBytes + 1_000_000,
      sizeLimit: { bytes: deps.limits.maxAudioBytes, subject: 'The file' },
      responses: {
        200: {
          description: 'json and verbose_json as JSON; text, srt and vtt as text',
          schema: OpenAiAudioResultSchema,
          alsoText: [TEXT_CONTENT_TYPE, CAPTION_CONTENT_TYPES.srt, CAPTION_CONTENT_TYPES.vtt],
          headers: { [JOB_ID_HEADER]: 'The transcription job (GET /v1/transcriptions/{job_id})' },
        },
        404: { description: 'job_not_found: the job was deleted before it finished' },
        409: { description: 'job_not_completed: the job was cancelled before it completed' },
        503: { description: 'server_overloaded (with Retry-After): the job queue is full, or the server stopped waiting for the job' },
      },
      handler: async (ctx) => {
        const { job, request } = await submitUpload(ctx, task);
        const done = await awaitCompletedJob(deps.jobs, job, ctx.signal);
        const result = task === 'transcribe' ? transcriptOf(done) : await translationOf(done, ctx.signal);
        const rendered = renderAudioResult(result, request.responseFormat, request.granularities);
        const headers = { [JOB_ID_HEADER]: done.id };
        if (rendered.kind === 'json') return { status: 200, body: rendered.body, headers };
        ctx.exchange.setHeader(JOB_ID_HEADER, done.id);
        ctx.exchange.send(200, rendered.body, rendered.contentType);
        return undefined;
      },
    });

  /** Stores the upload, reads the fields and submits the job; on a refusal the stored file goes. */
  const submitUpload = async (
    ctx: Pick<RequestContext, 'principal' | 'exchange' | 'log' | 'signal'>,
    task: OpenAiTask,
  ): Promise<{ job: { id: string; accountId: string }; request: OpenAiAudioRequest }> =>
    withAudioUpload(deps, ctx, false, async (upload) => {
      const request = readOpenAiFields(upload.fields, catalogue(), task);
      const resolved = deps.asr.resolveModel(request.language, request.model);
      if (task === 'translate') translatable(resolved.language);
      const job = await upload.submit({
        language: resolved.language,
        requestedModel: request.model ?? '',
        mode: 'sync',
        options: { ...keytermJobOptions(request.keyterms.length > 0 ? request.keyterms : null), openai: task },
      });
      return { job, request };
    });

  const transcriptOf = (job: CompletedJob): AudioResult => ({
    task: 'transcribe',
    language: languageName(job.language),
    durationSeconds: job.durationSeconds ?? 0,
    segments: job.segments ?? [],
  });

  /** The engine that translates speech of `language` to English; `auto` passes (checked once detected). */
  const translatable = (language: string): TranslationEngine => {
    const engine = deps.translation();
    if (engine === null) {
      throw new ApiError('service_unavailable', { message: 'Speech translation is not available on this server: no translation engine is configured.' });
    }
    const readable = engine.languages.filter((l) => l !== 'en');
    if (language !== 'auto' && !(readable as readonly string[]).includes(language)) {
      throw new ApiError('UNSUPPORTED_LANGUAGE', {
        message: `Speech in '${language}' cannot be translated: the translation model reads ${readable.join(', ')}.`,
        param: 'language',
      });
    }
    return engine;
  };

  const translationOf = async (job: CompletedJob, signal: AbortSignal): Promise<AudioResult> => {
    const engine = translatable(job.language);
    const spoken = (job.segments ?? []).filter((s) => s.text.trim().length > 0);
    const english = await engine.translateMany(
      spoken.map((s) => s.text),
      job.language as TranslationLanguage,
      'en',
      { mode: 'beam', signal, tenant: job.accountId },
    );
    // The recognition's confidence stays with each segment; translated text has no word timings.
    const segments: ResultSegment[] = spoken.map((s, i) => ({ start_ms: s.start_ms, end_ms: s.end_ms, text: english[i]!, confidence: s.confidence }));
    return { task: 'translate', language: 'english', durationSeconds: job.durationSeconds ?? 0, segments };
  };

  return [
    audioRoute('transcribe'),
    audioRoute('translate'),
    defineRoute({
      method: 'GET',
      path: '/v1/models',
      operationId: 'listOpenAiModels',
      summary: "The speech models and OpenAI's model names they answer to, in OpenAI's list shape",
      description: `The models of GET /v1/languages, then the aliases ${MODEL_ALIASES.join(', ')} (each runs the default model of the language).`,
      tags: TAGS,
      ...OPENAI_READ,
      responses: { 200: { description: 'Model list', schema: OpenAiModelListSchema } },
      handler: async (): Promise<Reply> => ({ status: 200, body: { object: 'list', data: modelIds().map(model) } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/models/{model}',
      operationId: 'getOpenAiModel',
      summary: 'One model of GET /v1/models',
      tags: TAGS,
      ...OPENAI_READ,
      params: OpenAiModelParams,
      responses: { 200: { description: 'The model', schema: OpenAiModelSchema }, 404: { description: 'resource_not_found: no such model' } },
      handler: async ({ params }): Promise<Reply> => {
        if (!modelIds().includes(params.model)) {
          throw new ApiError('resource_not_found', { message: `The model '${params.model}' does not exist. GET /v1/models lists the models.`, param: 'model' });
        }
        return { status: 200, body: model(params.model) };
      },
    }),
  ];
}
