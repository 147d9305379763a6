import { Type } from '@sinclair/typebox';
import type { UrlSigner } from '../../platform/auth/url-signer.js';
import type { Limits } from '../../platform/config/config.js';
import { ApiError, isApiError } from '../../platform/errors/api-error.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import type { RateLimiter } from '../../platform/limits/rate-limiter.js';
import { countChildren } from '../../jobs/batch-aggregator.js';
import { type JobService } from '../../jobs/job-service.js';
import { buildJob } from '../../jobs/new-job.js';
import { diarizationJobOptions, diarizationRequested, jobSpeakers, jobWarnings } from '../../jobs/job-diarization.js';
import { FINAL_STATUSES, type JobRecord } from '../../platform/db/job-records.js';
import type { Asr } from '../../engines/asr/asr.js';
import type { OutboundGuard } from '../../platform/net/outbound-guard.js';
import { SubmitTranscribeBody, SubmitTranscribeResponse, TranscribeJobStatusSchema } from './job-api-schemas.js';
import { checkAudioUrl } from '../transcriptions/transcription-routes.js';
import { SignedUrlQuery } from '../signed-urls.js';
import { boundsInverted } from '../diarization-fields.js';
import { keytermJobOptions, readJobApiKeyterms } from '../keyterm-fields.js';
import { JOB_KEY_READ, JOB_SIGNED } from '../route-access.js';
import { countJobSubmission, jobSubmissionContract } from './job-submissions.js';
import { IDEMPOTENCY_KEY_TEXT, idempotencyKey, markReplay, requestFingerprint } from '../idempotency-key.js';

export interface JobApiDeps {
  readonly jobs: JobService;
  readonly asr: Pick<Asr, 'resolveModel'>;
  readonly guard: OutboundGuard;
  readonly limiter: RateLimiter;
  readonly signer: () => UrlSigner;
  readonly limits: Limits;
  /** Whether a URL is this gateway's own file_url (resolved from storage, never fetched). */
  readonly isGatewayReference?: (url: string) => boolean;
}

/** Transcript links of the job API are valid 15 minutes (its Limits table). */
export const JOB_API_TRANSCRIPT_TTL_SECONDS = 15 * 60;
const TAGS = ['Job API'];

export function jobApiStatus(parent: JobRecord, children: readonly JobRecord[]): string {
  if (!FINAL_STATUSES.includes(parent.status)) return parent.status === 'queued' ? 'PENDING' : 'PROCESSING';
  const counts = countChildren(children);
  if (counts.completed === counts.total) return 'COMPLETED';
  return counts.completed === 0 ? 'FAILED' : 'PARTIAL';
}

const seconds = (ms: number): string => (ms / 1000).toFixed(2);

/**
 * The job API's transcript JSON for one file. With diarization asked for, every segment has
 * `speaker` (null on non-speech) and its classified `type` (`male`, `female`, `speech`, `music`;
 * `speech` without diarization), and the transcript `speakers` and `warnings`; a failed
 * diarization shows as `speakers: {count: 0, labels: []}`, null speakers and its warning.
 * Segments carry their `words` (extension) with times in seconds like the segment's:
 * `{word, start_time, end_time, confidence}`.
 */
export function jobApiTranscript(parent: JobRecord, child: JobRecord): Record<string, unknown> {
  const diarize = diarizationRequested(parent);
  return {
    job_id: parent.id,
    status: 'COMPLETED',
    duration: child.durationSeconds ?? 0,
    language: child.language,
    text: child.text ?? '',
    segments: (child.segments ?? []).map((s) => ({
      id: s.id,
      start_time: seconds(s.start_ms),
      end_time: seconds(s.end_ms),
      type: s.type ?? 'speech',
      text: s.text,
      ...(diarize ? { speaker: s.speaker } : {}),
      ...(s.words !== undefined
        ? { words: s.words.map((w) => ({ word: w.word, start_time: seconds(w.start_ms), end_time: seconds(w.end_ms), confidence: w.confidence })) }
        : {}),
    })),
    ...(diarize ? { speakers: jobSpeakers(child) ?? { count: 0, labels: [] }, warnings: jobWarnings(child) } : {}),
  };
}

export function jobApiRoutes(deps: JobApiDeps): RouteDefinition[] {
  const { jobs } = deps;
  const transcriptPath = (childId: string) => `/v1/files/transcribe/${childId}/transcript`;

  return [
    defineRoute({
      method: 'POST',
      path: '/transcribe',
      operationId: 'submitTranscribeJob',
      summary: 'Submit a job of one or more audio URLs (job API)',
      description:
        'Answers 202 with the job id at once. At most BATCH_MAX_FILES files per job (400 beyond), JOB_SUBMISSIONS_PER_HOUR submissions per hour per key (429). ' +
        "Diarization (`diarize: true`, `diarization_config`; docs/diarization.md): after recognition each file is diarized; transcript segments carry `speaker` (`SPEAKER_NN` by first appearance, null on non-speech; a segment spanning a speaker change is split at word times) and the transcript `speakers: {count, labels}`; segment `type` is then classified: `male` / `female` (the speaker's voice, by pitch), `speech` (voice not classified or unsure), `music` (music without speech; regions no segment covers become segments with empty text and null speaker). Without diarization every segment is `speech`. " +
        'A diarization that fails or runs past DIARIZATION_TIMEOUT_MS never fails the file: it completes with its plain transcript and a message in `warnings`. ' +
        IDEMPOTENCY_KEY_TEXT,
      tags: TAGS,
      ...jobSubmissionContract(SubmitTranscribeBody, SubmitTranscribeResponse),
      handler: async ({ body, principal, exchange }) => {
        const key = idempotencyKey(exchange);
        const config = body.diarization_config;
        if (boundsInverted(config)) {
          throw new ApiError('validation_error', {
            issues: [{ loc: ['body', 'diarization_config'], msg: 'min_speakers must not exceed max_speakers', type: 'value_error' }],
          });
        }
        if (body.audio_urls.length > deps.limits.batchMaxFiles) {
          throw new ApiError('invalid_field_value', {
            detail: `Too many files: ${body.audio_urls.length} submitted, at most ${deps.limits.batchMaxFiles} per job.`,
          });
        }
        let language: string;
        try {
          language = deps.asr.resolveModel(body.language).language;
        } catch (error) {
          if (isApiError(error)) {
            throw new ApiError('validation_error', { issues: [{ loc: ['body', 'language'], msg: error.message, type: 'value_error' }] });
          }
          throw error;
        }
        const keyterms = readJobApiKeyterms(body.keyterms);
        body.audio_urls.forEach((url, index) => {
          try {
            checkAudioUrl(url, deps.guard, 'audio_url', deps.isGatewayReference);
          } catch (error) {
            if (isApiError(error)) {
              throw new ApiError('validation_error', { issues: [{ loc: ['body', 'audio_urls', index], msg: error.message, type: 'value_error' }] });
            }
            throw error;
          }
        });
        const outcome = await jobs.submissions.submit(principal!.accountId, key, requestFingerprint('POST /transcribe', body), async () => {
          await countJobSubmission(deps.limiter, principal!.key.id, deps.limits.jobSubmissionsPerHour);
          await jobs.admitParent(principal!, 'job_api');
          const parent = buildJob({
            principal: principal!,
            kind: 'batch',
            api: 'job_api',
            language,
            requestedModel: '',
            options: { diarize: body.diarize ?? false, ...(config ? { diarization_config: config } : {}), total_count: body.audio_urls.length },
          });
          const childOptions = { ...diarizationJobOptions(body.diarize, config), ...keytermJobOptions(keyterms) };
          const children = body.audio_urls.map((url, position) =>
            buildJob({
              principal: principal!,
              kind: 'batch_child',
              api: 'job_api',
              parentId: parent.id,
              position,
              language,
              requestedModel: '',
              audioUrl: url,
              options: childOptions,
            }),
          );
          await jobs.submit([parent, ...children]);
          return parent.id;
        });
        markReplay(exchange, outcome);
        return { status: 202, body: { job_id: outcome.jobId, status: 'pending', message: `Job submitted with ${body.audio_urls.length} file(s).` } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/transcribe/{job_id}',
      operationId: 'getTranscribeJob',
      summary: 'Status and results of a job (job API)',
      description: 'Statuses: PENDING, PROCESSING, COMPLETED, PARTIAL (some files failed), FAILED. `transcript_urls` are signed and valid 15 minutes.',
      tags: TAGS,
      ...JOB_KEY_READ,
      params: Type.Object({ job_id: Type.String() }),
      responses: { 200: { description: 'Job status', schema: TranscribeJobStatusSchema }, 404: { description: 'Job not found' } },
      handler: async ({ params, principal }) => {
        const parent = await jobs.jobs.get(params.job_id);
        if (parent === null || parent.accountId !== principal!.accountId || parent.api !== 'job_api' || parent.kind !== 'batch') {
          throw new ApiError('job_not_found');
        }
        const children = await jobs.jobs.children(parent.id);
        const status = jobApiStatus(parent, children);
        const final = FINAL_STATUSES.includes(parent.status);
        const sign = (child: JobRecord) => deps.signer().sign('GET', transcriptPath(child.id), JOB_API_TRANSCRIPT_TTL_SECONDS).url;
        const results = children.map((child) => {
          const completed = child.status === 'completed';
          const childFinal = FINAL_STATUSES.includes(child.status);
          return {
            original_url: child.audioUrl ?? '',
            status: completed ? 'COMPLETED' : childFinal ? 'FAILED' : child.status === 'queued' ? 'PENDING' : 'PROCESSING',
            transcript_url: completed ? sign(child) : null,
            error: childFinal && !completed ? (child.error?.message ?? `The file was ${child.status}.`) : null,
            processing_time: child.processingTimeSeconds,
            duration: child.durationSeconds,
            num_segments: completed ? (child.segments?.length ?? 0) : null,
          };
        });
        const firstError = results.find((r) => r.error !== null)?.error;
        return {
          status: 200,
          body: {
            job_id: parent.id,
            status,
            transcript_urls: final ? results.filter((r) => r.transcript_url !== null).map((r) => r.transcript_url!) : null,
            results,
            error: status === 'FAILED' ? `All ${children.length} file(s) failed${firstError ? `: ${firstError}` : '.'}` : null,
            submitted_at: parent.createdAt,
            completed_at: parent.completedAt,
            processing_time: parent.processingTimeSeconds,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/files/transcribe/{file_job_id}/transcript',
      operationId: 'downloadTranscribeTranscript',
      summary: 'Transcript JSON of one file of a job-API job, through a signed URL (15 minutes)',
      tags: ['Files'],
      ...JOB_SIGNED,
      params: Type.Object({ file_job_id: Type.String() }),
      query: SignedUrlQuery,
      responses: {
        200: {
          description:
            'Transcript JSON: `job_id`, `status`, `duration`, `language`, `text`, `segments` [{`id`, `start_time`, `end_time` (decimal seconds as strings), `type`, `text`, `speaker` (diarized jobs only), `words` (extension: the words of `text`, each {`word`, `start_time`, `end_time`, `confidence` 0..1 or null}, times from the CTC alignment)}], and with diarization `speakers` and `warnings`',
          schema: Type.Object({}, { additionalProperties: true }),
        },
        403: { description: 'Invalid or expired link' },
      },
      handler: async ({ params, exchange }) => {
        const check = deps.signer().verify('GET', transcriptPath(params.file_job_id), exchange);
        if (check !== 'valid') {
          throw new ApiError(check === 'expired' ? 'expired_signature' : 'invalid_signature', {
            detail: check === 'expired' ? 'The link has expired.' : 'The link is invalid.',
          });
        }
        const child = await jobs.jobs.get(params.file_job_id);
        const parent = child?.parentId ? await jobs.jobs.get(child.parentId) : null;
        if (child === null || parent === null || child.status !== 'completed') throw new ApiError('resource_not_found');
        return { status: 200, body: jobApiTranscript(parent, child) };
      },
    }),
  ];
}
