// A new job record: its id and every field a job starts with (queued, not started), from what a
// route or the WebSocket endpoint knows at submission. Pure: nothing is stored here.
import { randomBytes } from 'node:crypto';
import type { Principal } from '../platform/auth/principal.js';
import { JOB_NOT_STARTED, type JobApi, type JobKind, type JobRecord } from '../platform/db/job-records.js';

export function newJobId(): string {
  return `tr_${randomBytes(12).toString('hex')}`;
}

export interface NewJobInput {
  readonly id?: string;
  readonly principal: Principal;
  readonly kind: JobKind;
  readonly api?: JobApi;
  readonly parentId?: string | null;
  /** Order within a batch. */
  readonly position?: number;
  readonly language: string;
  readonly requestedModel: string;
  readonly mode?: 'async' | 'sync';
  readonly audioUrl?: string | null;
  readonly audio?: { key: string; size: number; filename: string | null } | null;
  readonly options?: Record<string, unknown>;
  readonly status?: JobRecord['status'];
}

export function buildJob(input: NewJobInput): JobRecord {
  const now = new Date().toISOString();
  return {
    id: input.id ?? newJobId(),
    accountId: input.principal.accountId,
    keyId: input.principal.key.id,
    kind: input.kind,
    api: input.api ?? 'unified',
    parentId: input.parentId ?? null,
    position: input.position ?? 0,
    status: input.status ?? 'queued',
    requestedLanguage: input.language,
    language: input.language,
    requestedModel: input.requestedModel,
    mode: input.mode ?? 'async',
    audioUrl: input.audioUrl ?? null,
    audioObject: input.audio?.key ?? null,
    audioFilename: input.audio?.filename ?? null,
    audioBytes: input.audio?.size ?? null,
    ...JOB_NOT_STARTED,
    options: input.options ?? {},
    eventsPending: input.status === 'failed',
    createdAt: now,
    updatedAt: now,
  };
}
