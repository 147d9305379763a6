import type { Limits } from '../../platform/config/config.js';
import { ApiError, isApiError } from '../../platform/errors/api-error.js';
import { readMultipart, type MultipartFile } from '../../platform/http/body-readers.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import { validateInput } from '../../platform/http/schema-validation.js';
import { batchCreatedView } from '../../jobs/batch-views.js';
import { jobErrorFrom } from '../../jobs/job-errors.js';
import { jobPrefix } from '../../jobs/job-runner.js';
import { type JobService } from '../../jobs/job-service.js';
import { buildJob, newJobId } from '../../jobs/new-job.js';
import type { JobRecord } from '../../platform/db/job-records.js';
import type { Asr } from '../../engines/asr/asr.js';
import { storeCheckedAudio } from '../../media/audio-check.js';
import type { MediaLibrary } from '../../media/media-library.js';
import type { OutboundGuard } from '../../platform/net/outbound-guard.js';
import { BatchCreatedSchema, BatchMultipartFields, CreateBatchJson, CreateBatchMultipart } from './batch-schemas.js';
import type { FileStorage } from '../../platform/files/file-storage.js';
import { checkAudioUrl } from '../transcriptions/transcription-routes.js';
import { AUDIO_SUBMISSION_RESPONSES } from '../transcriptions/transcription-schemas.js';
import { diarizationJobOptions } from '../../jobs/job-diarization.js';
import { checkDiarizationConfig, multipartDiarization } from '../diarization-fields.js';
import { keytermJobOptions, readKeyterms } from '../keyterm-fields.js';
import { BEARER_WRITE } from '../route-access.js';
import { hashingStream, IDEMPOTENCY_KEY_TEXT, idempotencyKey, markReplay, requestFingerprint } from '../idempotency-key.js';
import type { IdempotentOutcome } from '../../jobs/idempotent-submissions.js';
import type { HttpExchange } from '../../platform/http/http-exchange.js';

export interface BatchRouteDeps {
  readonly jobs: JobService;
  readonly asr: Pick<Asr, 'resolveModel' | 'sniff'>;
  readonly storage: FileStorage;
  readonly library: MediaLibrary;
  readonly guard: OutboundGuard;
  readonly ffprobe: string;
  readonly ffmpeg: string;
  readonly defaultLanguage: string;
  readonly limits: Limits;
}

/** One multipart file: stored under its child job, or refused (that child then fails, the batch goes on). */
type StoredPart = { readonly id: string; readonly filename: string; readonly sha256: string | null } & (
  | { readonly stored: { key: string; size: number } }
  | { readonly refused: ApiError }
);

/**
 * POST /v1/transcriptions/batch: one parent job and one child job per file. Children run through
 * the same queue, per-key concurrency limit and daily quota as single jobs; a file that cannot be
 * fetched or decoded fails alone and the batch completes without it.
 */
/** The route named in Idempotency-Key fingerprints. */
const ROUTE = 'POST /v1/transcriptions/batch';

export function batchRoutes(deps: BatchRouteDeps): RouteDefinition[] {
  const { jobs, limits } = deps;

  /** A batch URL: https://, svc://media/<id>, or this gateway's file_url. */
  const checkBatchUrl = (url: string, index: number): void => {
    const param = `audio_urls.${index}`;
    if (deps.library.referencedId(url) !== null) return;
    if (!/^https:\/\//i.test(url)) {
      throw new ApiError('invalid_field_value', {
        message: `'${param}' must be an https:// URL, an svc:// URI or a file_url from the upload endpoints.`,
        param,
      });
    }
    checkAudioUrl(url, deps.guard, param);
  };

  const submit = async (parent: JobRecord, children: JobRecord[]): Promise<void> => {
    await jobs.submit([parent, ...children]);
    // Files refused at upload are final already; announcing them lets the parent follow.
    for (const child of children) if (child.status === 'failed') jobs.events.emit('finished', child);
  };

  /** 202 with the batch parent: the new one, or the one an Idempotency-Key names. */
  const replyCreated = async (exchange: HttpExchange, outcome: IdempotentOutcome) => {
    const parent = await jobs.jobs.get(outcome.jobId);
    if (parent === null) throw new ApiError('job_not_found', { message: `Batch ${outcome.jobId} was deleted.` });
    markReplay(exchange, outcome);
    return { status: 202, body: batchCreatedView(asSubmitted(parent), Number(parent.options['total_count'] ?? 0)) };
  };

  return [
    defineRoute({
      method: 'POST',
      path: '/v1/transcriptions/batch',
      operationId: 'createTranscriptionBatch',
      summary: 'Transcribe many files: one parent job, one child job per file',
      description:
        'JSON with `audio_urls` (https:// URLs, svc:// URIs or upload file_urls), or multipart with one `files` part per file; ' +
        `at most BATCH_MAX_FILES (${limits.batchMaxFiles}) files. Always asynchronous: 202 with the parent (status queued, ` +
        '`metadata.batch_mode` true, `metadata.total_count`). Poll GET /v1/transcriptions/{id} until the parent is completed or failed; ' +
        '`metadata.jobs[]` maps each file (`url` = the submitted URL, or the file name of a multipart part) to its child job. ' +
        'One bad file never fails the batch: it fails alone (see `metadata.failed_count`); the parent fails only when no file completed. ' +
        'Children share the per-key concurrency limit with single jobs and wait their turn in the queue. ' +
        'Extension: `diarize` and `diarization_config` (as on POST /v1/transcriptions) apply to every file; each child carries its own `speakers` and segment `speaker`s. ' +
        IDEMPOTENCY_KEY_TEXT,
      tags: ['Transcriptions'],
      ...BEARER_WRITE,
      body: { kind: 'json-or-multipart', json: CreateBatchJson, multipart: CreateBatchMultipart },
      maxBodyBytes: limits.batchMaxFiles * limits.maxAudioBytes + 1_000_000,
      sizeLimit: {
        bytes: limits.batchMaxFiles * limits.maxAudioBytes,
        subject: `The batch (at most ${limits.batchMaxFiles} files of ${limits.maxAudioBytes} bytes each)`,
      },
      responses: { 202: { description: 'The batch parent', schema: BatchCreatedSchema }, ...AUDIO_SUBMISSION_RESPONSES },
      handler: async (ctx) => {
        const principal = ctx.principal!;
        const key = idempotencyKey(ctx.exchange);
        if (ctx.bodyKind === 'json') {
          const body = ctx.body;
          if (body.audio_urls.length > limits.batchMaxFiles) {
            throw new ApiError('invalid_field_value', {
              message: `A batch holds at most ${limits.batchMaxFiles} files; ${body.audio_urls.length} were sent.`,
              param: 'audio_urls',
            });
          }
          const resolved = deps.asr.resolveModel(body.language ?? deps.defaultLanguage, body.model);
          body.audio_urls.forEach(checkBatchUrl);
          checkDiarizationConfig(body.diarization_config);
          const childOptions = { ...diarizationJobOptions(body.diarize, body.diarization_config), ...keytermJobOptions(readKeyterms(body.keyterms)) };
          const outcome = await jobs.submissions.submit(principal.accountId, key, requestFingerprint(ROUTE, body), async () => {
            await jobs.admitParent(principal, 'unified');
            const parent = buildJob({
              principal,
              kind: 'batch',
              language: resolved.language,
              requestedModel: body.model ?? '',
              options: { batch_mode: true, total_count: body.audio_urls.length },
            });
            const children = body.audio_urls.map((url, index) =>
              buildJob({
                principal,
                kind: 'batch_child',
                parentId: parent.id,
                language: resolved.language,
                requestedModel: body.model ?? '',
                audioUrl: url,
                position: index,
                options: childOptions,
              }),
            );
            await submit(parent, children);
            return parent.id;
          });
          return replyCreated(ctx.exchange, outcome);
        }

        const parentId = newJobId();
        const prefixOf = (id: string) => jobPrefix({ accountId: principal.accountId, id });
        const form = await readMultipart<StoredPart>(ctx.exchange, {
          maxFileBytes: limits.maxAudioBytes,
          maxFiles: limits.batchMaxFiles,
          onFile: (file) => storePart(deps, prefixOf, file, key !== null, ctx.signal),
          discard: async (part) => deps.storage.deletePrefix(prefixOf(part.id)),
        });
        const parts = form.files;
        try {
          if (parts.length === 0) throw new ApiError('missing_required_field', { message: "Send at least one file as a 'files' part.", param: 'files' });
          const fields = validateInput<{ language?: string; model?: string; diarize?: string; diarization_config?: string }>(
            BatchMultipartFields,
            form.fields,
            'body',
          );
          const resolved = deps.asr.resolveModel(fields.language ?? deps.defaultLanguage, fields.model);
          const asked = multipartDiarization(fields);
          const childOptions = { ...diarizationJobOptions(asked.diarize, asked.config), ...keytermJobOptions(readKeyterms(form.fields['keyterms'])) };
          const fingerprint = requestFingerprint(ROUTE, { fields: form.fields, files: parts.map((part) => [part.filename, part.sha256]) });
          const outcome = await jobs.submissions.submit(principal.accountId, key, fingerprint, async () => {
            await jobs.admitParent(principal, 'unified');
            const parent = buildJob({
              id: parentId,
              principal,
              kind: 'batch',
              language: resolved.language,
              requestedModel: fields.model ?? '',
              options: { batch_mode: true, total_count: parts.length },
            });
            const children = parts.map((part, index) => {
              const child = buildJob({
                id: part.id,
                principal,
                kind: 'batch_child',
                parentId,
                language: resolved.language,
                requestedModel: fields.model ?? '',
                audio: 'stored' in part ? { ...part.stored, filename: part.filename } : null,
                position: index,
                options: childOptions,
              });
              if ('stored' in part) return child;
              const now = new Date().toISOString();
              return {
                ...child,
                audioFilename: part.filename,
                status: 'failed' as const,
                error: jobErrorFrom(part.refused),
                completedAt: now,
                progress: { stage: 'failed', percent: 0, total_segments: 0, done_segments: 0 },
              };
            });
            await submit(parent, children);
            return parentId;
          });
          // A replay answers the first request's batch: this request's copies of the files are not needed.
          if (outcome.replayed) for (const part of parts) await deps.storage.deletePrefix(prefixOf(part.id)).catch(() => undefined);
          return replyCreated(ctx.exchange, outcome);
        } catch (error) {
          if ((await jobs.jobs.get(parentId)) === null) {
            for (const part of parts) await deps.storage.deletePrefix(prefixOf(part.id)).catch(() => undefined);
          }
          throw error;
        }
      },
    }),
  ];
}

/** The parent as its submission answered it (queued): what a replay under its Idempotency-Key answers again. */
function asSubmitted(parent: JobRecord): JobRecord {
  const progress = { stage: 'queued', percent: 0, total_segments: 0, done_segments: 0 };
  const unrun = { model: null, error: null, startedAt: null, completedAt: null, durationSeconds: null, processingTimeSeconds: null };
  return { ...parent, ...unrun, status: 'queued', progress, updatedAt: parent.createdAt };
}

/** Stores one part under its own child job's prefix; a part that is not audio is remembered as refused. */
async function storePart(deps: BatchRouteDeps, prefixOf: (id: string) => string, file: MultipartFile, hash: boolean, signal: AbortSignal): Promise<StoredPart> {
  const id = newJobId();
  const filename = file.filename || `file-${id}`;
  if (file.field !== 'files') {
    file.stream.resume();
    throw new ApiError('invalid_field_value', { message: `Unexpected file field '${file.field}'; send each file as a 'files' part.`, param: file.field });
  }
  const hashed = hash ? hashingStream(file.stream) : null;
  const sha256 = (): string | null => hashed?.sha256() ?? null;
  try {
    const checked = await storeCheckedAudio(
      { storage: deps.storage, asr: deps.asr, ffprobe: deps.ffprobe, ffmpeg: deps.ffmpeg, probeTimeoutSeconds: deps.limits.probeTimeoutSeconds },
      `${prefixOf(id)}/audio`,
      hashed?.stream ?? file.stream,
      // The signal (the client went away) stops the write and removes what was written.
      { maxBytes: deps.limits.maxAudioBytes, describe: filename, param: 'files', declaredType: file.mimeType, signal },
    );
    return { id, filename, sha256: sha256(), stored: { key: checked.object.key, size: checked.object.size } };
  } catch (error) {
    if (isApiError(error) && error.code === 'invalid_audio_format') {
      (hashed?.stream ?? file.stream).resume();
      return { id, filename, sha256: null, refused: error };
    }
    throw error;
  }
}
