import type { Logger } from 'pino';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UrlSigner } from '../../platform/auth/url-signer.js';
import type { Limits } from '../../platform/config/config.js';
import { ApiError, asApiError } from '../../platform/errors/api-error.js';
import { readMultipart } from '../../platform/http/body-readers.js';
import { defineRoute, type RequestContext, type RouteDefinition } from '../../platform/http/route-types.js';
import { validateInput } from '../../platform/http/schema-validation.js';
import { jobPrefix } from '../../jobs/job-runner.js';
import { type JobService } from '../../jobs/job-service.js';
import { newJobId, type NewJobInput } from '../../jobs/new-job.js';
import type { JobRecord } from '../../platform/db/job-records.js';
import { transcriptionView } from '../../jobs/job-views.js';
import { channelOptions, checkChannelCount } from './channel-options.js';
import type { Asr } from '../../engines/asr/asr.js';
import { unsupportedAudioMessage } from '../../engines/signal/signal.js';
import type { OutboundGuard } from '../../platform/net/outbound-guard.js';
import { tryUrl } from '../../platform/net/try-url.js';
import { requireValidSignature, SIGNED_URL_DESCRIPTION, SignedUrlQuery, signedDownloadResponses } from '../signed-urls.js';
import { cursorPageBody, readKeysetPage, withPageSize } from '../list-paging.js';
import type { FileStorage } from '../../platform/files/file-storage.js';
import { serveStoredObject } from '../../platform/http/serve-object.js';
import { headCapture } from '../../media/audio-check.js';
import { diarizationJobOptions } from '../../jobs/job-diarization.js';
import { checkDiarizationConfig, multipartDiarization } from '../diarization-fields.js';
import { keytermJobOptions, readKeyterms } from '../keyterm-fields.js';
import {
  CreateTranscriptionJson,
  CreateTranscriptionMultipart,
  DeletedSchema,
  JobIdParams,
  ListTranscriptionsQuery,
  AUDIO_SUBMISSION_RESPONSES,
  MultipartTranscriptionFields,
  TranscriptionJobSchema,
  TranscriptionListSchema,
} from './transcription-schemas.js';
import { BEARER_READ, BEARER_WRITE, SIGNED } from '../route-access.js';
import { hashingStream, IDEMPOTENCY_KEY_TEXT, idempotencyKey, markReplay, requestFingerprint } from '../idempotency-key.js';

export interface TranscriptionRouteDeps {
  readonly jobs: JobService;
  /** Model rules, the early container check and the full one (`verifyAudio`: ffprobe) of a stored upload. */
  readonly asr: Pick<Asr, 'resolveModel' | 'sniff' | 'verifyAudio'>;
  readonly storage: FileStorage;
  readonly signer: () => UrlSigner;
  readonly guard: OutboundGuard;
  readonly limits: Limits;
  /** Whether a URL is this gateway's own file_url (resolved from storage, never fetched). */
  readonly isGatewayReference?: (url: string) => boolean;
  /** Renders jobs (batch parents with their live metadata); transcriptionView when absent. */
  readonly render?: (job: JobRecord) => Promise<Record<string, unknown>>;
}

const TAGS = ['Transcriptions'];
/** The route named in Idempotency-Key fingerprints. */
const ROUTE = 'POST /v1/transcriptions';

/** The stored files of a job served by signed URL; `recording` is a record=true session's message timeline. */
const DOWNLOADS = {
  audio: {
    getId: 'getTranscriptionAudio',
    getSummary: "Redirect to a signed URL of the job's audio (1 hour)",
    downloadId: 'downloadTranscriptionAudio',
    downloadSummary: "The job's audio through a signed URL (supports Range)",
    contentType: 'audio/*',
  },
  transcript: {
    getId: 'getTranscriptionTranscript',
    getSummary: 'Redirect to a signed URL of the transcript JSON (1 hour)',
    downloadId: 'downloadTranscriptionTranscript',
    downloadSummary: 'The transcript JSON through a signed URL',
    contentType: 'application/json',
  },
  recording: {
    getId: 'getTranscriptionRecording',
    getSummary: "Redirect to a signed URL of a record=true WebSocket session's message timeline (NDJSON, 1 hour)",
    downloadId: 'downloadTranscriptionRecording',
    downloadSummary: "A recorded WebSocket session's message timeline (NDJSON) through a signed URL",
    contentType: 'application/x-ndjson',
  },
} as const;

function storedObject(job: JobRecord, what: keyof typeof DOWNLOADS): string | null {
  if (what === 'audio') return job.audioObject;
  if (what === 'transcript') return job.transcriptObject;
  const recording = job.options.recording;
  return typeof recording === 'string' ? recording : null;
}

/** Checks an audio_url at submission: gateway references, or http(s) URLs whose host may be fetched. */
export function checkAudioUrl(raw: string, guard: OutboundGuard, param = 'audio_url', isGatewayReference: (url: string) => boolean = () => false): void {
  if (raw.startsWith('svc://') || isGatewayReference(raw)) return;
  const url = tryUrl(raw);
  if (url === null) throw new ApiError('invalid_field_value', { message: `'${param}' is not a valid URL.`, param });
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('invalid_field_value', { message: `'${param}' must be an http(s) URL or an svc:// URI.`, param });
  }
  try {
    guard.assertHostAllowed(url);
  } catch (error) {
    if (error instanceof ApiError) throw new ApiError(error.code, { message: error.message, param });
    throw error;
  }
}

/**
 * Streams one multipart audio file into storage under the job's prefix, checking its first
 * bytes against the supported containers. Returns the stored object.
 */
export function storeAudioUpload(
  deps: Pick<TranscriptionRouteDeps, 'storage' | 'asr' | 'limits'>,
  key: string,
  file: { filename: string; mimeType: string; stream: NodeJS.ReadableStream },
  field: string,
  log?: Logger,
  signal?: AbortSignal,
): Promise<{ key: string; size: number; filename: string | null; channels: number }> {
  const capture = headCapture();
  return (async () => {
    // pipeline (not pipe): an error of the upload stream (e.g. payload_too_large) reaches storage.put.
    const source = pipeline(file.stream as Readable, capture).catch((error: unknown) => {
      capture.destroy(error as Error);
    });
    // The signal (the client went away) stops the write and removes what was written.
    const stored = await deps.storage.put(key, capture, {
      contentType: file.mimeType,
      maxBytes: deps.limits.maxAudioBytes,
      ...(signal ? { signal } : {}),
    });
    await source;
    const name = file.filename || 'The file';
    const refuse = async (message: string): Promise<never> => {
      await deps.storage.delete(key);
      throw new ApiError('invalid_audio_format', { message, param: field });
    };
    if (stored.size === 0 || deps.asr.sniff(capture.head) === null) await refuse(unsupportedAudioMessage(name, stored.size));
    const local = await deps.storage.localPath(key);
    let channels = 0;
    try {
      ({ channels } = await deps.asr.verifyAudio(local.path));
    } catch (error) {
      if (asApiError(error)?.code === 'invalid_audio_format') {
        // The message is in user terms; the tool's own words (with server paths) go to the log only.
        log?.info({ detail: (error as { detail?: unknown }).detail }, 'upload refused: not decodable audio');
        await refuse(`${name} could not be read as audio: ${(error as Error).message.replace(/^The audio could not be (read|decoded): /, '')}`);
      }
      if (asApiError(error)?.code === 'file_too_large') {
        // Longer than MAX_AUDIO_SECONDS by its probe: refused before any work, and not kept.
        await deps.storage.delete(key);
        throw new ApiError('file_too_large', { message: (error as Error).message, param: field });
      }
      throw error;
    } finally {
      await local.release();
    }
    return { key, size: stored.size, filename: file.filename || null, channels };
  })();
}

/**
 * Reads a multipart request whose one file is the audio, sent as `file`, streaming it into storage
 * at `key` (storeAudioUpload's checks); a file under any other field is refused. With `hash` the
 * stored object carries the SHA-256 of the bytes (for an idempotency fingerprint), else null. A
 * refused request's stored file is deleted.
 */
export function readAudioForm(
  deps: Pick<TranscriptionRouteDeps, 'storage' | 'asr' | 'limits'>,
  ctx: Pick<RequestContext, 'exchange' | 'log' | 'signal'>,
  key: string,
  hash: boolean,
) {
  return readMultipart(ctx.exchange, {
    maxFileBytes: deps.limits.maxAudioBytes,
    maxFiles: 1,
    onFile: async (file) => {
      if (file.field !== 'file') {
        file.stream.resume();
        throw new ApiError('invalid_field_value', { message: `Unexpected file field '${file.field}'; send the audio as 'file'.`, param: file.field });
      }
      if (!hash) return { ...(await storeAudioUpload(deps, key, file, 'file', ctx.log, ctx.signal)), sha256: null };
      const hashed = hashingStream(file.stream);
      return { ...(await storeAudioUpload(deps, key, { ...file, stream: hashed.stream }, 'file', ctx.log, ctx.signal)), sha256: hashed.sha256() };
    },
    discard: async (stored) => deps.storage.delete(stored.key),
  });
}

/** A multipart request's audio, stored under the prefix of the single job it is for. */
export interface AudioUpload {
  /** The job's id and storage prefix; the file is at `${prefix}/audio`. */
  readonly id: string;
  readonly prefix: string;
  readonly stored: NonNullable<Awaited<ReturnType<typeof readAudioForm>>['files'][number]>;
  readonly fields: Record<string, string | string[]>;
  /** Admits, builds and submits the upload's job (JobService.submitSingle with this id, principal and file). */
  readonly submit: (job: Omit<NewJobInput, 'kind' | 'id' | 'principal' | 'audio' | 'audioUrl'>) => Promise<JobRecord>;
}

/**
 * Reads a multipart request (readAudioForm, `hash` as there) into a new job's storage prefix and
 * runs `handle` on it; a request without the file is refused (missing_required_field). When
 * `handle` throws and no job with the upload's id was stored, the stored file is deleted.
 */
export async function withAudioUpload<T>(
  deps: Pick<TranscriptionRouteDeps, 'storage' | 'asr' | 'limits' | 'jobs'>,
  ctx: Pick<RequestContext, 'principal' | 'exchange' | 'log' | 'signal'>,
  hash: boolean,
  handle: (upload: AudioUpload) => Promise<T>,
): Promise<T> {
  const principal = ctx.principal!;
  const id = newJobId();
  const prefix = jobPrefix({ accountId: principal.accountId, id });
  const form = await readAudioForm(deps, ctx, `${prefix}/audio`, hash);
  const stored = form.files[0];
  try {
    if (stored === undefined) throw new ApiError('missing_required_field', { message: "Missing required field 'file'.", param: 'file' });
    return await handle({ id, prefix, stored, fields: form.fields, submit: (job) => deps.jobs.submitSingle({ ...job, id, principal, audio: stored }) });
  } catch (error) {
    if (stored !== undefined && (await deps.jobs.jobs.get(id)) === null) await deps.storage.deletePrefix(prefix);
    throw error;
  }
}

export function transcriptionRoutes(deps: TranscriptionRouteDeps): RouteDefinition[] {
  const { jobs } = deps;
  const render = deps.render ?? (async (job: JobRecord) => transcriptionView(job));

  // The spec's response table: POST /v1/transcriptions answers 202 in both modes; `sync` only
  // waits (up to SYNC_WAIT_SECONDS) so that the job in the body is usually final.
  const answerCreated = async (id: string, mode: 'async' | 'sync', signal: AbortSignal) => {
    if (mode === 'sync') {
      const job = await jobs.waitForFinal(id, deps.limits.syncWaitSeconds * 1000, signal);
      if (job !== null) return { status: 202, body: await render(job) };
    }
    return { status: 202, body: await render((await jobs.jobs.get(id))!) };
  };

  return [
    defineRoute({
      method: 'POST',
      path: '/v1/transcriptions',
      operationId: 'createTranscription',
      summary: 'Transcribe an audio file (by URL or upload)',
      description:
        'JSON with `audio_url`, or multipart with `file`. `mode=async` (default) answers 202 at once with the queued job; ' +
        '`mode=sync` waits up to SYNC_WAIT_SECONDS and answers 202 with the job as it then is: usually final (`completed` or `failed`), else still `queued` or `processing` (poll it by id). ' +
        'Rules: `model` with `language=auto` → 400 INVALID_FIELD; an unknown model → 422 UNSUPPORTED_MODEL; a language without models → 422 UNSUPPORTED_LANGUAGE; without `model` the language default is used. ' +
        'Extension: `diarize: true` (with an optional `diarization_config`: `backend`, `min_speakers`, `max_speakers`, 1-20) diarizes the file after recognition: segments get `speaker` (SPEAKER_NN by first appearance, null on non-speech; a segment spanning a speaker change is split at word times) and `type` (`male`, `female`, `speech`, `music`: music without speech becomes segments with empty text and null speaker), and the job `speakers: {count, labels}`; ' +
        'a diarization that fails or times out leaves the job completed with `speakers: null` and a message in `warnings` (docs/diarization.md). In multipart, send `diarize=true` and `diarization_config` as JSON text. ' +
        IDEMPOTENCY_KEY_TEXT,
      tags: TAGS,
      ...BEARER_WRITE,
      body: { kind: 'json-or-multipart', json: CreateTranscriptionJson, multipart: CreateTranscriptionMultipart },
      maxBodyBytes: deps.limits.maxAudioBytes + 1_000_000,
      sizeLimit: { bytes: deps.limits.maxAudioBytes, subject: 'The file' },
      responses: {
        202: { description: 'The job: queued (async), or as it is after the sync wait (usually final)', schema: TranscriptionJobSchema },
        ...AUDIO_SUBMISSION_RESPONSES,
        503: {
          description:
            'server_overloaded: the job queue is past its wait bound (graceful overload), or a sync job did not finish in time (the message names the job)',
          headers: { 'Retry-After': 'Seconds to wait' },
        },
      },
      handler: async (ctx) => {
        const principal = ctx.principal!;
        const key = idempotencyKey(ctx.exchange);
        if (ctx.bodyKind === 'json') {
          const body = ctx.body;
          const resolved = deps.asr.resolveModel(body.language, body.model);
          const options = channelOptions(body.channels, body.channel_names);
          checkAudioUrl(body.audio_url, deps.guard, 'audio_url', deps.isGatewayReference);
          checkDiarizationConfig(body.diarization_config);
          const keyterms = readKeyterms(body.keyterms);
          const outcome = await jobs.submissions.submit(principal.accountId, key, requestFingerprint(ROUTE, body), async () => {
            const job = await jobs.submitSingle({
              principal,
              language: resolved.language,
              requestedModel: body.model ?? '',
              mode: body.mode ?? 'async',
              audioUrl: body.audio_url,
              options: { ...options, ...diarizationJobOptions(body.diarize, body.diarization_config), ...keytermJobOptions(keyterms) },
            });
            return job.id;
          });
          markReplay(ctx.exchange, outcome);
          return answerCreated(outcome.jobId, body.mode ?? 'async', ctx.signal);
        }
        return withAudioUpload(deps, ctx, key !== null, async (upload) => {
          const fields = validateInput<{
            language: string;
            mode?: 'async' | 'sync';
            model?: string;
            channels?: '1' | '2';
            channel_names?: string;
            diarize?: string;
            diarization_config?: string;
          }>(MultipartTranscriptionFields, upload.fields, 'body');
          const resolved = deps.asr.resolveModel(fields.language, fields.model);
          const options = channelOptions(fields.channels, fields.channel_names);
          checkChannelCount(options, upload.stored.channels);
          const diarization = multipartDiarization(fields);
          const keyterms = readKeyterms(upload.fields['keyterms']);
          const fingerprint = requestFingerprint(ROUTE, { fields: upload.fields, file: upload.stored.sha256 });
          const outcome = await jobs.submissions.submit(principal.accountId, key, fingerprint, async () => {
            const job = await upload.submit({
              language: resolved.language,
              requestedModel: fields.model ?? '',
              mode: fields.mode ?? 'async',
              options: { ...options, ...diarizationJobOptions(diarization.diarize, diarization.config), ...keytermJobOptions(keyterms) },
            });
            return job.id;
          });
          // A replay answers the first request's job: this request's copy of the file is not needed.
          if (outcome.replayed) await deps.storage.deletePrefix(upload.prefix);
          markReplay(ctx.exchange, outcome);
          return await answerCreated(outcome.jobId, fields.mode ?? 'async', ctx.signal);
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/transcriptions',
      operationId: 'listTranscriptions',
      summary: "List the account's transcription jobs, newest first",
      description: 'Batch children are listed inside their parent (`metadata.jobs`), not here.',
      tags: TAGS,
      ...BEARER_READ,
      query: withPageSize(ListTranscriptionsQuery, deps.limits.listMaxLimit),
      responses: { 200: { description: 'List envelope', schema: TranscriptionListSchema } },
      handler: async ({ query, principal }) => {
        const page = await readKeysetPage(query, deps.limits.listMaxLimit, (paging) =>
          jobs.jobs.list({
            accountId: principal!.accountId,
            ...(query.status_filter !== undefined ? { status: query.status_filter } : {}),
            ...(query.source !== undefined ? { source: query.source === 'websocket' ? 'websocket' : 'file' } : {}),
            ...paging,
            api: 'unified',
          }),
        );
        return { status: 200, body: cursorPageBody(await Promise.all(page.jobs.map(render)), page) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/transcriptions/{job_id}',
      operationId: 'getTranscription',
      summary: 'Get a transcription job',
      tags: TAGS,
      ...BEARER_READ,
      params: JobIdParams,
      responses: { 200: { description: 'The job', schema: TranscriptionJobSchema }, 404: { description: 'job_not_found' } },
      handler: async ({ params, principal }) => ({ status: 200, body: await render(await jobs.getOwned(params.job_id, principal!.accountId)) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/transcriptions/{job_id}',
      operationId: 'deleteTranscription',
      summary: 'Delete a job and all its stored data (a batch parent takes its children with it)',
      tags: TAGS,
      ...BEARER_WRITE,
      params: JobIdParams,
      responses: { 200: { description: 'Deleted', schema: DeletedSchema }, 404: { description: 'job_not_found' } },
      handler: async ({ params, principal }) => {
        await jobs.delete(params.job_id, principal!.accountId);
        return { status: 200, body: { id: params.job_id, object: 'transcription', deleted: true } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/transcriptions/{job_id}/cancel',
      operationId: 'cancelTranscription',
      summary: 'Cancel a queued or processing job',
      tags: TAGS,
      ...BEARER_WRITE,
      params: JobIdParams,
      responses: {
        200: { description: 'The cancelled job', schema: TranscriptionJobSchema },
        404: { description: 'job_not_found' },
        409: { description: 'job_not_cancellable: the job already completed, failed or was cancelled' },
      },
      handler: async ({ params, principal }) => ({ status: 200, body: await render(await jobs.cancel(params.job_id, principal!.accountId)) }),
    }),
    ...(['audio', 'transcript', 'recording'] as const).map((what) =>
      defineRoute({
        method: 'GET',
        path: `/v1/transcriptions/{job_id}/${what}`,
        operationId: DOWNLOADS[what].getId,
        summary: DOWNLOADS[what].getSummary,
        tags: TAGS,
        ...BEARER_READ,
        params: JobIdParams,
        responses: {
          302: { description: 'Location: the signed URL', headers: { Location: 'Signed URL, valid SIGNED_URL_TTL_SECONDS' } },
          404: { description: 'No such job, or nothing stored' },
          409: { description: 'job_not_completed' },
        },
        handler: async ({ params, principal, exchange }) => {
          const job = await jobs.getOwned(params.job_id, principal!.accountId);
          // A session's recording is stored when it ends, completed or failed (field problems).
          if (job.status !== 'completed' && !(what === 'recording' && job.status !== 'processing')) {
            throw new ApiError('job_not_completed', { message: `Job ${job.id} is ${job.status}; its ${what} is available once it has completed.` });
          }
          const object = storedObject(job, what);
          if (object === null || (await deps.storage.stat(object)) === null) {
            throw new ApiError('resource_not_found', { message: `Job ${job.id} has no stored ${what}.` });
          }
          const signed = deps.signer().sign('GET', `/v1/files/transcriptions/${job.id}/${what}`, deps.limits.signedUrlTtlSeconds);
          exchange.setHeader('Cache-Control', 'no-store');
          return { status: 302, headers: { Location: signed.url } };
        },
      }),
    ),
    ...(['audio', 'transcript', 'recording'] as const).map((what) =>
      defineRoute({
        method: 'GET',
        path: `/v1/files/transcriptions/{job_id}/${what}`,
        operationId: DOWNLOADS[what].downloadId,
        summary: DOWNLOADS[what].downloadSummary,
        description: SIGNED_URL_DESCRIPTION,
        tags: ['Files'],
        ...SIGNED,
        params: JobIdParams,
        query: SignedUrlQuery,
        responses: signedDownloadResponses(DOWNLOADS[what].contentType, 'Gone'),
        handler: async ({ params, exchange }) => {
          requireValidSignature(deps.signer().verify('GET', `/v1/files/transcriptions/${params.job_id}/${what}`, exchange));
          const job = await jobs.jobs.get(params.job_id);
          const object = job === null ? null : storedObject(job, what);
          const info = object === null ? null : await deps.storage.stat(object);
          if (info === null) throw new ApiError('resource_not_found', { message: 'The file no longer exists.' });
          await serveStoredObject(exchange, deps.storage, info, {
            filename:
              what === 'audio' ? (job!.audioFilename ?? `${job!.id}-audio`) : `${job!.id}-${what === 'recording' ? 'recording.ndjson' : 'transcript.json'}`,
          });
        },
      }),
    ),
  ];
}
