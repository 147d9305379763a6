import type { JobRecord } from '../job-records.js';
import type { Row, SqlDatabase } from '../sql/executor.js';
import type { CallbackPatch, TranslationJobRecord, TranslationStore, TranslationUnitPatch, TranslationUnitRecord } from '../translation-records.js';
import { insertJobRows } from './job-repository.js';

/** Unit rows per INSERT statement (10 parameters each). */
const UNIT_CHUNK = 100;

const CALLBACK_COLUMNS: Record<keyof CallbackPatch, string> = {
  callbackStatus: 'callback_status',
  callbackAttempts: 'callback_attempts',
  callbackNextAt: 'callback_next_at',
  callbackLeaseUntil: 'callback_lease_until',
  callbackLastError: 'callback_last_error',
};

function jobFromRow(row: Row): TranslationJobRecord {
  const targets = row['target_languages'];
  return {
    jobId: row['job_id'] as string,
    sourceLanguage: row['source_language'] as string,
    targetLanguages: (typeof targets === 'string' ? JSON.parse(targets) : targets) as string[],
    destinationUri: row['destination_uri'] as string,
    callbackUrl: (row['callback_url'] as string | null) ?? null,
    callbackSecret: (row['callback_secret'] as string | null) ?? null,
    callbackStatus: (row['callback_status'] as TranslationJobRecord['callbackStatus']) ?? null,
    callbackPayload: (row['callback_payload'] as string | null) ?? null,
    callbackAttempts: Number(row['callback_attempts'] ?? 0),
    callbackNextAt: (row['callback_next_at'] as string | null) ?? null,
    callbackLeaseUntil: (row['callback_lease_until'] as string | null) ?? null,
    callbackLastError: (row['callback_last_error'] as string | null) ?? null,
    expiresAt: row['expires_at'] as string,
    createdAt: row['created_at'] as string,
    updatedAt: row['updated_at'] as string,
  };
}

function unitFromRow(row: Row): TranslationUnitRecord {
  const error = row['error'];
  return {
    jobId: row['job_id'] as string,
    position: Number(row['position']),
    sourceUri: row['source_uri'] as string,
    targetLanguage: row['target_language'] as string,
    outputName: row['output_name'] as string,
    status: row['status'] as TranslationUnitRecord['status'],
    targetObject: (row['target_object'] as string | null) ?? null,
    error: error === null || error === undefined ? null : ((typeof error === 'string' ? JSON.parse(error) : error) as TranslationUnitRecord['error']),
    characters: Number(row['characters'] ?? 0),
    updatedAt: row['updated_at'] as string,
  };
}

export class TranslationRepository implements TranslationStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(job: JobRecord, t: TranslationJobRecord, units: readonly TranslationUnitRecord[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await insertJobRows(tx, [job]);
      await tx.run(
        `INSERT INTO translation_jobs (job_id, source_language, target_languages, destination_uri, callback_url, callback_secret,
           callback_status, callback_payload, callback_attempts, callback_next_at, callback_lease_until, callback_last_error,
           expires_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, 0, NULL, NULL, NULL, ?, ?, ?)`,
        [
          t.jobId,
          t.sourceLanguage,
          JSON.stringify(t.targetLanguages),
          t.destinationUri,
          t.callbackUrl,
          t.callbackSecret,
          t.expiresAt,
          t.createdAt,
          t.updatedAt,
        ],
      );
      for (let start = 0; start < units.length; start += UNIT_CHUNK) {
        const chunk = units.slice(start, start + UNIT_CHUNK);
        await tx.run(
          `INSERT INTO translation_units (job_id, position, source_uri, target_language, output_name, status, target_object, error, characters, updated_at)
           VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          chunk.flatMap((u) => [
            u.jobId,
            u.position,
            u.sourceUri,
            u.targetLanguage,
            u.outputName,
            u.status,
            u.targetObject,
            u.error === null ? null : JSON.stringify(u.error),
            u.characters,
            u.updatedAt,
          ]),
        );
      }
    });
  }

  async get(jobId: string): Promise<TranslationJobRecord | null> {
    const row = await this.db.one('SELECT * FROM translation_jobs WHERE job_id = ?', [jobId]);
    return row ? jobFromRow(row) : null;
  }

  async units(jobId: string): Promise<TranslationUnitRecord[]> {
    const rows = await this.db.query('SELECT * FROM translation_units WHERE job_id = ? ORDER BY position', [jobId]);
    return rows.map(unitFromRow);
  }

  async updateUnit(jobId: string, position: number, patch: TranslationUnitPatch, leaseOwner?: string): Promise<boolean> {
    const sets: string[] = ['updated_at = ?'];
    const values: unknown[] = [new Date().toISOString()];
    if (patch.status !== undefined) sets.push('status = ?') && values.push(patch.status);
    if (patch.targetObject !== undefined) sets.push('target_object = ?') && values.push(patch.targetObject);
    if (patch.error !== undefined) sets.push('error = ?') && values.push(patch.error === null ? null : JSON.stringify(patch.error));
    if (patch.characters !== undefined) sets.push('characters = ?') && values.push(patch.characters);
    const held = leaseOwner === undefined ? '' : " AND EXISTS (SELECT 1 FROM jobs WHERE jobs.id = ? AND jobs.status = 'processing' AND jobs.lease_owner = ?)";
    const changed = await this.db.run(`UPDATE translation_units SET ${sets.join(', ')} WHERE job_id = ? AND position = ?${held}`, [
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
    return rows.map(jobFromRow).sort((a, b) => (a.callbackNextAt ?? '').localeCompare(b.callbackNextAt ?? '') || a.jobId.localeCompare(b.jobId));
  }

  async updateCallback(jobId: string, patch: CallbackPatch, leaseUntil: string): Promise<boolean> {
    const sets: string[] = ['updated_at = ?'];
    const values: unknown[] = [new Date().toISOString()];
    for (const [field, value] of Object.entries(patch)) {
      sets.push(`${CALLBACK_COLUMNS[field as keyof CallbackPatch]} = ?`);
      values.push(value);
    }
    const changed = await this.db.run(`UPDATE translation_jobs SET ${sets.join(', ')} WHERE job_id = ? AND callback_lease_until = ?`, [
      ...values,
      jobId,
      leaseUntil,
    ]);
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
