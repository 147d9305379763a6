import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { JobPatch, JobRecord, JobStore } from '../platform/db/job-records.js';
import { LeasedRuns, type StopReason } from './leased-runs.js';

/**
 * What became of a job handed to `run`: `not_queued` (someone else has it, or it is final or
 * gone), `busy` (its key is at its running-jobs limit: try later), `finished` (it ran here; it is
 * final, or no longer ours), `returned` (shutdown put it back in `queued`).
 */
export type RunOutcome = 'not_queued' | 'busy' | 'finished' | 'returned';

/** A unique lease owner per process start: `host/pid/random`. */
export const newLeaseOwner = (): string => `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;

export interface LeasedRunnerDeps {
  readonly jobs: Pick<JobStore, 'get' | 'claim' | 'renewLeases'>;
  readonly logger: Logger;
  /** This process's lease owner id. */
  readonly owner: string;
  /** How long a claim holds without renewal (JOB_LEASE_SECONDS). */
  readonly leaseMs: number;
  /** Names the runner in the renewal warning. */
  readonly label: string;
}

/** A job `claim` took: the job as claimed, when, and the controller that stops its run. */
export interface ClaimedRun {
  readonly job: JobRecord;
  readonly startedAt: Date;
  readonly controller: AbortController;
}

/**
 * What the transcription and translation runners share: the claim that starts a run (under the
 * key's running-jobs limit across every process, with a lease renewed while it runs) and the
 * runs in flight here, which shutdown, cancel and delete stop. Lifetime of a run: `claim`
 * registers it; the subclass's `run` removes it (`this.runs.remove`) in its `finally`.
 */
export abstract class LeasedRunner {
  protected readonly runs: LeasedRuns;

  protected constructor(private readonly leased: LeasedRunnerDeps) {
    this.runs = new LeasedRuns(leased);
  }

  get runningCount(): number {
    return this.runs.size;
  }

  /** Stops a running job; the caller has already recorded why (cancelled, deleted) or will (shutdown). */
  stop(jobId: string, reason: StopReason): boolean {
    return this.runs.stop(jobId, reason);
  }

  stopAll(reason: StopReason): string[] {
    return this.runs.stopAll(reason);
  }

  /** Claims and runs the job; `maxRunningForKey` is its key's running-jobs limit across every process. */
  abstract run(jobId: string, maxRunningForKey?: number): Promise<RunOutcome>;

  /** Claims a queued job, writing `patch(queued, startedAt)` with the claim, and registers its run; else why not. */
  protected async claim(
    jobId: string,
    maxRunningForKey: number,
    patch: (queued: JobRecord, startedAt: Date) => JobPatch,
  ): Promise<ClaimedRun | 'not_queued' | 'busy'> {
    const { jobs, owner, leaseMs } = this.leased;
    const queued = await jobs.get(jobId);
    if (queued === null || queued.status !== 'queued') return 'not_queued';
    const startedAt = new Date();
    const claim = await jobs.claim(jobId, {
      owner,
      leaseUntil: new Date(startedAt.getTime() + leaseMs).toISOString(),
      maxRunningForKey,
      patch: patch(queued, startedAt),
    });
    if (claim.outcome !== 'claimed') return claim.outcome;
    const controller = new AbortController();
    this.runs.add(jobId, controller);
    return { job: claim.job, startedAt, controller };
  }
}
