import type { Logger } from 'pino';
import type { JobRecord, JobStore } from '../platform/db/job-records.js';
import type { TranslationStore, TranslationUnitRecord } from '../platform/db/translation-records.js';
import type { UsageRecorder } from '../platform/limits/usage-recorder.js';
import type { TranslationEngine, TranslationLanguage } from '../engines/translation/translation.js';
import type { JobEvents } from './job-events.js';
import { LeasedRunner, type RunOutcome } from './leased-runner.js';
import type { StopReason } from './leased-runs.js';
import { decodeText, parseSource, renderOutput, sourceCharacters, textsToTranslate, UnitFailure, type SourceDocument } from './translation-documents.js';
import { translateUnitTexts } from './translation-attempts.js';
import { fetchSource, writeOutput, type TranslationIoDeps } from './translation-io.js';

export interface TranslationRunnerDeps {
  readonly jobs: JobStore;
  readonly translations: TranslationStore;
  readonly io: TranslationIoDeps;
  /** The engine (null: none configured; every unit then fails with TRANSLATION_ERROR). */
  readonly engine: () => TranslationEngine | null;
  readonly events: JobEvents;
  readonly usage: UsageRecorder;
  readonly logger: Logger;
  readonly owner: string;
  readonly leaseMs: number;
  /** Files of a job worked on at once. */
  readonly concurrency: number;
  /** Wait before the first retry of a failed translation, doubled for each further one. */
  readonly retryDelayMs: number;
  /** How long a unit waits in all for room in a full translation queue (translation-attempts.ts). */
  readonly queueWaitMs: number;
}

/**
 * Runs one file translation job per call, like JobRunner runs a transcription: a claim under
 * the key's running-jobs limit with a lease (renewed while it runs), then every pending unit:
 * download each file once, check it is UTF-8 text or transcript JSON, translate it into each
 * target (beam mode, the job's account as the engine's tenant; 3 retries, and waits for room in a
 * full queue that spend none: translation-attempts.ts), write the output. Each unit's outcome is stored as it ends, so
 * a job interrupted by a restart resumes with the units still pending. Shutdown puts the job
 * back in the queue; the job ends COMPLETED (stored `completed`, every unit done), PARTIAL
 * (`completed`, some failed) or FAILED (`failed`, none done).
 */
export class TranslationRunner extends LeasedRunner {
  constructor(private readonly deps: TranslationRunnerDeps) {
    super({ jobs: deps.jobs, logger: deps.logger, owner: deps.owner, leaseMs: deps.leaseMs, label: 'translation job' });
  }

  async run(jobId: string, maxRunningForKey: number = Number.MAX_SAFE_INTEGER): Promise<RunOutcome> {
    const { jobs, translations, logger, owner } = this.deps;
    const claimed = await this.claim(jobId, maxRunningForKey, (queued, startedAt) => ({
      startedAt: queued.startedAt ?? startedAt.toISOString(),
      progress: { ...(queued.progress ?? zero), stage: 'translating' },
    }));
    if (typeof claimed === 'string') return claimed;
    const { job, startedAt, controller } = claimed;
    const held = { leaseOwner: owner };
    const released = { leaseOwner: null, leaseUntil: null };
    const log = logger.child({ jobId });
    log.info({ attempt: job.attempts }, 'translation job started');
    try {
      const translation = await translations.get(jobId);
      const units = await translations.units(jobId);
      if (translation === null || units.length === 0) throw new Error('the job has no translation request stored');
      let done = units.filter((u) => u.status !== 'pending').length;
      const byFile = new Map<string, TranslationUnitRecord[]>();
      for (const unit of units) if (unit.status === 'pending') byFile.set(unit.sourceUri, [...(byFile.get(unit.sourceUri) ?? []), unit]);
      const groups = [...byFile.values()];
      const reportProgress = (): void => {
        const progress = {
          stage: 'translating',
          percent: Math.min(99, Math.floor((100 * done) / units.length)),
          total_segments: units.length,
          done_segments: done,
        };
        void jobs
          .update(jobId, { progress }, ['processing'], held)
          .then((updated) => updated && this.deps.events.emit('progress', updated))
          .catch(() => undefined);
      };
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < groups.length) {
          controller.signal.throwIfAborted();
          const group = groups[next++]!;
          await this.runFile(job, translation.sourceLanguage, translation.destinationUri, group, controller.signal, () => {
            done++;
            reportProgress();
          });
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.deps.concurrency, Math.max(1, groups.length)) }, worker));
      controller.signal.throwIfAborted();
      const final = await translations.units(jobId);
      const succeeded = final.filter((u) => u.status === 'completed');
      const characters = succeeded.reduce((sum, u) => sum + u.characters, 0);
      const completedAt = new Date();
      const allFailed = succeeded.length === 0;
      const finished = await jobs.update(
        jobId,
        {
          status: allFailed ? 'failed' : 'completed',
          eventsPending: true,
          completedAt: completedAt.toISOString(),
          processingTimeSeconds: Math.round((completedAt.getTime() - Date.parse(job.startedAt ?? startedAt.toISOString())) / 10) / 100,
          progress: { stage: allFailed ? 'failed' : 'completed', percent: 100, total_segments: final.length, done_segments: final.length },
          options: { ...job.options, total_characters: characters },
          error: allFailed
            ? {
                type: 'server_error',
                code: 'translation_failed',
                message: `All ${final.length} unit(s) failed: ${final[0]?.error?.message ?? 'unknown error'}`,
              }
            : null,
          ...released,
        },
        ['processing'],
        held,
      );
      if (finished !== null) {
        this.deps.usage.record(finished.keyId, { jobs: 1 });
        this.deps.events.emit('finished', finished);
        log.info({ units: final.length, failed: final.length - succeeded.length, characters }, 'translation job finished');
      }
    } catch (error) {
      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      if (reason === 'shutdown') {
        const returned = await jobs.update(jobId, { status: 'queued', attempts: job.attempts - 1, ...released }, ['processing'], held);
        log.info('translation job returned to the queue for shutdown');
        if (returned !== null) return 'returned';
      } else if (reason === null) {
        log.error({ err: error }, 'translation job failed');
        const failed = await jobs.update(
          jobId,
          {
            status: 'failed',
            eventsPending: true,
            completedAt: new Date().toISOString(),
            error: { type: 'server_error', code: 'internal_error', message: 'The translation job failed unexpectedly.' },
            progress: { ...(job.progress ?? zero), stage: 'failed' },
            ...released,
          },
          ['processing'],
          held,
        );
        if (failed !== null) {
          for (const unit of await translations.units(jobId).catch(() => [])) {
            if (unit.status === 'pending') {
              await translations.updateUnit(jobId, unit.position, {
                status: 'failed',
                error: { code: 'INTERNAL_ERROR', message: 'The job failed unexpectedly.' },
              });
            }
          }
          this.deps.events.emit('finished', failed);
        }
      }
    } finally {
      this.runs.remove(jobId);
    }
    return 'finished';
  }

  /** One source file and its pending units (one per target). */
  private async runFile(
    job: JobRecord,
    source: string,
    destinationUri: string,
    units: readonly TranslationUnitRecord[],
    signal: AbortSignal,
    onUnitDone: () => void,
  ): Promise<void> {
    const { translations } = this.deps;
    const fail = async (unit: TranslationUnitRecord, error: unknown): Promise<void> => {
      signal.throwIfAborted();
      const failure = error instanceof UnitFailure ? error : new UnitFailure('INTERNAL_ERROR', 'An unexpected error stopped this unit; see the server log.');
      if (!(error instanceof UnitFailure))
        this.deps.logger.error({ err: error, jobId: job.id, position: unit.position }, 'translation unit failed unexpectedly');
      await translations.updateUnit(job.id, unit.position, { status: 'failed', error: { code: failure.code, message: failure.message } }, this.deps.owner);
      onUnitDone();
    };
    let doc: SourceDocument;
    try {
      const bytes = await fetchSource(this.deps.io, units[0]!.sourceUri, job.accountId, signal);
      doc = parseSource(units[0]!.outputName, decodeText(bytes));
    } catch (error) {
      for (const unit of units) await fail(unit, error);
      return;
    }
    for (const unit of units) {
      try {
        const texts = textsToTranslate(doc);
        const translated = texts.length === 0 ? [] : await this.translate(texts, source, unit.targetLanguage, job.accountId, signal);
        const output = renderOutput(doc, translated, unit.targetLanguage);
        const key = await writeOutput(this.deps.io, destinationUri, job, unit.outputName, output.body, output.contentType, signal);
        signal.throwIfAborted();
        await translations.updateUnit(
          job.id,
          unit.position,
          { status: 'completed', targetObject: key, characters: sourceCharacters(doc), error: null },
          this.deps.owner,
        );
        onUnitDone();
      } catch (error) {
        await fail(unit, error);
      }
    }
  }

  private async translate(texts: string[], source: string, target: string, tenant: string, signal: AbortSignal): Promise<string[]> {
    const engine = this.deps.engine();
    if (engine === null) throw new UnitFailure('TRANSLATION_ERROR', 'No translation engine is configured on this server.');
    return translateUnitTexts(engine, texts, {
      source: source as TranslationLanguage,
      target: target as TranslationLanguage,
      tenant,
      signal,
      retryDelayMs: this.deps.retryDelayMs,
      queueWaitMs: this.deps.queueWaitMs,
    });
  }
}

const zero = { stage: 'queued', percent: 0, total_segments: 0, done_segments: 0 };
