import { FINAL_STATUSES, type JobRecord } from '../platform/db/job-records.js';
import type { TranslationJobRecord, TranslationUnitError, TranslationUnitRecord } from '../platform/db/translation-records.js';

export type TranslationJobStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'PARTIAL' | 'FAILED';

/** PENDING, PROCESSING, then COMPLETED (every unit done), PARTIAL (some failed) or FAILED (none done). */
export function translationStatus(job: JobRecord, units: readonly TranslationUnitRecord[]): TranslationJobStatus {
  if (!FINAL_STATUSES.includes(job.status)) return job.status === 'queued' ? 'PENDING' : 'PROCESSING';
  const completed = units.filter((u) => u.status === 'completed').length;
  if (completed === 0) return 'FAILED';
  return completed === units.length ? 'COMPLETED' : 'PARTIAL';
}

export const isFinalTranslation = (job: JobRecord): boolean => FINAL_STATUSES.includes(job.status);

/** A unit's error as shown; a unit left pending by a job that ended (e.g. interrupted twice by restarts) shows the job's reason. */
function unitError(job: JobRecord, unit: TranslationUnitRecord): TranslationUnitError | null {
  if (unit.status === 'failed') return unit.error ?? { code: 'INTERNAL_ERROR', message: 'The unit failed.' };
  if (unit.status === 'pending' && isFinalTranslation(job))
    return { code: 'INTERNAL_ERROR', message: job.error?.message ?? 'The job ended before this unit ran.' };
  return null;
}

export function translationStatusView(job: JobRecord, translation: TranslationJobRecord, units: readonly TranslationUnitRecord[]) {
  const final = isFinalTranslation(job);
  return {
    job_id: job.id,
    status: translationStatus(job, units),
    created_at: job.createdAt,
    completed_at: job.completedAt,
    expires_at: translation.expiresAt,
    progress: {
      total_units: units.length,
      completed_units: units.filter((u) => u.status === 'completed').length,
      failed_units: units.filter((u) => u.status === 'failed' || (final && u.status === 'pending')).length,
    },
  };
}

/** The results document (final jobs only); `sign` makes a unit's output URL. */
export function translationResultsView(job: JobRecord, units: readonly TranslationUnitRecord[], sign: (unit: TranslationUnitRecord) => string) {
  const outputs = units.map((unit) => {
    const ok = unit.status === 'completed' && unit.targetObject !== null;
    return {
      source_uri: unit.sourceUri,
      target_uri: ok ? sign(unit) : null,
      target_language: unit.targetLanguage,
      status: ok ? ('COMPLETED' as const) : ('FAILED' as const),
      error: ok ? null : unitError(job, unit),
    };
  });
  const success = outputs.filter((o) => o.status === 'COMPLETED').length;
  return {
    job_id: job.id,
    summary: {
      status: translationStatus(job, units),
      total_characters: units.reduce((sum, u) => sum + (u.status === 'completed' ? u.characters : 0), 0),
      success_count: success,
      failure_count: outputs.length - success,
    },
    outputs,
  };
}

/** The body POSTed to `callback_url` once the job leaves PROCESSING: its status and its results. */
export function translationCallbackPayload(
  job: JobRecord,
  translation: TranslationJobRecord,
  units: readonly TranslationUnitRecord[],
  sign: (unit: TranslationUnitRecord) => string,
): Record<string, unknown> {
  const status = translationStatusView(job, translation, units);
  const results = translationResultsView(job, units, sign);
  return { event: 'translation.finished', timestamp: new Date().toISOString(), ...status, summary: results.summary, outputs: results.outputs };
}
