import type { Logger } from 'pino';
import type { ApiKeyRecord, Principal } from '../platform/auth/principal.js';
import type { Limits } from '../platform/config/config.js';
import { ApiError } from '../platform/errors/api-error.js';
import type { UsageRecorder } from '../platform/limits/usage-recorder.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import { utcDate } from '../platform/db/dates.js';
import type { UsageStore } from '../platform/db/store-types.js';
import type { JobEvents } from './job-events.js';
import { JobBacklog } from './job-backlog.js';
import type { JobQueue } from './job-queue.js';
import { jobPrefix, type JobRunner } from './job-runner.js';
import type { TranslationRunner } from './translation-runner.js';
import { IdempotentSubmissions } from './idempotent-submissions.js';
import { buildJob, type NewJobInput } from './new-job.js';
import { endOrphanedSessions } from './orphaned-sessions.js';
import type { IdempotencyStore } from '../platform/db/idempotency-records.js';
import { FINAL_STATUSES, RUNNABLE_KINDS, type JobApi, type JobRecord, type JobStore } from '../platform/db/job-records.js';

export const MAX_ATTEMPTS = 2;
/** A job whose key is at its running-jobs limit is offered again after 250 ms, doubling up to this. */
const MAX_PARK_DELAY_MS = 2_000;
/** Sync callers served by one process for a job run by another look at the store this often. */
const FINAL_POLL_MS = 500;
/** At shutdown, how long jobs stopped after the grace get to go back to the queue. */
const RETURN_WAIT_MS = 3_000;

/**
 * 429 concurrent_limit_exceeded while the key has its limit (`defaultLimit` unless the key sets
 * its own) of job API jobs, transcription and translation together, pending or processing.
 */
export async function admitJobApiParent(jobs: Pick<JobStore, 'countActiveParents'>, key: ApiKeyRecord, defaultLimit: number): Promise<void> {
  const limit = key.limits.concurrentJobs ?? defaultLimit;
  const active = await jobs.countActiveParents(key.id, 'job_api');
  if (active >= limit) {
    const message = `Concurrent job limit exceeded: ${active} jobs of this key are pending or processing (limit ${limit}).`;
    throw new ApiError('concurrent_limit_exceeded', { message, detail: message, retryAfter: 10 });
  }
}

/**
 * The job lifecycle: admission (concurrency and daily quota), queueing, cancel, delete,
 * waiting for sync callers, recovery after a restart, and shutdown.
 */
export class JobService {
  constructor(
    private readonly deps: {
      readonly jobs: JobStore;
      readonly queue: JobQueue;
      readonly runner: JobRunner;
      /** Runs `translation` jobs (file translation); without it they stay queued. */
      readonly translationRunner?: Pick<TranslationRunner, 'run' | 'stop' | 'stopAll'>;
      readonly events: JobEvents;
      readonly storage: FileStorage;
      readonly usage: UsageStore;
      readonly recorder: UsageRecorder;
      readonly limits: Limits;
      readonly logger: Logger;
      /** The running-jobs limit of a key (its override, else the server's). */
      readonly concurrencyLimit: (keyId: string) => Promise<number>;
      /**
       * Whether this process is the only one using the store (SQLite): at start it then takes
       * over every job left `processing` at once. Otherwise only jobs whose lease ended are
       * taken over, at start and by `sweep()`, so live processes keep their work.
       */
      readonly soleProcess: boolean;
      /**
       * Graceful overload: new jobs get 503 server_overloaded (with Retry-After) while a job
       * submitted now would wait longer than `maxQueueWaitSeconds` for one of `workers`; 0: never.
       */
      readonly overload?: { readonly maxQueueWaitSeconds: number; readonly workers: number };
      /**
       * Fair shares: the most of this process's workers one account's jobs hold at once; a further
       * job of the account waits in the queue (parked like a key at its limit), so the other
       * accounts' jobs find a worker. Absent: no bound.
       */
      readonly workersPerAccount?: number;
      /** Idempotency-Key records of submissions (`submissions`). */
      readonly idempotency: IdempotencyStore;
    },
  ) {
    this.submissions = new IdempotentSubmissions({ keys: deps.idempotency, jobs: deps.jobs });
    deps.events.on('finished', (job) => {
      if (job.processingTimeSeconds !== null && RUNNABLE_KINDS.includes(job.kind)) this.backlog.record(job.processingTimeSeconds, job.durationSeconds);
    });
  }

  /** Submissions under an Idempotency-Key: every route that creates jobs goes through it. */
  readonly submissions: IdempotentSubmissions;

  /** Mean job time of this process and the wait it implies for new jobs. */
  readonly backlog = new JobBacklog();

  /** Jobs handed to a runner here: their account and start (ms), for fair shares and the wait estimate. */
  private readonly running = new Map<string, { readonly accountId: string; readonly startedAt: number }>();
  private readonly runningPerAccount = new Map<string, number>();

  /** Seconds a job submitted now would wait for a worker here (estimate), counting what the running jobs have left. */
  estimatedQueueWait(): number {
    const { queue, overload, runner } = this.deps;
    const now = Date.now();
    const running = [...this.running].map(([id, run]) => ({ elapsedSeconds: (now - run.startedAt) / 1000, audioSeconds: runner.probedSeconds(id) ?? null }));
    return this.backlog.estimateWait(queue.waiting(), running, overload?.workers ?? 1);
  }

  /** Throws 503 server_overloaded when the job queue's estimated wait is past the bound. */
  admitBacklog(): void {
    const bound = this.deps.overload?.maxQueueWaitSeconds ?? 0;
    if (bound <= 0) return;
    const wait = this.estimatedQueueWait();
    if (wait <= bound) return;
    const retryAfter = Math.max(1, Math.ceil(wait - bound));
    throw new ApiError('server_overloaded', {
      message: `The job queue is full: a new job would wait about ${Math.ceil(wait)} s (the bound is ${bound} s). Try again in ${retryAfter} s.`,
      retryAfter,
      detail: 'Server overloaded: the job queue is full, try again later',
    });
  }

  get jobs(): JobStore {
    return this.deps.jobs;
  }

  get events(): JobEvents {
    return this.deps.events;
  }

  /** Throws 429 when the key may not start `count` more jobs now. */
  async admit(principal: Principal, count = 1): Promise<void> {
    this.admitBacklog();
    const { limits } = this.deps;
    const limit = principal.key.limits.concurrentJobs ?? limits.concurrentJobs;
    const active = await this.deps.jobs.countActive(principal.key.id);
    if (active + count > limit) {
      throw new ApiError('concurrent_limit_exceeded', {
        message: `This key has ${active} jobs queued or running; the limit is ${limit}${count > 1 ? ` and this request adds ${count}` : ''}.`,
        retryAfter: 10,
      });
    }
    await this.admitQuota(principal);
  }

  /**
   * Admits a batch. Job-API jobs count as jobs against the concurrency limit; a unified batch's
   * children instead wait their turn in the queue under the same per-key limit as single jobs.
   */
  async admitParent(principal: Principal, api: JobApi): Promise<void> {
    this.admitBacklog();
    if (api === 'job_api') await admitJobApiParent(this.deps.jobs, principal.key, this.deps.limits.concurrentJobs);
    await this.admitQuota(principal);
  }

  /**
   * Throws 429 daily_quota_exceeded when the key has used its audio minutes today (UTC), counting
   * the probed audio of its jobs running here (held until they are billed what they decoded).
   */
  async admitQuota(principal: Principal): Promise<void> {
    const { limits } = this.deps;
    const minutesLimit = principal.key.limits.dailyAudioMinutes ?? limits.dailyAudioMinutes;
    const used = (await this.dailyMinutesUsed(principal.key.id)) + this.deps.recorder.heldAudio(principal.key.id, utcDate()) / 60;
    if (used >= minutesLimit) {
      const now = Date.now();
      const nextMidnight = Date.parse(`${utcDate(now)}T00:00:00Z`) + 86_400_000;
      throw new ApiError('daily_quota_exceeded', {
        message: `This key has used ${Math.round(used)} of its ${minutesLimit} audio minutes today (UTC).`,
        retryAfter: Math.ceil((nextMidnight - now) / 1000),
      });
    }
  }

  async dailyMinutesUsed(keyId: string): Promise<number> {
    const today = utcDate();
    const stored = await this.deps.usage.day(keyId, today);
    return (stored.audioSeconds + this.deps.recorder.unflushed(keyId, today).audioSeconds) / 60;
  }

  async activeJobs(keyId: string): Promise<number> {
    return this.deps.jobs.countActive(keyId);
  }

  /** Stores the jobs and queues those that transcribe (batch parents only aggregate). */
  async submit(jobs: readonly JobRecord[]): Promise<void> {
    await this.deps.jobs.insert(jobs);
    for (const job of jobs) if (job.kind !== 'batch' && job.status === 'queued') await this.deps.queue.enqueue(job.id);
  }

  /** Admits one single (not batch) job of `input.principal` (`admit`), then builds and submits it; answers the job stored. */
  async submitSingle(input: Omit<NewJobInput, 'kind'>): Promise<JobRecord> {
    await this.admit(input.principal);
    const job = buildJob({ ...input, kind: 'single' });
    await this.submit([job]);
    return job;
  }

  /** A transcription job visible to this account, or 404 (file translation jobs live under /translate only). */
  async getOwned(id: string, accountId: string): Promise<JobRecord> {
    const job = await this.deps.jobs.get(id);
    if (job === null || job.accountId !== accountId || job.kind === 'translation') throw new ApiError('job_not_found', { message: `No job ${id}.` });
    return job;
  }

  async cancel(id: string, accountId: string): Promise<JobRecord> {
    const job = await this.getOwned(id, accountId);
    if (job.kind === 'batch') {
      for (const child of await this.deps.jobs.children(job.id)) {
        if (!FINAL_STATUSES.includes(child.status)) await this.cancel(child.id, accountId).catch(() => undefined);
      }
      return this.getOwned(id, accountId);
    }
    const cancelled = await this.deps.jobs.update(
      id,
      { status: 'cancelled', eventsPending: true, completedAt: new Date().toISOString(), progress: { ...(job.progress ?? zeroProgress), stage: 'cancelled' } },
      ['queued', 'processing'],
    );
    if (cancelled === null) {
      const current = await this.getOwned(id, accountId);
      throw new ApiError('job_not_cancellable', { message: `Job ${id} is ${current.status} and cannot be cancelled.` });
    }
    this.deps.runner.stop(id, 'cancelled');
    this.deps.events.emit('finished', cancelled);
    return cancelled;
  }

  /** Removes the job (and a batch's children) and every stored file of theirs. */
  async delete(id: string, accountId: string): Promise<void> {
    const job = await this.getOwned(id, accountId);
    const children = job.kind === 'batch' ? await this.deps.jobs.children(job.id) : [];
    const all = [...children, job];
    await this.deps.jobs.delete(all.map((j) => j.id));
    for (const j of all) {
      this.deps.runner.stop(j.id, 'deleted');
      await this.deps.storage.deletePrefix(jobPrefix(j)).catch(() => undefined);
    }
  }

  /**
   * Resolves with the job once it is final, or as it is when `timeoutMs` passes, `signal` aborts
   * or shutdown has settled the running jobs (`close`; after it, at once). Final events of jobs
   * run here arrive at once; with other processes sharing the store the job may run elsewhere, so
   * the store is also read every FINAL_POLL_MS.
   */
  async waitForFinal(id: string, timeoutMs: number, signal?: AbortSignal): Promise<JobRecord | null> {
    const current = await this.deps.jobs.get(id);
    const stopped = this.stopped.signal;
    // An aborted signal never fires again: a listener added now would wait for the job to end.
    if (current === null || FINAL_STATUSES.includes(current.status) || timeoutMs <= 0 || stopped.aborted || signal?.aborted) return current;
    return new Promise((resolve) => {
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (poll !== null) clearInterval(poll);
        this.deps.events.off('finished', onFinished);
        signal?.removeEventListener('abort', finish);
        stopped.removeEventListener('abort', finish);
        void this.deps.jobs.get(id).then(resolve, () => resolve(null));
      };
      const onFinished = (job: JobRecord): void => {
        if (job.id === id) finish();
      };
      const timer = setTimeout(finish, timeoutMs);
      const poll = this.deps.soleProcess
        ? null
        : setInterval(() => {
            void this.deps.jobs.get(id).then(
              (job) => (job === null || FINAL_STATUSES.includes(job.status)) && finish(),
              () => undefined,
            );
          }, FINAL_POLL_MS);
      this.deps.events.on('finished', onFinished);
      signal?.addEventListener('abort', finish, { once: true });
      stopped.addEventListener('abort', finish, { once: true });
    });
  }

  /**
   * After a start: jobs left `processing` by a process that stopped are retried once (then
   * failed with a reason), WebSocket session records it left open are ended (orphaned-sessions.ts),
   * and every queued job is queued again, oldest first. With a shared store only jobs and sessions
   * whose lease ended are taken over; `sweep()` takes the others later.
   */
  async recover(): Promise<{ requeued: number; failed: number }> {
    const { jobs, queue, logger } = this.deps;
    const expiredAt = this.deps.soleProcess ? null : new Date().toISOString();
    const recovered = await this.takeOver(expiredAt);
    const sessionsEnded = await endOrphanedSessions(jobs, expiredAt);
    if (sessionsEnded > 0) logger.warn({ sessions: sessionsEnded }, 'ended streaming session jobs left open by a stopped gateway process');
    for (const job of await jobs.findByStatus(['queued'], RUNNABLE_KINDS)) await queue.enqueue(job.id);
    if (recovered.requeued + recovered.failed > 0) logger.warn(recovered, 'recovered jobs interrupted by a restart');
    return recovered;
  }

  /**
   * Periodic (every process): takes over jobs whose lease ended, ends WebSocket session records
   * whose lease ended (their gateway stopped), and queues again jobs left `queued` since
   * `staleBefore` that no queue may hold (their process stopped before handing them to the queue,
   * or the queue lost them). Enqueueing is idempotent, so a job still waiting in a queue is not doubled.
   */
  async sweep(staleBefore: string): Promise<{ requeued: number; failed: number; sessionsEnded: number; enqueued: number }> {
    const now = new Date().toISOString();
    const recovered = await this.takeOver(now);
    if (recovered.requeued + recovered.failed > 0) this.deps.logger.warn(recovered, 'took over jobs whose gateway process stopped');
    const sessionsEnded = await endOrphanedSessions(this.deps.jobs, now);
    if (sessionsEnded > 0) this.deps.logger.warn({ sessions: sessionsEnded }, 'ended streaming session jobs whose gateway process stopped');
    const stale = await this.deps.jobs.findQueuedIds(staleBefore, 1_000);
    for (const id of stale) await this.deps.queue.enqueue(id);
    return { ...recovered, sessionsEnded, enqueued: stale.length };
  }

  /**
   * Requeues (or, out of attempts, fails) interrupted jobs: every runnable `processing` job when
   * `expiredAt` is null, else those whose lease ended by then. Each move is conditional on the
   * lease still being expired, so of several processes sweeping at once only one takes a job.
   */
  private async takeOver(expiredAt: string | null): Promise<{ requeued: number; failed: number }> {
    const { jobs, queue } = this.deps;
    let requeued = 0;
    let failed = 0;
    const candidates = expiredAt === null ? await jobs.findByStatus(['processing'], RUNNABLE_KINDS) : await jobs.findLeaseExpired(expiredAt, 500);
    const condition = expiredAt === null ? {} : { leaseExpiredAt: expiredAt };
    for (const job of candidates) {
      if (job.attempts < MAX_ATTEMPTS) {
        const back = await jobs.update(
          job.id,
          { status: 'queued', progress: { ...zeroProgress, stage: 'queued' }, leaseOwner: null, leaseUntil: null },
          ['processing'],
          condition,
        );
        if (back === null) continue;
        await queue.enqueue(job.id);
        requeued++;
      } else {
        const done = await jobs.update(
          job.id,
          {
            status: 'failed',
            eventsPending: true,
            completedAt: new Date().toISOString(),
            leaseOwner: null,
            leaseUntil: null,
            error: {
              type: 'server_error',
              code: 'internal_error',
              message: `The job was interrupted by a server restart ${job.attempts} times and was not retried again.`,
            },
          },
          ['processing'],
          condition,
        );
        if (done === null) continue;
        this.deps.events.emit('finished', done);
        failed++;
      }
    }
    return { requeued, failed };
  }

  /**
   * Starts the workers. The key's running-jobs limit is enforced by the claim, in the store, for
   * every process together. A job whose key is at its limit goes back to the queue, delayed; when
   * one of the key's jobs finishes here, the first of its waiting jobs is made due at once (slots
   * freed by other processes are found when the delay ends). Fair shares are per process (each
   * has its own workers): a job whose account holds `workersPerAccount` of them is parked the same
   * way, under its account, and woken when one of the account's jobs finishes here.
   */
  start(): void {
    const share = this.deps.workersPerAccount ?? Number.POSITIVE_INFINITY;
    this.deps.queue.consume(async (id) => {
      const job = await this.deps.jobs.get(id);
      if (job === null || job.status !== 'queued' || !RUNNABLE_KINDS.includes(job.kind)) return this.unpark(id);
      const limit = await this.deps.concurrencyLimit(job.keyId);
      const runner = job.kind === 'translation' ? this.deps.translationRunner : this.deps.runner;
      if (runner === undefined) return;
      const account = accountGroup(job.accountId);
      // Checked and counted with no await between, so two workers cannot both take the last share.
      if ((this.runningPerAccount.get(job.accountId) ?? 0) >= share) return { retryAfterMs: this.park(account, id) };
      this.track(id, job.accountId);
      let outcome: Awaited<ReturnType<typeof runner.run>>;
      try {
        outcome = await runner.run(id, limit);
      } finally {
        this.untrack(id, job.accountId);
      }
      if (outcome === 'busy') return { retryAfterMs: this.park(job.keyId, id) };
      this.unpark(id);
      if (outcome === 'returned') return { retryAfterMs: 0 };
      if (outcome === 'finished') {
        await this.wakeParked(job.keyId);
        await this.wakeParked(account);
      }
    });
  }

  private track(id: string, accountId: string): void {
    this.running.set(id, { accountId, startedAt: Date.now() });
    this.runningPerAccount.set(accountId, (this.runningPerAccount.get(accountId) ?? 0) + 1);
  }

  private untrack(id: string, accountId: string): void {
    this.running.delete(id);
    const left = (this.runningPerAccount.get(accountId) ?? 1) - 1;
    if (left > 0) this.runningPerAccount.set(accountId, left);
    else this.runningPerAccount.delete(accountId);
  }

  /** Ids waiting for a slot of their key (or share of their account: accountGroup), in the order they first found it full; and how often each did. */
  private readonly parked = new Map<string, Set<string>>();
  private readonly parkCounts = new Map<string, { keyId: string; count: number }>();

  private park(keyId: string, id: string): number {
    const previous = this.parkCounts.get(id);
    // Parked before under the other group (key or account): it moves, keeping its count.
    if (previous !== undefined && previous.keyId !== keyId) {
      const ids = this.parked.get(previous.keyId);
      ids?.delete(id);
      if (ids?.size === 0) this.parked.delete(previous.keyId);
      previous.keyId = keyId;
    }
    let ids = this.parked.get(keyId);
    if (ids === undefined) this.parked.set(keyId, (ids = new Set()));
    ids.add(id);
    const entry = previous ?? { keyId, count: 0 };
    entry.count++;
    this.parkCounts.set(id, entry);
    return Math.min(MAX_PARK_DELAY_MS, 250 * 2 ** Math.min(entry.count - 1, 10));
  }

  private unpark(id: string): void {
    const entry = this.parkCounts.get(id);
    if (entry === undefined) return;
    this.parkCounts.delete(id);
    const ids = this.parked.get(entry.keyId);
    ids?.delete(id);
    if (ids?.size === 0) this.parked.delete(entry.keyId);
  }

  private async wakeParked(keyId: string): Promise<void> {
    const ids = this.parked.get(keyId);
    if (ids === undefined) return;
    for (const id of [...ids]) {
      this.unpark(id);
      if (await this.deps.queue.promote(id).catch(() => false)) return;
    }
  }

  /** Aborted once shutdown has settled the running jobs: `mode=sync` callers then get their jobs as they stand. */
  private readonly stopped = new AbortController();
  private closing: Promise<void> | null = null;

  /**
   * Shutdown (idempotent; later calls wait for the first): stops taking jobs; running jobs get
   * `graceMs` to finish, then are stopped and go back to `queued` (their lease released, their
   * attempt not counted); then every `mode=sync` caller still waiting is answered with its job
   * as it stands.
   */
  close(graceMs: number): Promise<void> {
    this.closing ??= (async () => {
      try {
        const finished = await this.deps.queue.close(graceMs);
        if (!finished) {
          const stopped = [...this.deps.runner.stopAll('shutdown'), ...(this.deps.translationRunner?.stopAll('shutdown') ?? [])];
          this.deps.logger.info({ jobs: stopped }, 'returning unfinished jobs to the queue');
          if (!(await this.deps.queue.close(RETURN_WAIT_MS))) this.deps.logger.warn('jobs still stopping at shutdown; their leases end them');
        }
      } finally {
        this.stopped.abort();
      }
    })();
    return this.closing;
  }
}

/** The parking group of an account's fair share (key ids never contain NUL). */
const accountGroup = (accountId: string): string => `account\u0000${accountId}`;

const zeroProgress = { stage: 'queued', percent: 0, total_segments: 0, done_segments: 0 };
