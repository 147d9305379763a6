import type { JobRecord } from './job-records.js';

/** A unit's status: waiting (or interrupted), or final. */
export type TranslationUnitStatus = 'pending' | 'completed' | 'failed';

/** Per-unit error codes of file translation (`outputs[].error.code`). */
export const TRANSLATION_UNIT_ERRORS = ['DOWNLOAD_ERROR', 'UNSUPPORTED_FORMAT', 'TRANSLATION_ERROR', 'UPLOAD_ERROR', 'INTERNAL_ERROR'] as const;
export type TranslationUnitErrorCode = (typeof TRANSLATION_UNIT_ERRORS)[number];

export interface TranslationUnitError {
  readonly code: TranslationUnitErrorCode;
  readonly message: string;
}

/**
 * What a file translation job adds to its `jobs` row (kind `translation`): the request and the
 * state of its callback. The callback is durable like a webhook delivery: scheduled in the same
 * store once the job is final, attempted under a lease, retried on the webhook schedule.
 */
export interface TranslationJobRecord {
  readonly jobId: string;
  readonly sourceLanguage: string;
  readonly targetLanguages: readonly string[];
  readonly destinationUri: string;
  readonly callbackUrl: string | null;
  /** HMAC key of the callback's X-Webhook-Signature; null sends it unsigned. Never shown. */
  readonly callbackSecret: string | null;
  /** null until the job is final; then pending → succeeded | failed (out of attempts). */
  readonly callbackStatus: 'pending' | 'succeeded' | 'failed' | null;
  /** The exact body sent on every attempt. */
  readonly callbackPayload: string | null;
  readonly callbackAttempts: number;
  readonly callbackNextAt: string | null;
  readonly callbackLeaseUntil: string | null;
  readonly callbackLastError: string | null;
  /** When the job's metadata is removed (TRANSLATION_JOB_EXPIRY_HOURS after submission), once final. */
  readonly expiresAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The callback state of a job until it is final: nothing scheduled, nothing attempted. */
export const CALLBACK_NOT_SCHEDULED = {
  callbackStatus: null,
  callbackPayload: null,
  callbackAttempts: 0,
  callbackNextAt: null,
  callbackLeaseUntil: null,
  callbackLastError: null,
} as const satisfies Partial<TranslationJobRecord>;

/** One (file, target language) pair of a job. */
export interface TranslationUnitRecord {
  readonly jobId: string;
  /** 0-based: files in submission order, each with its targets in submission order. */
  readonly position: number;
  readonly sourceUri: string;
  readonly targetLanguage: string;
  /** The output's file name under the destination (derived from the source name). */
  readonly outputName: string;
  readonly status: TranslationUnitStatus;
  /** Storage key of the output in the gateway's storage (what the signed URL serves). */
  readonly targetObject: string | null;
  readonly error: TranslationUnitError | null;
  /** Characters of source text translated (0 until completed). */
  readonly characters: number;
  readonly updatedAt: string;
}

export type TranslationUnitPatch = Partial<Pick<TranslationUnitRecord, 'status' | 'targetObject' | 'error' | 'characters'>>;

export type CallbackPatch = Partial<
  Pick<TranslationJobRecord, 'callbackStatus' | 'callbackAttempts' | 'callbackNextAt' | 'callbackLeaseUntil' | 'callbackLastError'>
>;

/** File translation jobs' own rows; the job itself (status, lease, owner) lives in `jobs`. */
export interface TranslationStore {
  /** Inserts the job row, its translation row and its units in one transaction. */
  create(job: JobRecord, translation: TranslationJobRecord, units: readonly TranslationUnitRecord[]): Promise<void>;
  get(jobId: string): Promise<TranslationJobRecord | null>;
  /** In position order. */
  units(jobId: string): Promise<TranslationUnitRecord[]>;
  /**
   * With `leaseOwner`, only while that process holds the job's lease (a runner that lost its
   * job to another process writes nothing); returns whether the unit changed.
   */
  updateUnit(jobId: string, position: number, patch: TranslationUnitPatch, leaseOwner?: string): Promise<boolean>;
  /** Sets the callback pending with this body, due now; false when it has no callback_url or was scheduled before. */
  scheduleCallback(jobId: string, payload: string, at: string): Promise<boolean>;
  /** Leases up to `limit` pending callbacks due at `now` until `leaseUntil`; concurrent claimers take disjoint sets. */
  claimDueCallbacks(now: string, leaseUntil: string, limit: number): Promise<TranslationJobRecord[]>;
  /** Records an attempt's outcome, only while the lease taken until `leaseUntil` is still the one on the row. */
  updateCallback(jobId: string, patch: CallbackPatch, leaseUntil: string): Promise<boolean>;
  /** The earliest due time of a pending callback (its lease's end when leased), or null. */
  nextCallbackAt(): Promise<string | null>;
  /** Ids of final translation jobs whose expiry is at or before `now`, oldest first. */
  findExpired(now: string, limit: number): Promise<string[]>;
}
