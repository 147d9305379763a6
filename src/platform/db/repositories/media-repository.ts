import type { MediaListFilter, MediaPage, MediaPatch, MediaRecord, MediaStatus, MediaStore } from '../media-records.js';
import type { SqlDatabase } from '../sql/executor.js';
import { countWhere, keysetPage } from './keyset.js';

interface MediaRow {
  id: string;
  account_id: string;
  key_id: string;
  status: MediaStatus;
  source: MediaRecord['source'];
  storage_key: string;
  filename: string;
  content_type: string;
  expected_bytes: number | null;
  size_bytes: number | null;
  format: string | null;
  duration_seconds: number | null;
  created_at: string;
  uploaded_at: string | null;
  finalized_at: string | null;
  updated_at: string;
}

const fromRow = (row: MediaRow): MediaRecord => ({
  id: row.id,
  accountId: row.account_id,
  keyId: row.key_id,
  status: row.status,
  source: row.source,
  storageKey: row.storage_key,
  filename: row.filename,
  contentType: row.content_type,
  expectedBytes: row.expected_bytes,
  sizeBytes: row.size_bytes,
  format: row.format,
  durationSeconds: row.duration_seconds,
  createdAt: row.created_at,
  uploadedAt: row.uploaded_at,
  finalizedAt: row.finalized_at,
  updatedAt: row.updated_at,
});

const PATCH_COLUMNS: Record<keyof MediaPatch, string> = {
  status: 'status',
  sizeBytes: 'size_bytes',
  format: 'format',
  durationSeconds: 'duration_seconds',
  uploadedAt: 'uploaded_at',
  finalizedAt: 'finalized_at',
  contentType: 'content_type',
};

export class MediaRepository implements MediaStore {
  constructor(private readonly db: SqlDatabase) {}

  async insert(r: MediaRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO media_assets (id, account_id, key_id, status, source, storage_key, filename, content_type, expected_bytes,
         size_bytes, format, duration_seconds, created_at, uploaded_at, finalized_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.id,
        r.accountId,
        r.keyId,
        r.status,
        r.source,
        r.storageKey,
        r.filename,
        r.contentType,
        r.expectedBytes,
        r.sizeBytes,
        r.format,
        r.durationSeconds,
        r.createdAt,
        r.uploadedAt,
        r.finalizedAt,
        r.updatedAt,
      ],
    );
  }

  async get(id: string): Promise<MediaRecord | null> {
    const row = await this.db.one<MediaRow>('SELECT * FROM media_assets WHERE id = ?', [id]);
    return row ? fromRow(row) : null;
  }

  async update(id: string, patch: MediaPatch, fromStatuses?: readonly MediaStatus[]): Promise<MediaRecord | null> {
    const sets = ['updated_at = ?'];
    const values: unknown[] = [new Date().toISOString()];
    for (const [field, value] of Object.entries(patch)) {
      const column = PATCH_COLUMNS[field as keyof MediaPatch];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = ?`);
      values.push(value);
    }
    let where = 'id = ?';
    values.push(id);
    if (fromStatuses !== undefined) {
      where += ` AND ${this.db.dialect.inList('status')}`;
      values.push(this.db.dialect.list(fromStatuses));
    }
    const row = await this.db.one<MediaRow>(`UPDATE media_assets SET ${sets.join(', ')} WHERE ${where} RETURNING *`, values);
    return row ? fromRow(row) : null;
  }

  async list(filter: MediaListFilter): Promise<MediaPage> {
    const clauses = ['account_id = ?'];
    const values: unknown[] = [filter.accountId];
    if (filter.status !== undefined) {
      clauses.push('status = ?');
      values.push(filter.status);
    }
    const total = await countWhere(this.db, 'media_assets', clauses, values);
    const page = await keysetPage<MediaRow>(this.db, { table: 'media_assets', where: clauses, values, cursor: filter.cursor, limit: filter.limit });
    return { items: page.rows.map(fromRow), total, nextCursor: page.nextCursor };
  }

  async delete(id: string, fromStatuses?: readonly MediaStatus[]): Promise<boolean> {
    const changed =
      fromStatuses === undefined
        ? await this.db.run('DELETE FROM media_assets WHERE id = ?', [id])
        : await this.db.run(`DELETE FROM media_assets WHERE id = ? AND ${this.db.dialect.inList('status')}`, [id, this.db.dialect.list(fromStatuses)]);
    return changed > 0;
  }

  /** Oldest first; records created in the same instant in id order. */
  async findUnfinalized(before: string, limit: number): Promise<MediaRecord[]> {
    const rows = await this.db.query<MediaRow>("SELECT * FROM media_assets WHERE status <> 'ready' AND created_at < ? ORDER BY created_at, id LIMIT ?", [
      before,
      limit,
    ]);
    return rows.map(fromRow);
  }
}
