export const JOB_STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * - `single`: one file submitted to POST /v1/transcriptions
 * - `batch`: a batch parent (one per batch request; never transcribes itself)
 * - `batch_child`: one file of a batch
 * - `websocket`: a streaming session's record
 * - `translation`: a file translation job of the job API (its units in `translation_units`)
 */
export type JobKind = 'single' | 'batch' | 'batch_child' | 'websocket' | 'translation';

/** Which API created the job; the job API renders the same records its own way. */
export type JobApi = 'unified' | 'job_api';

/** A segment's kind (the job API's `type`): `male` / `female` speech, `speech` when the voice is not classified or unsure, `music` without speech. */
export type SegmentType = 'speech' | 'male' | 'female' | 'music';

/**
 * A recognised word with its time, absolute ms in the audio like its segment, from the CTC
 * alignment of the decoded path (src/engines/asr/recognition/output-words.ts). A segment's words,
 * joined with single spaces, are its `text`.
 */
export interface SegmentWord {
  readonly word: string;
  readonly start_ms: number;
  readonly end_ms: number;
  /** Mean posterior of the word's tokens (0..1); null when unknown. */
  readonly confidence: number | null;
}

export interface Segment {
  readonly id: number;
  readonly start_ms: number;
  readonly end_ms: number;
  readonly duration_ms: number;
  readonly text: string;
  readonly speaker: string | null;
  readonly confidence: number | null;
  /** Multi-channel audio (channels=2): the 0-based channel the text was spoken on; `speaker` is its name. */
  readonly channel?: number;
  /** Set when the file was diarized (docs/diarization.md, segment types); absent: `speech`. */
  readonly type?: SegmentType;
  /** The words of `text` with their times (extension); absent on segments stored before words were kept. */
  readonly words?: readonly SegmentWord[];
}

export interface Progress {
  readonly stage: string;
  readonly percent: number;
  readonly total_segments: number;
  readonly done_segments: number;
}

export interface JobError {
  readonly type: string;
  readonly code: string;
  readonly message: string;
}

export interface JobRecord {
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly kind: JobKind;
  readonly api: JobApi;
  readonly parentId: string | null;
  /** Order of a batch child within its batch (0-based); 0 for other jobs. */
  readonly position: number;
  readonly status: JobStatus;
  /** The language asked for (`auto` included). */
  readonly requestedLanguage: string;
  /** The language transcribed: the one asked for, or the one detected. */
  readonly language: string;
  /** The model name the caller named; '' when the default was used. */
  readonly requestedModel: string;
  /** The model that ran (set when processing starts). */
  readonly model: string | null;
  readonly mode: 'async' | 'sync';
  /** The URL the caller submitted (audio_url, file_url or svc:// URI), if any. */
  readonly audioUrl: string | null;
  /** Storage key of the job's audio once stored. */
  readonly audioObject: string | null;
  readonly audioFilename: string | null;
  readonly audioBytes: number | null;
  readonly transcriptObject: string | null;
  readonly text: string | null;
  readonly segments: readonly Segment[] | null;
  readonly progress: Progress | null;
  readonly durationSeconds: number | null;
  readonly processingTimeSeconds: number | null;
  readonly error: JobError | null;
  /** Free-form extras (batch totals, job-API options). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly attempts: number;
  /**
   * Set in the same write that makes a job final; cleared once every durable consumer of the
   * 'finished' event (webhooks) has recorded it. Jobs still pending at start are replayed.
   */
  readonly eventsPending: boolean;
  /**
   * While `processing`: the gateway process running the job and until when its claim holds.
   * The runner (or, for a `websocket` job, its session's gateway) renews the lease; a job whose
   * lease ended belongs to a process that stopped, and another process takes it over or, for a
   * session, ends it (JobService.sweep). Null otherwise.
   */
  readonly leaseOwner: string | null;
  readonly leaseUntil: string | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  readonly updatedAt: string;
}

/** What a job holds until a process runs it: no model, result, progress past `queued`, error, attempt or lease. */
export const JOB_NOT_STARTED = {
  model: null,
  transcriptObject: null,
  text: null,
  segments: null,
  progress: { stage: 'queued', percent: 0, total_segments: 0, done_segments: 0 },
  durationSeconds: null,
  processingTimeSeconds: null,
  error: null,
  attempts: 0,
  leaseOwner: null,
  leaseUntil: null,
  startedAt: null,
  completedAt: null,
} as const satisfies Partial<JobRecord>;

export type JobPatch = Partial<Omit<JobRecord, 'id' | 'accountId' | 'keyId' | 'kind' | 'api' | 'parentId' | 'position' | 'createdAt'>>;

export interface JobListFilter {
  readonly accountId: string;
  readonly status?: JobStatus;
  /** `file` jobs (single and batch parents) or `websocket` sessions. */
  readonly source?: 'file' | 'websocket';
  readonly api?: JobApi;
  readonly cursor?: string;
  readonly limit: number;
}

/**
 * The kinds the job queue runs (batch parents aggregate, WebSocket records belong to their
 * session): `single` and `batch_child` transcribe, `translation` translates its units.
 */
export const RUNNABLE_KINDS: readonly JobKind[] = ['single', 'batch_child', 'translation'];

/** Extra conditions of a conditional update. */
export interface UpdateCondition {
  /** Only while this process holds the job's lease. */
  readonly leaseOwner?: string;
  /** Only when the job's lease ended at or before this instant (or it has none). */
  readonly leaseExpiredAt?: string;
}

export interface ClaimRequest {
  /** The claiming process (lease owner). */
  readonly owner: string;
  readonly leaseUntil: string;
  /**
   * The key's running-jobs limit: while this many of the key's runnable jobs are `processing`
   * (in any process), the claim answers `busy` and changes nothing.
   */
  readonly maxRunningForKey: number;
  /** Written with the claim (started_at, progress); `attempts` is incremented by the store. */
  readonly patch: JobPatch;
}

export type ClaimResult = { readonly outcome: 'claimed'; readonly job: JobRecord } | { readonly outcome: 'busy' } | { readonly outcome: 'not_queued' };

export interface JobPage {
  readonly jobs: JobRecord[];
  readonly total: number;
  readonly nextCursor: string | null;
}

/** Persistent job records. Transitions are conditional so that concurrent actors never overwrite each other. */
export interface JobStore {
  insert(jobs: readonly JobRecord[]): Promise<void>;
  get(id: string): Promise<JobRecord | null>;
  /**
   * Applies `patch` only when the job's status is one of `fromStatuses` (any status when
   * omitted) and `condition` holds; returns the updated job, or null when the job is gone, in
   * another status or held otherwise.
   */
  update(id: string, patch: JobPatch, fromStatuses?: readonly JobStatus[], condition?: UpdateCondition): Promise<JobRecord | null>;
  /**
   * queued → processing for one process, atomically with the key's running-jobs limit: counting
   * the key's processing jobs and taking the job happen under one lock, so several processes
   * never run more than the limit together.
   */
  claim(id: string, request: ClaimRequest): Promise<ClaimResult>;
  /** Extends the leases `owner` holds on these processing jobs; returns the ids it still holds. */
  renewLeases(owner: string, ids: readonly string[], leaseUntil: string): Promise<string[]>;
  /**
   * Jobs `processing` whose lease ended at or before `now` (or that have none), oldest first: of
   * `kinds` (default: the runnable ones; `websocket` for session records whose gateway stopped).
   */
  findLeaseExpired(now: string, limit: number, kinds?: readonly JobKind[]): Promise<JobRecord[]>;
  /** Ids of runnable `queued` jobs last changed before `updatedBefore`, oldest first. */
  findQueuedIds(updatedBefore: string, limit: number): Promise<string[]>;
  list(filter: JobListFilter): Promise<JobPage>;
  children(parentId: string): Promise<JobRecord[]>;
  delete(ids: readonly string[]): Promise<void>;
  /** Jobs of a key that are queued or processing (batch parents excluded). */
  countActive(keyId: string): Promise<number>;
  /** Batch parents (and translation jobs) of a key, of one API, that are not final yet. */
  countActiveParents(keyId: string, api: JobApi): Promise<number>;
  /** Final jobs whose 'finished' event has not been fully recorded, oldest first. */
  findEventsPending(): Promise<JobRecord[]>;
  /** Oldest first; only jobs of `kinds` when given. */
  findByStatus(statuses: readonly JobStatus[], kinds?: readonly JobKind[]): Promise<JobRecord[]>;
}
