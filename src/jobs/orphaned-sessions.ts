// WebSocket session records (`websocket` jobs) whose gateway stopped without ending them (a
// crash, kill -9, a shutdown past its grace). A live session's gateway renews the record's lease
// (src/streaming/ws-session-record.ts); once it lapses, nothing will ever complete the record, so
// the sweep ends it `failed` with the reason and `end_reason: server_lost`. The text of such a
// session is not stored while it runs, so there is nothing to complete it with.
// Each end is conditional (still `processing`, lease still lapsed), so of several processes
// sweeping at once one writes each record, and a session that renews in time is left alone.
import type { JobPatch, JobRecord, JobStore } from '../platform/db/job-records.js';

/** Why an orphaned session's job failed (the job's `error`). */
export const SESSION_LOST_MESSAGE =
  'The streaming session ended without a result: its gateway process stopped (a crash or restart) before the session closed, and what was recognised was not recorded.';

/** How many orphaned records one pass ends at most (the next sweep takes the rest). */
const PASS_LIMIT = 500;

function sessionLostPatch(job: JobRecord): JobPatch {
  const now = new Date().toISOString();
  return {
    status: 'failed',
    error: { type: 'server_error', code: 'internal_error', message: SESSION_LOST_MESSAGE },
    options: { ...job.options, end_reason: 'server_lost' },
    progress: { ...(job.progress ?? { percent: 0, total_segments: 0, done_segments: 0 }), stage: 'failed' },
    completedAt: now,
    leaseOwner: null,
    leaseUntil: null,
  };
}

/**
 * Ends orphaned session records: every `processing` one when `expiredAt` is null (the start of
 * the only process using the store: no session of its own runs yet), else those whose lease
 * ended by `expiredAt`. Returns how many it ended.
 */
export async function endOrphanedSessions(jobs: Pick<JobStore, 'findByStatus' | 'findLeaseExpired' | 'update'>, expiredAt: string | null): Promise<number> {
  const orphans =
    expiredAt === null ? await jobs.findByStatus(['processing'], ['websocket']) : await jobs.findLeaseExpired(expiredAt, PASS_LIMIT, ['websocket']);
  const condition = expiredAt === null ? {} : { leaseExpiredAt: expiredAt };
  let ended = 0;
  for (const job of orphans) if ((await jobs.update(job.id, sessionLostPatch(job), ['processing'], condition)) !== null) ended++;
  return ended;
}
