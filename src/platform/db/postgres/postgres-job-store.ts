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
import { decodeCursor, encodeCursor } from '../cursor.js';
import { JOB_COLUMN_OF, JOB_COLUMNS } from '../job-columns.js';
import { Params } from './postgres-params.js';
import type { PostgresDatabase } from './postgres-database.js';

type Row = Record<string, unknown>;

const RUNNABLE = [...RUNNABLE_KINDS];
const COLUMN_LIST = JOB_COLUMNS.map(([, column]) => column).join(', ');
/** Rows per INSERT statement (a batch of 10,000 files stays far below the 65,535-parameter limit). */
const INSERT_CHUNK = 200;

function value(field: keyof JobRecord, raw: unknown): unknown {
  const spec = JOB_COLUMN_OF.get(field)!;
  if (raw === undefined || raw === null) return null;
  return spec.kind === 'json' ? JSON.stringify(raw) : raw;
}

function fromRow(row: Row): JobRecord {
  const job: Record<string, unknown> = {};
  for (const [field, column] of JOB_COLUMNS) job[field] = row[column] ?? null;
  job['options'] ??= {};
  return job as unknown as JobRecord;
}

function setClause(patch: JobPatch, params: Params): string[] {
  const sets: string[] = [];
  for (const [field, raw] of Object.entries({ ...patch, updatedAt: new Date().toISOString() })) {
    const spec = JOB_COLUMN_OF.get(field as keyof JobRecord);
    if (spec === undefined) continue;
    sets.push(`${spec.column} = ${params.add(value(field as keyof JobRecord, raw))}`);
  }
  return sets;
}

export class PostgresJobStore implements JobStore {
  constructor(private readonly db: PostgresDatabase) {}

  async insert(jobs: readonly JobRecord[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.db.transaction(async (client) => {
      for (let start = 0; start < jobs.length; start += INSERT_CHUNK) {
        const params = new Params();
        const tuples = jobs
          .slice(start, start + INSERT_CHUNK)
          .map((job) => `(${JOB_COLUMNS.map(([field]) => params.add(value(field, job[field]))).join(', ')})`);
        await client.query(`INSERT INTO jobs (${COLUMN_LIST}) VALUES ${tuples.join(', ')}`, params.values);
      }
    });
  }

  async get(id: string): Promise<JobRecord | null> {
    const { rows } = await this.db.query('SELECT * FROM jobs WHERE id = $1', [id]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async update(id: string, patch: JobPatch, fromStatuses?: readonly JobStatus[], condition: UpdateCondition = {}): Promise<JobRecord | null> {
    const params = new Params();
    const sets = setClause(patch, params);
    let where = `id = ${params.add(id)}`;
    if (fromStatuses !== undefined) where += ` AND status = ANY(${params.add([...fromStatuses])})`;
    if (condition.leaseOwner !== undefined) where += ` AND lease_owner = ${params.add(condition.leaseOwner)}`;
    if (condition.leaseExpiredAt !== undefined) where += ` AND (lease_until IS NULL OR lease_until <= ${params.add(condition.leaseExpiredAt)})`;
    const { rows } = await this.db.query(`UPDATE jobs SET ${sets.join(', ')} WHERE ${where} RETURNING *`, params.values);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /**
   * One transaction: a transaction-level advisory lock per key serialises the claims of that
   * key's jobs (in every process), so the count of its processing jobs cannot change between
   * the count and the update. The lock is released at commit, after the update is visible.
   */
  async claim(id: string, request: ClaimRequest): Promise<ClaimResult> {
    return this.db.transaction(async (client) => {
      const current = (await client.query<{ status: string; key_id: string }>('SELECT status, key_id FROM jobs WHERE id = $1', [id])).rows[0];
      if (current === undefined || current.status !== 'queued') return { outcome: 'not_queued' } as const;
      await client.query("SELECT pg_advisory_xact_lock(hashtext('speech-gateway:key-claims'), hashtext($1))", [current.key_id]);
      const running = (
        await client.query<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE key_id = $1 AND status = 'processing' AND kind = ANY($2)", [
          current.key_id,
          RUNNABLE,
        ])
      ).rows[0]!.n;
      if (running >= request.maxRunningForKey) return { outcome: 'busy' } as const;
      const params = new Params();
      const sets = setClause({ ...request.patch, status: 'processing', leaseOwner: request.owner, leaseUntil: request.leaseUntil }, params);
      const { rows } = await client.query(
        `UPDATE jobs SET ${sets.join(', ')}, attempts = attempts + 1 WHERE id = ${params.add(id)} AND status = 'queued' RETURNING *`,
        params.values,
      );
      return rows[0] ? ({ outcome: 'claimed', job: fromRow(rows[0]) } as const) : ({ outcome: 'not_queued' } as const);
    });
  }

  async renewLeases(owner: string, ids: readonly string[], leaseUntil: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<{ id: string }>(
      "UPDATE jobs SET lease_until = $1 WHERE id = ANY($2) AND lease_owner = $3 AND status = 'processing' RETURNING id",
      [leaseUntil, [...ids], owner],
    );
    const held = new Set(rows.map((r) => r.id));
    return ids.filter((id) => held.has(id));
  }

  async findLeaseExpired(now: string, limit: number): Promise<JobRecord[]> {
    const { rows } = await this.db.query(
      `SELECT * FROM jobs WHERE status = 'processing' AND kind = ANY($1) AND (lease_until IS NULL OR lease_until <= $2)
       ORDER BY created_at, id LIMIT $3`,
      [RUNNABLE, now, limit],
    );
    return rows.map(fromRow);
  }

  async findQueuedIds(updatedBefore: string, limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      "SELECT id FROM jobs WHERE status = 'queued' AND kind = ANY($1) AND updated_at < $2 ORDER BY created_at, id LIMIT $3",
      [RUNNABLE, updatedBefore, limit],
    );
    return rows.map((r) => r.id);
  }

  async list(filter: JobListFilter): Promise<JobPage> {
    const params = new Params();
    const clauses = [`account_id = ${params.add(filter.accountId)}`, "kind <> 'batch_child'"];
    if (filter.status !== undefined) clauses.push(`status = ${params.add(filter.status)}`);
    if (filter.source === 'websocket') clauses.push("kind = 'websocket'");
    if (filter.source === 'file') clauses.push("kind <> 'websocket'");
    if (filter.api !== undefined) clauses.push(`api = ${params.add(filter.api)}`);
    const position = filter.cursor === undefined ? null : decodeCursor(filter.cursor);
    const total = (await this.db.query<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE ${clauses.join(' AND ')}`, params.values)).rows[0]!.n;
    if (position !== null) {
      const created = params.add(position.createdAt);
      clauses.push(`(created_at < ${created} OR (created_at = ${created} AND id < ${params.add(position.id)}))`);
    }
    const { rows } = await this.db.query(
      `SELECT * FROM jobs WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${params.add(filter.limit + 1)}`,
      params.values,
    );
    const jobs = rows.slice(0, filter.limit).map(fromRow);
    return { jobs, total, nextCursor: rows.length > filter.limit ? encodeCursor(jobs[jobs.length - 1]!) : null };
  }

  async children(parentId: string): Promise<JobRecord[]> {
    const { rows } = await this.db.query('SELECT * FROM jobs WHERE parent_id = $1 ORDER BY position, id', [parentId]);
    return rows.map(fromRow);
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query('DELETE FROM jobs WHERE id = ANY($1)', [[...ids]]);
  }

  async countActive(keyId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      "SELECT count(*) AS n FROM jobs WHERE key_id = $1 AND status IN ('queued', 'processing') AND kind = ANY($2)",
      [keyId, RUNNABLE],
    );
    return rows[0]!.n;
  }

  async countActiveParents(keyId: string, api: JobRecord['api']): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      "SELECT count(*) AS n FROM jobs WHERE key_id = $1 AND api = $2 AND kind = 'batch' AND status IN ('queued', 'processing')",
      [keyId, api],
    );
    return rows[0]!.n;
  }

  async findEventsPending(): Promise<JobRecord[]> {
    const { rows } = await this.db.query('SELECT * FROM jobs WHERE events_pending ORDER BY completed_at NULLS FIRST, id');
    return rows.map(fromRow);
  }

  async findByStatus(statuses: readonly JobStatus[], kinds?: readonly JobKind[]): Promise<JobRecord[]> {
    const { rows } =
      kinds === undefined
        ? await this.db.query('SELECT * FROM jobs WHERE status = ANY($1) ORDER BY created_at, id', [[...statuses]])
        : await this.db.query('SELECT * FROM jobs WHERE status = ANY($1) AND kind = ANY($2) ORDER BY created_at, id', [[...statuses], [...kinds]]);
    return rows.map(fromRow);
  }
}
