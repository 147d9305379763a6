// Speaker diarization on a job: what was asked for and what came of it, both kept in the job's
// `options` (the request as the API received it, the outcome written by the runner), so every
// store and every view reads them the same way.
import type { JobRecord } from '../platform/db/job-records.js';
import { DIARIZATION_BACKENDS, type DiarizationBackend, type DiarizationRequest, type SpeakerSummary } from '../engines/diarization/diarization.js';

/** The APIs' `diarization_config` (all fields optional). */
export interface DiarizationConfig {
  readonly backend?: DiarizationBackend;
  readonly min_speakers?: number | null;
  readonly max_speakers?: number | null;
}

/** The job options that ask for diarization (nothing when not asked: today's jobs stay as they are). */
export function diarizationJobOptions(diarize: boolean | undefined, config: DiarizationConfig | undefined): Record<string, unknown> {
  if (diarize !== true) return {};
  return { diarize: true, ...(config ? { diarization_config: config } : {}) };
}

/** Whether the job (or a batch parent for its files) asked for diarization. */
export const diarizationRequested = (job: Pick<JobRecord, 'options'>): boolean => job.options['diarize'] === true;

/** The request the runner hands to Speech.transcribe; null when the job did not ask for diarization. */
export function diarizationRequestOf(job: Pick<JobRecord, 'options'>): DiarizationRequest | null {
  if (!diarizationRequested(job)) return null;
  const config = (job.options['diarization_config'] ?? {}) as DiarizationConfig;
  const bound = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 20 ? value : null);
  const backend = DIARIZATION_BACKENDS.includes(config.backend as DiarizationBackend) ? (config.backend as DiarizationBackend) : 'backend_a';
  return { backend, minSpeakers: bound(config.min_speakers), maxSpeakers: bound(config.max_speakers) };
}

/** The job options the runner writes with the transcript: `speakers` when diarization worked, `warnings` when it did not. */
export function diarizationOutcomeOptions(outcome: { speakers: SpeakerSummary | null; warning: string | null } | null): Record<string, unknown> {
  if (outcome === null) return {};
  return { speakers: outcome.speakers, warnings: outcome.warning === null ? [] : [outcome.warning] };
}

/** `{count, labels}` of a diarized job; null when it was not diarized or diarization failed. */
export function jobSpeakers(job: Pick<JobRecord, 'options'>): SpeakerSummary | null {
  const speakers = job.options['speakers'] as SpeakerSummary | null | undefined;
  return speakers && typeof speakers.count === 'number' && Array.isArray(speakers.labels) ? { count: speakers.count, labels: [...speakers.labels] } : null;
}

/** Messages of a diarized job (a failed diarization); empty otherwise. */
export function jobWarnings(job: Pick<JobRecord, 'options'>): string[] {
  const warnings = job.options['warnings'];
  return Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string') : [];
}
