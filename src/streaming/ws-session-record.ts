// Each streaming session is a transcription job (kind `websocket`, listed with
// source=websocket): inserted `processing` when the session opens, completed (or failed, on a
// limit breach) with its text and segments when it ends. Audio seconds count in the key's usage.
// A resumed session stays one job: the record is finished once, when the session ends, with
// why it ended (`options.end_reason`) and how many times it was resumed (`options.resumes`).
// Lease: the record is inserted under this process's lease, renewed while the session lives
// (LeasedRuns, as running jobs are) and cleared when it ends; a record whose lease lapses (the
// process crashed, or shut down with the session still open) is ended by the job sweep
// (src/jobs/orphaned-sessions.ts). `close()` stops the renewals.
import type { Logger } from 'pino';
import type { Principal } from '../platform/auth/principal.js';
import { buildJob } from '../jobs/new-job.js';
import { recordingObject } from '../jobs/job-runner.js';
import { LeasedRuns } from '../jobs/leased-runs.js';
import type { JobStore } from '../platform/db/job-records.js';
import type { UsageRecorder } from '../platform/limits/usage-recorder.js';
import type { SessionOutcome } from './ws-session.js';
import type { SessionSettings } from './ws-query.js';

/** The inserted record: `finish` waits for the insert and keeps the options. */
export interface OpenedRecord {
  readonly inserted: Promise<void>;
  readonly options: Readonly<Record<string, unknown>>;
}

export class SessionRecords {
  private readonly leases: LeasedRuns;

  constructor(
    private readonly jobs: JobStore,
    private readonly usage: UsageRecorder,
    private readonly logger: Logger,
    /** This process's lease owner id and how long a lease holds unrenewed (JOB_LEASE_SECONDS). */
    private readonly lease: { readonly owner: string; readonly leaseMs: number },
  ) {
    this.leases = new LeasedRuns({ jobs, logger, owner: lease.owner, leaseMs: lease.leaseMs, label: 'streaming session' });
  }

  /** Inserts the job; `finish` waits for this. */
  open(jobId: string, sessionId: string, principal: Principal, settings: SessionSettings): OpenedRecord {
    const now = new Date().toISOString();
    const job = {
      ...buildJob({
        id: jobId,
        principal,
        kind: 'websocket',
        language: settings.language,
        requestedModel: settings.requestedModel,
        status: 'processing',
        options: {
          session_id: sessionId,
          format: settings.format,
          turn_detection: settings.serverVad ? 'server_vad' : 'none',
          vad_type: settings.vadType,
          ...(settings.channels > 1 ? { channels: settings.channels, channel_names: [...settings.channelNames] } : {}),
          // Storage key of the message timeline, written when the session ends.
          ...(settings.record ? { recording: recordingObject({ accountId: principal.accountId, id: jobId }) } : {}),
        },
      }),
      requestedLanguage: settings.language,
      model: settings.model,
      startedAt: now,
      progress: { stage: 'streaming', percent: 0, total_segments: 0, done_segments: 0 },
      leaseOwner: this.lease.owner,
      leaseUntil: new Date(Date.now() + this.lease.leaseMs).toISOString(),
    };
    const inserted = this.jobs.insert([job]).then(
      () => this.renewWhileOpen(jobId),
      (error: unknown) => {
        this.logger.error({ err: error, job: jobId }, 'could not record the streaming session as a job');
      },
    );
    return { inserted, options: job.options };
  }

  /** Stops renewing the leases of sessions still open (shutdown): the sweep ends their records if they never finish. */
  close(): void {
    for (const jobId of this.leases.stopAll('shutdown')) this.leases.remove(jobId);
  }

  /** Renews the record's lease until `finish`; a lease found taken (the sweep ended the record) is let go. */
  private renewWhileOpen(jobId: string): void {
    const controller = new AbortController();
    controller.signal.addEventListener('abort', () => {
      if (controller.signal.reason !== 'lost') return;
      this.leases.remove(jobId);
      this.logger.warn({ job: jobId }, 'streaming session record no longer held (its lease lapsed); the session result still overwrites it');
    });
    this.leases.add(jobId, controller);
  }

  async finish(jobId: string, keyId: string, opened: OpenedRecord, outcome: SessionOutcome, startedWall: number, resumes = 0): Promise<void> {
    // Usage first (synchronous): the key's next upgrade already sees these minutes.
    if (outcome.audioSeconds > 0) this.usage.record(keyId, { audioSeconds: outcome.audioSeconds });
    await opened.inserted;
    this.leases.remove(jobId);
    const now = Date.now();
    const n = outcome.segments.length;
    try {
      await this.jobs.update(jobId, {
        status: outcome.status,
        text: outcome.text,
        segments: [...outcome.segments],
        language: outcome.language,
        model: outcome.model,
        durationSeconds: Math.round(outcome.audioSeconds * 1000) / 1000,
        processingTimeSeconds: Math.round((now - startedWall) / 10) / 100,
        progress: { stage: outcome.status, percent: 100, total_segments: n, done_segments: n },
        error: outcome.error,
        options: { ...opened.options, end_reason: outcome.endReason, resumes },
        completedAt: new Date(now).toISOString(),
        updatedAt: new Date(now).toISOString(),
        leaseOwner: null,
        leaseUntil: null,
      });
    } catch (error) {
      this.logger.error({ err: error, job: jobId }, 'could not store the streaming session result');
    }
  }
}
