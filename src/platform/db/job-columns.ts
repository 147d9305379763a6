import type { JobRecord } from './job-records.js';

/**
 * The jobs table's columns, shared by every backend: `json` columns hold documents, `bool`
 * a flag, `time` an instant (ISO 8601 text in SQLite, timestamptz in PostgreSQL).
 */
export type ColumnKind = 'plain' | 'json' | 'bool' | 'time';

export const JOB_COLUMNS: readonly (readonly [keyof JobRecord, string, ColumnKind])[] = [
  ['id', 'id', 'plain'],
  ['accountId', 'account_id', 'plain'],
  ['keyId', 'key_id', 'plain'],
  ['kind', 'kind', 'plain'],
  ['api', 'api', 'plain'],
  ['parentId', 'parent_id', 'plain'],
  ['position', 'position', 'plain'],
  ['status', 'status', 'plain'],
  ['requestedLanguage', 'requested_language', 'plain'],
  ['language', 'language', 'plain'],
  ['requestedModel', 'requested_model', 'plain'],
  ['model', 'model', 'plain'],
  ['mode', 'mode', 'plain'],
  ['audioUrl', 'audio_url', 'plain'],
  ['audioObject', 'audio_object', 'plain'],
  ['audioFilename', 'audio_filename', 'plain'],
  ['audioBytes', 'audio_bytes', 'plain'],
  ['transcriptObject', 'transcript_object', 'plain'],
  ['text', 'text', 'plain'],
  ['segments', 'segments', 'json'],
  ['progress', 'progress', 'json'],
  ['durationSeconds', 'duration_seconds', 'plain'],
  ['processingTimeSeconds', 'processing_time_seconds', 'plain'],
  ['error', 'error', 'json'],
  ['options', 'options', 'json'],
  ['attempts', 'attempts', 'plain'],
  ['eventsPending', 'events_pending', 'bool'],
  ['leaseOwner', 'lease_owner', 'plain'],
  ['leaseUntil', 'lease_until', 'time'],
  ['createdAt', 'created_at', 'time'],
  ['startedAt', 'started_at', 'time'],
  ['completedAt', 'completed_at', 'time'],
  ['updatedAt', 'updated_at', 'time'],
];

export const JOB_COLUMN_OF: ReadonlyMap<keyof JobRecord, { readonly column: string; readonly kind: ColumnKind }> = new Map(
  JOB_COLUMNS.map(([field, column, kind]) => [field, { column, kind }]),
);
