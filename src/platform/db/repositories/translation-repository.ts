import type { JobRecord } from '../job-records.js';
import type { SqlDatabase } from '../sql/executor.js';
import {
  CALLBACK_NOT_SCHEDULED,
  type CallbackPatch,
  type TranslationJobRecord,
  type TranslationStore,
  type TranslationUnitPatch,
  type TranslationUnitRecord,
} from '../translation-records.js';
import { insertJobRows } from './job-repository.js';
import { RecordTable } from './record-table.js';

/** Unit rows per INSERT statement (10 parameters each). */
const UNIT_CHUNK = 100;

/** The translation_jobs table. */
const TRANSLATION_JOBS = new RecordTable<TranslationJobRecord>('translation_jobs', {
  jobId: 'plain',
  sourceLanguage: 'plain',
  targetLanguages: 'json',
  destinationUri: 'plain',
  callbackUrl: 'plain',
  callbackSecret: 'plain',
  callbackStatus: 'plain',
  callbackPayload: 'plain',
  callbackAttempts: 'plain',
  callbackNextAt: 'time',
  callbackLeaseUntil: 'time',
  callbackLastError: 'plain',
  expiresAt: 'time',
  createdAt: 'time',
  updatedAt: 'time',
});

/** The translation_units table. */
const UNITS = new RecordTable<TranslationUnitRecord>('translation_units', {
  jobId: 'plain',
  position: 'plain',
  sourceUri: 'plain',
  targetLanguage: 'plain',
  outputName: 'plain',
  status: 'plain',
  targetObject: 'plain',
  error: 'json',
  characters: 'plain',
  updatedAt: 'time',
});

export class TranslationRepository implements TranslationStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(job: JobRecord, t: TranslationJobRecord, units: readonly TranslationUnitRecord[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await insertJobRows(tx, [job]);
      // Its callback is scheduled once the job is final.
      await TRANSLATION_JOBS.insert(tx, [{ ...t, ...CALLBACK_NOT_SCHEDULED }]);
      for (let start = 0; start < units.length; start += UNIT_CHUNK) await UNITS.insert(tx, units.slice(start, start + UNIT_CHUNK));
    });
  }

  async get(jobId: string): Promise<TranslationJobRecord | null> {
    return TRANSLATION_JOBS.fromRowOrNull(await this.db.one('SELECT * FROM translation_jobs WHERE job_id = ?', [jobId]));
  }

  async units(jobId: string): Promise<TranslationUnitRecord[]> {
    const rows = await this.db.query('SELECT * FROM translation_units WHERE job_id = ? ORDER BY position', [jobId]);
    return rows.map(UNITS.fromRow);
  }

  async updateUnit(jobId: string, position: number, patch: TranslationUnitPatch, leaseOwner?: string): Promise<boolean> {
    const values: unknown[] = [];
    const sets = UNITS.setClause({ ...patch, updatedAt: new Date().toISOString() }, values);
    const held = leaseOwner === undefined ? '' : " AND EXISTS (SELECT 1 FROM jobs WHERE jobs.id = ? AND jobs.status = 'processing' AND jobs.lease_owner = ?)";
    const changed = await this.db.run(`UPDATE translation_units SET ${sets} WHERE job_id = ? AND position = ?${held}`, [
      ...values,
      jobId,
      position,
      ...(leaseOwner === undefined ? [] : [jobId, leaseOwner]),
    ]);
    return changed > 0;
  }

  async scheduleCallback(jobId: string, payload: string, at: string): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE translation_jobs SET callback_status = 'pending', callback_payload = ?, callback_next_at = ?, updated_at = ?
       WHERE job_id = ? AND callback_url IS NOT NULL AND callback_status IS NULL`,
      [payload, at, at, jobId],
    );
    return changed > 0;
  }

  async claimDueCallbacks(now: string, leaseUntil: string, limit: number): Promise<TranslationJobRecord[]> {
    const { sql, values } = this.db.dialect.claimDueCallbacks(now, leaseUntil, limit);
    const rows = await this.db.query(sql, values);
    return rows.map(TRANSLATION_JOBS.fromRow).sort((a, b) => (a.callbackNextAt ?? '').localeCompare(b.callbackNextAt ?? '') || a.jobId.localeCompare(b.jobId));
  }

  async updateCallback(jobId: string, patch: CallbackPatch, leaseUntil: string): Promise<boolean> {
    const values: unknown[] = [];
    const sets = TRANSLATION_JOBS.setClause({ ...patch, updatedAt: new Date().toISOString() }, values);
    const changed = await this.db.run(`UPDATE translation_jobs SET ${sets} WHERE job_id = ? AND callback_lease_until = ?`, [...values, jobId, leaseUntil]);
    return changed > 0;
  }

  async nextCallbackAt(): Promise<string | null> {
    const row = await this.db.one<{ at: string | null }>(
      `SELECT MIN(CASE WHEN callback_lease_until IS NOT NULL AND callback_lease_until > callback_next_at THEN callback_lease_until ELSE callback_next_at END) AS at
       FROM translation_jobs WHERE callback_status = 'pending'`,
    );
    return row?.at ?? null;
  }

  async findExpired(now: string, limit: number): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT t.job_id AS id FROM translation_jobs t JOIN jobs j ON j.id = t.job_id
       WHERE t.expires_at <= ? AND j.status IN ('completed', 'failed', 'cancelled') ORDER BY t.expires_at, t.job_id LIMIT ?`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }
}
