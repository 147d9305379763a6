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
import { decodeCursor, encodeCursor, InvalidCursorError } from '../cursor.js';
import { JOB_COLUMN_OF, JOB_COLUMNS } from '../job-columns.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { StatementCache } from './statement-cache.js';

export { InvalidCursorError };

type Row = Record<string, unknown>;

const RUNNABLE = RUNNABLE_KINDS.map((k) => `'${k}'`).join(', ');

function toRow(job: Partial<JobRecord>): Row {
  const row: Row = {};
  for (const [field, value] of Object.entries(job)) {
    const spec = JOB_COLUMN_OF.get(field as keyof JobRecord);
    if (spec === undefined) continue;
    row[spec.column] =
      spec.kind === 'json' ? (value === null || value === undefined ? null : JSON.stringify(value)) : spec.kind === 'bool' ? (value ? 1 : 0) : (value ?? null);
  }
  return row;
}

function fromRow(row: Row): JobRecord {
  const job: Record<string, unknown> = {};
  for (const [field, column, kind] of JOB_COLUMNS) {
    const value = row[column];
    job[field] = kind === 'json' ? (value === null ? null : JSON.parse(value as string)) : kind === 'bool' ? value === 1 : (value ?? null);
  }
  job['options'] ??= {};
  return job as unknown as JobRecord;
}

/** SET list and parameters of a patch; `updated_at` is always written. */
function setClause(patch: JobPatch, params: Row): string[] {
  const row = toRow({ ...patch, updatedAt: new Date().toISOString() });
  for (const [column, value] of Object.entries(row)) params[column] = value;
  return Object.keys(row).map((column) => `${column} = @${column}`);
}

export class SqliteJobStore implements JobStore {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqliteDatabase) {
    this.sql = new StatementCache(db);
  }

  async insert(jobs: readonly JobRecord[]): Promise<void> {
    const columns = JOB_COLUMNS.map(([, c]) => c);
    const statement = this.sql.get(`INSERT INTO jobs (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
    this.db.transaction(() => {
      for (const job of jobs) statement.run({ ...Object.fromEntries(columns.map((c) => [c, null])), ...toRow(job) });
    })();
  }

  async get(id: string): Promise<JobRecord | null> {
    const row = this.sql.get('SELECT * FROM jobs WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  async update(id: string, patch: JobPatch, fromStatuses?: readonly JobStatus[], condition: UpdateCondition = {}): Promise<JobRecord | null> {
    const params: Row = { __id: id };
    const sets = setClause(patch, params);
    let where = 'id = @__id';
    if (fromStatuses !== undefined) {
      where += ` AND status IN (${fromStatuses.map((_, i) => `@__s${i}`).join(', ')})`;
      fromStatuses.forEach((s, i) => (params[`__s${i}`] = s));
    }
    if (condition.leaseOwner !== undefined) {
      where += ' AND lease_owner = @__owner';
      params['__owner'] = condition.leaseOwner;
    }
    if (condition.leaseExpiredAt !== undefined) {
      where += ' AND (lease_until IS NULL OR lease_until <= @__expired)';
      params['__expired'] = condition.leaseExpiredAt;
    }
    const result = this.sql.get(`UPDATE jobs SET ${sets.join(', ')} WHERE ${where}`).run(params);
    if (result.changes === 0) return null;
    return this.get(id);
  }

  async claim(id: string, request: ClaimRequest): Promise<ClaimResult> {
    // IMMEDIATE: the write lock is taken before the count, so another process sharing the file
    // cannot claim between our count and our update.
    const claim = this.db.transaction((): ClaimResult => {
      const current = this.sql.get('SELECT status, key_id FROM jobs WHERE id = ?').get(id) as { status: string; key_id: string } | undefined;
      if (current === undefined || current.status !== 'queued') return { outcome: 'not_queued' };
      const running = (
        this.sql.get(`SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND status = 'processing' AND kind IN (${RUNNABLE})`).get(current.key_id) as {
          n: number;
        }
      ).n;
      if (running >= request.maxRunningForKey) return { outcome: 'busy' };
      const params: Row = { __id: id };
      const sets = setClause({ ...request.patch, status: 'processing', leaseOwner: request.owner, leaseUntil: request.leaseUntil }, params);
      this.sql.get(`UPDATE jobs SET ${sets.join(', ')}, attempts = attempts + 1 WHERE id = @__id AND status = 'queued'`).run(params);
      return { outcome: 'claimed', job: fromRow(this.sql.get('SELECT * FROM jobs WHERE id = ?').get(id) as Row) };
    });
    return claim.immediate();
  }

  async renewLeases(owner: string, ids: readonly string[], leaseUntil: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const renew = this.sql.get("UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'processing'");
    return this.db.transaction(() => ids.filter((id) => renew.run(leaseUntil, id, owner).changes > 0))();
  }

  async findLeaseExpired(now: string, limit: number): Promise<JobRecord[]> {
    const rows = this.sql
      .get(
        `SELECT * FROM jobs WHERE status = 'processing' AND kind IN (${RUNNABLE}) AND (lease_until IS NULL OR lease_until <= ?)
         ORDER BY created_at, id LIMIT ?`,
      )
      .all(now, limit) as Row[];
    return rows.map(fromRow);
  }

  async findQueuedIds(updatedBefore: string, limit: number): Promise<string[]> {
    return this.sql
      .get(`SELECT id FROM jobs WHERE status = 'queued' AND kind IN (${RUNNABLE}) AND updated_at < ? ORDER BY created_at, id LIMIT ?`)
      .pluck()
      .all(updatedBefore, limit) as string[];
  }

  async list(filter: JobListFilter): Promise<JobPage> {
    const clauses = ['account_id = @accountId', "kind != 'batch_child'"];
    const params: Row = { accountId: filter.accountId };
    if (filter.status !== undefined) {
      clauses.push('status = @status');
      params['status'] = filter.status;
    }
    if (filter.source === 'websocket') clauses.push("kind = 'websocket'");
    if (filter.source === 'file') clauses.push("kind != 'websocket'");
    if (filter.api !== undefined) {
      clauses.push('api = @api');
      params['api'] = filter.api;
    }
    const total = (this.sql.get(`SELECT COUNT(*) AS n FROM jobs WHERE ${clauses.join(' AND ')}`).get(params) as { n: number }).n;
    if (filter.cursor !== undefined) {
      const position = decodeCursor(filter.cursor);
      clauses.push('(created_at < @cursorCreated OR (created_at = @cursorCreated AND id < @cursorId))');
      params['cursorCreated'] = position.createdAt;
      params['cursorId'] = position.id;
    }
    const rows = this.sql.get(`SELECT * FROM jobs WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`)
      .all({ ...params, limit: filter.limit + 1 }) as Row[];
    const jobs = rows.slice(0, filter.limit).map(fromRow);
    const nextCursor = rows.length > filter.limit ? encodeCursor(jobs[jobs.length - 1]!) : null;
    return { jobs, total, nextCursor };
  }

  async children(parentId: string): Promise<JobRecord[]> {
    return (this.sql.get('SELECT * FROM jobs WHERE parent_id = ? ORDER BY position, id').all(parentId) as Row[]).map(fromRow);
  }

  async delete(ids: readonly string[]): Promise<void> {
    const statement = this.sql.get('DELETE FROM jobs WHERE id = ?');
    this.db.transaction(() => {
      for (const id of ids) statement.run(id);
    })();
  }

  async countActive(keyId: string): Promise<number> {
    return (
      this.sql.get(`SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND status IN ('queued', 'processing') AND kind IN (${RUNNABLE})`)
        .get(keyId) as { n: number }
    ).n;
  }

  async countActiveParents(keyId: string, api: JobRecord['api']): Promise<number> {
    return (
      this.sql.get("SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND api = ? AND kind = 'batch' AND status IN ('queued', 'processing')")
        .get(keyId, api) as { n: number }
    ).n;
  }

  async findEventsPending(): Promise<JobRecord[]> {
    return (this.sql.get('SELECT * FROM jobs WHERE events_pending = 1 ORDER BY completed_at, id').all() as Row[]).map(fromRow);
  }

  async findByStatus(statuses: readonly JobStatus[], kinds?: readonly JobKind[]): Promise<JobRecord[]> {
    const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
    const kindClause = kinds === undefined ? '' : ` AND kind IN (${marks(kinds.length)})`;
    const rows = this.sql.get(`SELECT * FROM jobs WHERE status IN (${marks(statuses.length)})${kindClause} ORDER BY created_at, id`)
      .all(...statuses, ...(kinds ?? [])) as Row[];
    return rows.map(fromRow);
  }
}
