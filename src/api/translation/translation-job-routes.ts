import { Type } from '@sinclair/typebox';
import type { UrlSigner } from '../../platform/auth/url-signer.js';
import type { Limits } from '../../platform/config/config.js';
import type { JobRecord } from '../../platform/db/job-records.js';
import type { TranslationUnitRecord } from '../../platform/db/translation-records.js';
import { ApiError } from '../../platform/errors/api-error.js';
import type { FileStorage } from '../../platform/files/file-storage.js';
import type { ValidationIssue } from '../../platform/errors/api-error.js';
import { serveStoredObject } from '../../platform/http/serve-object.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import type { RateLimiter } from '../../platform/limits/rate-limiter.js';
import type { OutboundGuard } from '../../platform/net/outbound-guard.js';
import { tryUrl } from '../../platform/net/try-url.js';
import type { JobStore } from '../../platform/db/job-records.js';
import { parseDestinationUri, parseSourceUri } from '../../jobs/translation-locations.js';
import { admitJobApiParent } from '../../jobs/job-service.js';
import type { TranslationJobs } from '../../jobs/translation-jobs.js';
import { isFinalTranslation, translationResultsView, translationStatusView } from '../../jobs/translation-views.js';
import { requireValidSignature, SIGNED_URL_DESCRIPTION, SignedUrlQuery, signedDownloadResponses } from '../signed-urls.js';
import { countJobSubmission, jobSubmissionContract } from '../job-api/job-submissions.js';
import { SubmitTranslateBody, SubmitTranslateResponse, TranslationJobStatusSchema, TranslationResultsSchema } from './translation-job-schemas.js';
import { JOB_KEY_READ, JOB_KEY_WRITE, JOB_SIGNED } from '../route-access.js';
import { IDEMPOTENCY_KEY_TEXT, idempotencyKey, markReplay, requestFingerprint } from '../idempotency-key.js';
import type { IdempotentSubmissions } from '../../jobs/idempotent-submissions.js';

export interface TranslationJobRouteDeps {
  readonly translations: TranslationJobs;
  readonly jobs: JobStore;
  readonly storage: FileStorage;
  readonly guard: OutboundGuard;
  readonly limiter: RateLimiter;
  readonly signer: () => UrlSigner;
  readonly limits: Limits;
  /** The gateway's bucket with FILES_BACKEND=s3 (s3:// destinations), else null. */
  readonly s3Bucket: string | null;
  /** Whether a translation engine is configured (POST /translate answers 500 service_unavailable without one). */
  readonly engineAvailable: () => boolean;
  /** The job queue's overload admission (503 server_overloaded past JOB_MAX_QUEUE_WAIT_SECONDS), shared with transcription jobs. */
  readonly admitBacklog: () => void;
  /** Idempotency-Key handling, shared with the transcription submissions. */
  readonly submissions: Pick<IdempotentSubmissions, 'submit'>;
}

const TAGS = ['File translation'];
const JobIdParams = Type.Object({ job_id: Type.String() });

/** The signed download path of one output; the storage key is bound into the signature. */
export const outputPath = (jobId: string, name: string): string => `/v1/files/translate/${jobId}/${name}`;

/** A unit's output as a signed URL valid `ttlSeconds`. */
export function signOutputUrl(signer: UrlSigner, job: Pick<JobRecord, 'id'>, unit: TranslationUnitRecord, ttlSeconds: number): string {
  return signer.sign('GET', outputPath(job.id, unit.outputName), ttlSeconds, { object: unit.targetObject ?? '' }).url;
}

/** A URL the gateway will call or fetch: https only, and a host the outbound guard allows. */
function urlIssue(raw: string, guard: OutboundGuard): string | null {
  const url = tryUrl(raw);
  if (url === null) return 'is not a valid URL';
  if (url.protocol !== 'https:') return 'must be an https:// URL';
  try {
    guard.assertHostAllowed(url);
  } catch (error) {
    return error instanceof ApiError ? error.message : String(error);
  }
  return null;
}

export function translationJobRoutes(deps: TranslationJobRouteDeps): RouteDefinition[] {
  const ttl = () => deps.limits.translationOutputUrlTtlSeconds;
  return [
    defineRoute({
      method: 'POST',
      path: '/translate',
      operationId: 'submitTranslationJob',
      summary: 'Submit a file translation job (plain text or transcript JSON; job API)',
      description:
        'Answers 202 with the job id at once (status PENDING). Units are (file, target language) pairs. Every validation rule answers 422 `{detail: [{loc, msg, type}]}`; ' +
        "more than TRANSLATION_MAX_UNITS units answers 400. Counts against the key's job submissions per hour (shared with POST /transcribe, 429) and its concurrent jobs (429). " +
        'Every URL (sources, https:// destination, callback) passes the outbound guard. Answers 500 service_unavailable when no translation engine is configured. ' +
        IDEMPOTENCY_KEY_TEXT,
      tags: TAGS,
      ...jobSubmissionContract(SubmitTranslateBody, SubmitTranslateResponse),
      handler: async ({ body, principal, exchange }) => {
        const key = idempotencyKey(exchange);
        const issues: ValidationIssue[] = [];
        const issue = (loc: (string | number)[], msg: string, type = 'value_error'): void => void issues.push({ loc: ['body', ...loc], msg, type });
        const seen = new Set<string>();
        body.target_languages.forEach((target, index) => {
          if (target === body.source_language) issue(['target_languages', index], `target language '${target}' must differ from source_language`);
          else if (seen.has(target)) issue(['target_languages', index], `target language '${target}' is listed twice`);
          seen.add(target);
        });
        body.input_config.uris.forEach((uri, index) => {
          const location = parseSourceUri(uri);
          if (typeof location === 'string') return issue(['input_config', 'uris', index], `the URI ${location}`);
          if (location.kind === 'https') {
            const problem = urlIssue(location.url, deps.guard);
            if (problem !== null) issue(['input_config', 'uris', index], `the URI ${problem}`);
          }
        });
        const destination = parseDestinationUri(body.output_config.destination_uri, deps.s3Bucket);
        if (typeof destination === 'string') issue(['output_config', 'destination_uri'], `the destination ${destination}`);
        else if (destination.kind === 'https') {
          const problem = urlIssue(destination.base, deps.guard);
          if (problem !== null) issue(['output_config', 'destination_uri'], `the destination ${problem}`);
        }
        if (body.callback_url !== undefined) {
          const problem = urlIssue(body.callback_url, deps.guard);
          if (problem !== null) issue(['callback_url'], `callback_url ${problem}`);
        }
        if (issues.length > 0) throw new ApiError('validation_error', { issues });
        const units = body.input_config.uris.length * body.target_languages.length;
        if (units > deps.limits.translationMaxUnits) {
          throw new ApiError('invalid_field_value', {
            detail: `Too many translation units: ${units} (files × target languages), at most ${deps.limits.translationMaxUnits} per job.`,
          });
        }
        if (!deps.engineAvailable()) {
          throw new ApiError('service_unavailable', { message: 'File translation is not available on this server: no translation engine is configured.' });
        }
        const outcome = await deps.submissions.submit(principal!.accountId, key, requestFingerprint('POST /translate', body), async () => {
          deps.admitBacklog();
          await countJobSubmission(deps.limiter, principal!.key.id, deps.limits.jobSubmissionsPerHour);
          await admitJobApiParent(deps.jobs, principal!.key, deps.limits.concurrentJobs);
          const job = await deps.translations.submit({
            principal: principal!,
            sourceLanguage: body.source_language,
            targetLanguages: body.target_languages,
            uris: body.input_config.uris,
            destinationUri: body.output_config.destination_uri,
            callbackUrl: body.callback_url ?? null,
            callbackSecret: body.callback_secret ?? null,
          });
          return job.id;
        });
        markReplay(exchange, outcome);
        return {
          status: 202,
          body: {
            job_id: outcome.jobId,
            status: 'PENDING',
            message: `Translation job submitted: ${body.input_config.uris.length} file(s) × ${body.target_languages.length} target language(s) = ${units} unit(s).`,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/translate/{job_id}',
      operationId: 'getTranslationJob',
      summary: 'Status and progress of a file translation job (job API)',
      description:
        'Statuses: PENDING, PROCESSING, COMPLETED, PARTIAL (some units failed), FAILED (all failed). 404 for unknown ids, ids of other accounts and transcription jobs.',
      tags: TAGS,
      ...JOB_KEY_READ,
      params: JobIdParams,
      responses: { 200: { description: 'Job status', schema: TranslationJobStatusSchema }, 404: { description: 'Job not found' } },
      handler: async ({ params, principal }) => {
        const { job, translation, units } = await deps.translations.getOwned(params.job_id, principal!.accountId);
        return { status: 200, body: translationStatusView(job, translation, units) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/translate/{job_id}/results',
      operationId: 'getTranslationResults',
      summary: 'Per-unit results of a finished file translation job, with signed output URLs (job API)',
      description:
        '409 while the job is PENDING or PROCESSING. `target_uri` is a signed URL fetched without a credential, valid TRANSLATION_OUTPUT_URL_TTL_SECONDS (24 h by default). ' +
        'A 200 can carry failed units: inspect `outputs[].status` and `outputs[].error`.',
      tags: TAGS,
      ...JOB_KEY_READ,
      params: JobIdParams,
      responses: {
        200: { description: 'Results', schema: TranslationResultsSchema },
        404: { description: 'Job not found' },
        409: { description: 'The job is still in progress' },
      },
      handler: async ({ params, principal }) => {
        const { job, units } = await deps.translations.getOwned(params.job_id, principal!.accountId);
        if (!isFinalTranslation(job))
          throw new ApiError('job_in_progress', { message: 'The job is still in progress; results are available once it has finished.' });
        const signer = deps.signer();
        return { status: 200, body: translationResultsView(job, units, (unit) => signOutputUrl(signer, job, unit, ttl())) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/translate/{job_id}',
      operationId: 'deleteTranslationJob',
      summary: 'Remove a finished file translation job (job API)',
      description:
        'Removes the job metadata; output files in storage stay (signed URLs already issued keep working until they expire). 409 while PENDING or PROCESSING; 404 afterwards.',
      tags: TAGS,
      ...JOB_KEY_WRITE,
      params: JobIdParams,
      responses: { 204: { description: 'Removed' }, 404: { description: 'Job not found' }, 409: { description: 'The job is still in progress' } },
      handler: async ({ params, principal }) => {
        await deps.translations.delete(params.job_id, principal!.accountId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/files/translate/{job_id}/{file_name}',
      operationId: 'downloadTranslationOutput',
      summary: 'One output of a file translation job, through a signed URL',
      description: SIGNED_URL_DESCRIPTION,
      tags: ['Files'],
      ...JOB_SIGNED,
      params: Type.Object({ job_id: Type.String(), file_name: Type.String() }),
      query: Type.Object({ ...SignedUrlQuery.properties, object: Type.Optional(Type.String()) }),
      responses: signedDownloadResponses('text/plain or application/json', 'The output no longer exists'),
      handler: async ({ params, query, exchange }) => {
        requireValidSignature(deps.signer().verify('GET', outputPath(params.job_id, params.file_name), exchange, ['object']));
        const object = query.object ?? '';
        const info = object === '' ? null : await deps.storage.stat(object);
        if (info === null) throw new ApiError('resource_not_found', { message: 'The output no longer exists.' });
        await serveStoredObject(exchange, deps.storage, info, { filename: params.file_name });
      },
    }),
  ];
}
