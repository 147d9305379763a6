import type { Logger } from 'pino';
import type { JobEvents } from './job-events.js';
import { FINAL_STATUSES, type JobRecord, type JobStatus, type JobStore } from '../platform/db/job-records.js';

export interface BatchCounts {
  readonly total: number;
  readonly queued: number;
  readonly processing: number;
  readonly completed: number;
  readonly failed: number;
  readonly cancelled: number;
}

export function countChildren(children: readonly JobRecord[]): BatchCounts {
  const count = (status: JobStatus) => children.filter((c) => c.status === status).length;
  return {
    total: children.length,
    queued: count('queued'),
    processing: count('processing'),
    completed: count('completed'),
    failed: count('failed'),
    cancelled: count('cancelled'),
  };
}

/**
 * A batch parent's status follows its children: queued until one starts, processing until all
 * are final, then completed (some may have failed: one bad file never fails a batch) — or
 * failed when no child completed.
 */
export function parentStatus(counts: BatchCounts): JobStatus {
  const final = counts.completed + counts.failed + counts.cancelled;
  if (counts.total === 0) return 'failed';
  if (final === counts.total) return counts.completed > 0 ? 'completed' : 'failed';
  if (counts.queued === counts.total) return 'queued';
  return 'processing';
}

/** Keeps batch parents in step with their children and announces the parents' own moves. */
export class BatchAggregator {
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly jobs: JobStore,
    private readonly events: JobEvents,
    private readonly logger: Logger,
  ) {
    events.on('finished', (job) => this.childChanged(job));
    events.on('progress', (job) => this.childChanged(job));
  }

  private childChanged(job: JobRecord): void {
    if (job.parentId === null) return;
    const parentId = job.parentId;
    // Serialise refreshes per parent so concurrent children never race each other's writes.
    const previous = this.pending.get(parentId) ?? Promise.resolve();
    const next = previous
      .then(async () => void (await this.refresh(parentId)))
      .catch((error: unknown) => this.logger.error({ err: error, parentId }, 'batch refresh failed'));
    this.pending.set(parentId, next);
    void next.finally(() => {
      if (this.pending.get(parentId) === next) this.pending.delete(parentId);
    });
  }

  /** After a restart: parents whose last refresh was lost in a crash catch up with their children. */
  async recoverParents(): Promise<void> {
    for (const parent of await this.jobs.findByStatus(['queued', 'processing'], ['batch'])) await this.refresh(parent.id);
  }

  /**
   * Periodic, with several processes: a parent whose refresh was lost (its child finished in a
   * process that stopped just after) and that has not moved since `updatedBefore` catches up.
   * Parents whose counts still match are left alone (no write, no progress event).
   */
  async catchUp(updatedBefore: string): Promise<number> {
    let refreshed = 0;
    for (const parent of await this.jobs.findByStatus(['queued', 'processing'], ['batch'])) {
      if (parent.updatedAt >= updatedBefore) continue;
      const counts = countChildren(await this.jobs.children(parent.id));
      const done = counts.completed + counts.failed + counts.cancelled;
      if (parentStatus(counts) === parent.status && parent.progress?.done_segments === done) continue;
      await this.refresh(parent.id);
      refreshed++;
    }
    return refreshed;
  }

  async refresh(parentId: string): Promise<JobRecord | null> {
    const parent = await this.jobs.get(parentId);
    if (parent === null || FINAL_STATUSES.includes(parent.status)) return parent;
    const children = await this.jobs.children(parentId);
    const counts = countChildren(children);
    const status = parentStatus(counts);
    const done = counts.completed + counts.failed + counts.cancelled;
    const final = FINAL_STATUSES.includes(status);
    const duration = children.reduce((sum, c) => sum + (c.durationSeconds ?? 0), 0);
    const updated = await this.jobs.update(
      parentId,
      {
        status,
        progress: {
          stage: final ? 'completed' : status,
          percent: counts.total === 0 ? 100 : Math.floor((100 * done) / counts.total),
          total_segments: counts.total,
          done_segments: done,
        },
        ...(status !== 'queued' && parent.startedAt === null ? { startedAt: new Date().toISOString() } : {}),
        ...(final
          ? {
              eventsPending: true,
              completedAt: new Date().toISOString(),
              durationSeconds: duration,
              processingTimeSeconds: parent.startedAt ? Math.round((Date.now() - Date.parse(parent.startedAt)) / 10) / 100 : null,
              error:
                status === 'failed'
                  ? { type: 'invalid_request_error', code: 'batch_failed', message: `None of the ${counts.total} files could be transcribed.` }
                  : null,
            }
          : {}),
      },
      ['queued', 'processing'],
    );
    if (updated !== null) this.events.emit(final ? 'finished' : 'progress', updated);
    return updated;
  }
}
