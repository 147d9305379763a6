import type { MediaListFilter, MediaPage, MediaPatch, MediaRecord, MediaStatus, MediaStore } from '../media-records.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { StatementCache } from './statement-cache.js';

interface Row {
  id: string;
  account_id: string;
  key_id: string;
  status: string;
  source: string;
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

const fromRow = (row: Row): MediaRecord => ({
  id: row.id,
  accountId: row.account_id,
  keyId: row.key_id,
  status: row.status as MediaStatus,
  source: row.source as MediaRecord['source'],
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

export class SqliteMediaStore implements MediaStore {
  private readonly sql: StatementCache;

  constructor(db: SqliteDatabase) {
    this.sql = new StatementCache(db);
  }

  async insert(record: MediaRecord): Promise<void> {
    this.sql
      .get(
        `INSERT INTO media_assets (id, account_id, key_id, status, source, storage_key, filename, content_type, expected_bytes,
           size_bytes, format, duration_seconds, created_at, uploaded_at, finalized_at, updated_at)
         VALUES (@id, @accountId, @keyId, @status, @source, @storageKey, @filename, @contentType, @expectedBytes,
           @sizeBytes, @format, @durationSeconds, @createdAt, @uploadedAt, @finalizedAt, @updatedAt)`,
      )
      .run({ ...record });
  }

  async get(id: string): Promise<MediaRecord | null> {
    const row = this.sql.get('SELECT * FROM media_assets WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  async update(id: string, patch: MediaPatch, fromStatuses?: readonly MediaStatus[]): Promise<MediaRecord | null> {
    const params: Record<string, unknown> = { __id: id, updated_at: new Date().toISOString() };
    const sets = ['updated_at = @updated_at'];
    for (const [field, value] of Object.entries(patch)) {
      const column = PATCH_COLUMNS[field as keyof MediaPatch];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = @${column}`);
      params[column] = value;
    }
    let where = 'id = @__id';
    if (fromStatuses !== undefined) {
      where += ` AND status IN (${fromStatuses.map((_, i) => `@__s${i}`).join(', ')})`;
      fromStatuses.forEach((s, i) => (params[`__s${i}`] = s));
    }
    const result = this.sql.get(`UPDATE media_assets SET ${sets.join(', ')} WHERE ${where}`).run(params);
    return result.changes === 0 ? null : this.get(id);
  }

  async list(filter: MediaListFilter): Promise<MediaPage> {
    const clauses = ['account_id = @accountId'];
    const params: Record<string, unknown> = { accountId: filter.accountId };
    if (filter.status !== undefined) {
      clauses.push('status = @status');
      params['status'] = filter.status;
    }
    const total = (this.sql.get(`SELECT COUNT(*) AS n FROM media_assets WHERE ${clauses.join(' AND ')}`).get(params) as { n: number }).n;
    if (filter.cursor !== undefined) {
      const position = decodeCursor(filter.cursor);
      clauses.push('(created_at < @cursorCreated OR (created_at = @cursorCreated AND id < @cursorId))');
      params['cursorCreated'] = position.createdAt;
      params['cursorId'] = position.id;
    }
    const rows = this.sql
      .get(`SELECT * FROM media_assets WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`)
      .all({ ...params, limit: filter.limit + 1 }) as Row[];
    const items = rows.slice(0, filter.limit).map(fromRow);
    return { items, total, nextCursor: rows.length > filter.limit ? encodeCursor(items[items.length - 1]!) : null };
  }

  async delete(id: string, fromStatuses?: readonly MediaStatus[]): Promise<boolean> {
    if (fromStatuses === undefined) return this.sql.get('DELETE FROM media_assets WHERE id = ?').run(id).changes > 0;
    const marks = fromStatuses.map(() => '?').join(', ');
    return this.sql.get(`DELETE FROM media_assets WHERE id = ? AND status IN (${marks})`).run(id, ...fromStatuses).changes > 0;
  }

  async findUnfinalized(before: string, limit: number): Promise<MediaRecord[]> {
    const rows = this.sql
      .get("SELECT * FROM media_assets WHERE status != 'ready' AND created_at < ? ORDER BY created_at LIMIT ?")
      .all(before, limit) as Row[];
    return rows.map(fromRow);
  }
}
