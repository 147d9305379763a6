import {
  RUNNABLE_KINDS,
  type ClaimRequest,
  type ClaimResult,
  type JobKind,
  type JobListFilter,
  type JobPage,
  type JobPatch,
  type JobRecord,
  type JobStatus,
  type JobStore,
  type UpdateCondition,
} from '../job-records.js';
import type { Row, SqlDatabase } from '../sql/executor.js';
import { countWhere, keysetPage } from './keyset.js';
import { inListCondition, RecordTable, type SqlCondition } from './record-table.js';

/** The jobs table, shared by every backend. */
const JOBS = new RecordTable<JobRecord>('jobs', {
  id: 'plain',
  accountId: 'plain',
  keyId: 'plain',
  kind: 'plain',
  api: 'plain',
  parentId: 'plain',
  position: 'plain',
  status: 'plain',
  requestedLanguage: 'plain',
  language: 'plain',
  requestedModel: 'plain',
  model: 'plain',
  mode: 'plain',
  audioUrl: 'plain',
  audioObject: 'plain',
  audioFilename: 'plain',
  audioBytes: 'plain',
  transcriptObject: 'plain',
  text: 'plain',
  segments: 'json',
  progress: 'json',
  durationSeconds: 'plain',
  processingTimeSeconds: 'plain',
  error: 'json',
  options: 'json',
  attempts: 'plain',
  eventsPending: 'bool',
  leaseOwner: 'plain',
  leaseUntil: 'time',
  createdAt: 'time',
  startedAt: 'time',
  completedAt: 'time',
  updatedAt: 'time',
});

const RUNNABLE = RUNNABLE_KINDS.map((k) => `'${k}'`).join(', ');
/** Rows per INSERT statement (a batch of 10,000 files stays far below either backend's parameter limit). */
const INSERT_CHUNK = 200;

function fromRow(row: Row): JobRecord {
  const job = JOBS.fromRow(row);
  return { ...job, options: job.options ?? {} };
}

/** A patch with `updated_at` now: every write of a job stamps it. */
const stamped = (patch: JobPatch): Partial<JobRecord> => ({ ...patch, updatedAt: new Date().toISOString() });

/** INSERTs job rows through `sql` (a transaction of another repository included), in chunks. */
export async function insertJobRows(sql: Pick<SqlDatabase, 'run'>, jobs: readonly JobRecord[]): Promise<void> {
  for (let start = 0; start < jobs.length; start += INSERT_CHUNK) await JOBS.insert(sql, jobs.slice(start, start + INSERT_CHUNK));
}

export class JobRepository implements JobStore {
  constructor(private readonly db: SqlDatabase) {}

  /** All or none: the rows of a batch go in together. */
  async insert(jobs: readonly JobRecord[]): Promise<void> {
    if (jobs.length === 0) return;
    if (jobs.length <= INSERT_CHUNK) await insertJobRows(this.db, jobs);
    else await this.db.transaction((tx) => insertJobRows(tx, jobs));
  }

  async get(id: string): Promise<JobRecord | null> {
    const row = await this.db.one('SELECT * FROM jobs WHERE id = ?', [id]);
    return row ? fromRow(row) : null;
  }

  async update(id: string, patch: JobPatch, fromStatuses?: readonly JobStatus[], condition: UpdateCondition = {}): Promise<JobRecord | null> {
    const conditions: SqlCondition[] = [];
    if (fromStatuses !== undefined) conditions.push(inListCondition(this.db.dialect, 'status', fromStatuses));
    if (condition.leaseOwner !== undefined) conditions.push({ sql: 'lease_owner = ?', values: [condition.leaseOwner] });
    if (condition.leaseExpiredAt !== undefined) conditions.push({ sql: '(lease_until IS NULL OR lease_until <= ?)', values: [condition.leaseExpiredAt] });
    const row = await JOBS.updateRow(this.db, id, stamped(patch), conditions);
    return row ? fromRow(row) : null;
  }

  /**
   * One transaction holding the key's claim lock (PostgreSQL: an advisory lock per key;
   * SQLite: the immediate transaction's write lock), so the count of the key's processing jobs
   * cannot change between the count and the update in any process. The lock ends at commit,
   * after the update is visible.
   */
  async claim(id: string, request: ClaimRequest): Promise<ClaimResult> {
    return this.db.transaction(async (tx): Promise<ClaimResult> => {
      const current = await tx.one<{ status: string; key_id: string }>('SELECT status, key_id FROM jobs WHERE id = ?', [id]);
      if (current === undefined || current.status !== 'queued') return { outcome: 'not_queued' };
      await tx.lock('key-claims', current.key_id);
      const running = (await tx.one<{ n: number }>(`SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND status = 'processing' AND kind IN (${RUNNABLE})`, [
        current.key_id,
      ]))!.n;
      if (running >= request.maxRunningForKey) return { outcome: 'busy' };
      const values: unknown[] = [];
      const sets = JOBS.setClause(stamped({ ...request.patch, status: 'processing', leaseOwner: request.owner, leaseUntil: request.leaseUntil }), values);
      const row = await tx.one(`UPDATE jobs SET ${sets}, attempts = attempts + 1 WHERE id = ? AND status = 'queued' RETURNING *`, [...values, id]);
      return row ? { outcome: 'claimed', job: fromRow(row) } : { outcome: 'not_queued' };
    });
  }

  async renewLeases(owner: string, ids: readonly string[], leaseUntil: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<{ id: string }>(
      `UPDATE jobs SET lease_until = ? WHERE ${this.db.dialect.inList('id')} AND lease_owner = ? AND status = 'processing' RETURNING id`,
      [leaseUntil, this.db.dialect.list(ids), owner],
    );
    const held = new Set(rows.map((r) => r.id));
    return ids.filter((id) => held.has(id));
  }

  async findLeaseExpired(now: string, limit: number, kinds: readonly JobKind[] = RUNNABLE_KINDS): Promise<JobRecord[]> {
    const rows = await this.db.query(
      `SELECT * FROM jobs WHERE status = 'processing' AND ${this.db.dialect.inList('kind')} AND (lease_until IS NULL OR lease_until <= ?)
       ORDER BY created_at, id LIMIT ?`,
      [this.db.dialect.list(kinds), now, limit],
    );
    return rows.map(fromRow);
  }

  async findQueuedIds(updatedBefore: string, limit: number): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT id FROM jobs WHERE status = 'queued' AND kind IN (${RUNNABLE}) AND updated_at < ? ORDER BY created_at, id LIMIT ?`,
      [updatedBefore, limit],
    );
    return rows.map((r) => r.id);
  }

  async list(filter: JobListFilter): Promise<JobPage> {
    const clauses = ['account_id = ?', "kind <> 'batch_child'"];
    const values: unknown[] = [filter.accountId];
    if (filter.status !== undefined) {
      clauses.push('status = ?');
      values.push(filter.status);
    }
    if (filter.source === 'websocket') clauses.push("kind = 'websocket'");
    if (filter.source === 'file') clauses.push("kind <> 'websocket'");
    if (filter.api !== undefined) {
      clauses.push('api = ?');
      values.push(filter.api);
    }
    const total = await countWhere(this.db, 'jobs', clauses, values);
    const page = await keysetPage(this.db, { table: 'jobs', where: clauses, values, cursor: filter.cursor, limit: filter.limit });
    return { jobs: page.rows.map(fromRow), total, nextCursor: page.nextCursor };
  }

  async children(parentId: string): Promise<JobRecord[]> {
    return (await this.db.query('SELECT * FROM jobs WHERE parent_id = ? ORDER BY position, id', [parentId])).map(fromRow);
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.run(`DELETE FROM jobs WHERE ${this.db.dialect.inList('id')}`, [this.db.dialect.list(ids)]);
  }

  async countActive(keyId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND status IN ('queued', 'processing') AND kind IN (${RUNNABLE})`,
      [keyId],
    );
    return row!.n;
  }

  async countActiveParents(keyId: string, api: JobRecord['api']): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      "SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND api = ? AND kind IN ('batch', 'translation') AND status IN ('queued', 'processing')",
      [keyId, api],
    );
    return row!.n;
  }

  async findEventsPending(): Promise<JobRecord[]> {
    const rows = await this.db.query(`SELECT * FROM jobs WHERE events_pending = ${this.db.dialect.true} ORDER BY completed_at NULLS FIRST, id`);
    return rows.map(fromRow);
  }

  async findByStatus(statuses: readonly JobStatus[], kinds?: readonly JobKind[]): Promise<JobRecord[]> {
    const { inList, list } = this.db.dialect;
    const rows =
      kinds === undefined
        ? await this.db.query(`SELECT * FROM jobs WHERE ${inList('status')} ORDER BY created_at, id`, [list(statuses)])
        : await this.db.query(`SELECT * FROM jobs WHERE ${inList('status')} AND ${inList('kind')} ORDER BY created_at, id`, [list(statuses), list(kinds)]);
    return rows.map(fromRow);
  }
}
