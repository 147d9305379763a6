import type { Logger } from 'pino';
import type { Principal } from '../platform/auth/principal.js';
import { ApiError } from '../platform/errors/api-error.js';
import type { JobRecord, JobStore } from '../platform/db/job-records.js';
import { CALLBACK_NOT_SCHEDULED, type TranslationJobRecord, type TranslationStore, type TranslationUnitRecord } from '../platform/db/translation-records.js';
import type { JobQueue } from './job-queue.js';
import { buildJob } from './new-job.js';
import { PeriodicTask } from './periodic-task.js';
import { outputNames } from './translation-documents.js';
import { isFinalTranslation } from './translation-views.js';

export interface TranslationSubmission {
  readonly principal: Principal;
  readonly sourceLanguage: string;
  readonly targetLanguages: readonly string[];
  readonly uris: readonly string[];
  readonly destinationUri: string;
  readonly callbackUrl: string | null;
  readonly callbackSecret: string | null;
}

/**
 * File translation jobs: submission (a `jobs` row of kind `translation`, its request and its
 * units in one transaction, then the job queue transcription jobs use), reads for the routes,
 * delete (final jobs only) and expiry: final jobs are removed TRANSLATION_JOB_EXPIRY_HOURS
 * after submission, by a periodic sweep every process runs (deleting twice is harmless).
 */
export class TranslationJobs {
  private readonly sweeps = new PeriodicTask(() => this.removeExpired(new Date()));

  constructor(
    private readonly deps: {
      readonly jobs: JobStore;
      readonly translations: TranslationStore;
      readonly queue: JobQueue;
      readonly expiryHours: number;
      readonly logger: Logger;
    },
  ) {}

  async submit(input: TranslationSubmission): Promise<JobRecord> {
    const job = buildJob({
      principal: input.principal,
      kind: 'translation',
      api: 'job_api',
      language: input.sourceLanguage,
      requestedModel: '',
      options: { target_languages: input.targetLanguages, total_count: input.uris.length * input.targetLanguages.length },
    });
    const now = job.createdAt;
    const translation: TranslationJobRecord = {
      jobId: job.id,
      sourceLanguage: input.sourceLanguage,
      targetLanguages: input.targetLanguages,
      destinationUri: input.destinationUri,
      callbackUrl: input.callbackUrl,
      callbackSecret: input.callbackSecret,
      ...CALLBACK_NOT_SCHEDULED,
      expiresAt: new Date(Date.parse(now) + Math.round(this.deps.expiryHours * 3_600_000)).toISOString(),
      createdAt: now,
      updatedAt: now,
    };
    const names = outputNames(input.uris, input.targetLanguages);
    const units: TranslationUnitRecord[] = input.uris.flatMap((uri, file) =>
      input.targetLanguages.map((target, t) => ({
        jobId: job.id,
        position: file * input.targetLanguages.length + t,
        sourceUri: uri,
        targetLanguage: target,
        outputName: names[file]![t]!,
        status: 'pending' as const,
        targetObject: null,
        error: null,
        characters: 0,
        updatedAt: now,
      })),
    );
    await this.deps.translations.create(job, translation, units);
    await this.deps.queue.enqueue(job.id);
    return job;
  }

  /** The job, its request and units, when it is a translation job of this account; else 404. */
  async getOwned(id: string, accountId: string): Promise<{ job: JobRecord; translation: TranslationJobRecord; units: TranslationUnitRecord[] }> {
    const job = await this.deps.jobs.get(id);
    const translation = job?.kind === 'translation' && job.accountId === accountId ? await this.deps.translations.get(id) : null;
    if (job === null || translation === null) throw new ApiError('job_not_found');
    return { job, translation, units: await this.deps.translations.units(id) };
  }

  /** Removes a final job's metadata (its units and callback with it); output files stay. 409 while it is pending or running. */
  async delete(id: string, accountId: string): Promise<void> {
    const { job } = await this.getOwned(id, accountId);
    if (!isFinalTranslation(job)) throw new ApiError('job_in_progress', { message: 'The job is still in progress; delete it once it has finished.' });
    await this.deps.jobs.delete([id]);
  }

  /** Removes final jobs past their expiry; returns how many. A sweep still under way is not started twice. */
  sweepExpired(now = new Date()): Promise<number> {
    return this.sweeps.run(() => this.removeExpired(now));
  }

  /** Sweeps now and every `intervalMs` (a minute at most, a quarter of the expiry at least as often). */
  start(intervalMs = Math.max(250, Math.min(60_000, (this.deps.expiryHours * 3_600_000) / 4))): void {
    this.sweeps.start(intervalMs, true);
  }

  close(): Promise<void> {
    return this.sweeps.close();
  }

  private async removeExpired(now: Date): Promise<number> {
    let removed = 0;
    try {
      for (;;) {
        const ids = await this.deps.translations.findExpired(now.toISOString(), 500);
        if (ids.length === 0) break;
        await this.deps.jobs.delete(ids);
        removed += ids.length;
        if (ids.length < 500) break;
      }
      if (removed > 0) this.deps.logger.info({ jobs: removed }, 'removed expired translation jobs');
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'translation expiry sweep failed; the next one retries');
    }
    return removed;
  }
}
