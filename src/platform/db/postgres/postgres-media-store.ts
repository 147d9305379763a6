import type { MediaListFilter, MediaPage, MediaPatch, MediaRecord, MediaStatus, MediaStore } from '../media-records.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { PostgresDatabase } from './postgres-database.js';
import { Params } from './postgres-params.js';

type Row = Record<string, any>;

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

export class PostgresMediaStore implements MediaStore {
  constructor(private readonly db: PostgresDatabase) {}

  async insert(r: MediaRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO media_assets (id, account_id, key_id, status, source, storage_key, filename, content_type, expected_bytes,
         size_bytes, format, duration_seconds, created_at, uploaded_at, finalized_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        r.id, r.accountId, r.keyId, r.status, r.source, r.storageKey, r.filename, r.contentType, r.expectedBytes,
        r.sizeBytes, r.format, r.durationSeconds, r.createdAt, r.uploadedAt, r.finalizedAt, r.updatedAt,
      ],
    );
  }

  async get(id: string): Promise<MediaRecord | null> {
    const { rows } = await this.db.query('SELECT * FROM media_assets WHERE id = $1', [id]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async update(id: string, patch: MediaPatch, fromStatuses?: readonly MediaStatus[]): Promise<MediaRecord | null> {
    const params = new Params();
    const sets = [`updated_at = ${params.add(new Date().toISOString())}`];
    for (const [field, value] of Object.entries(patch)) {
      const column = PATCH_COLUMNS[field as keyof MediaPatch];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = ${params.add(value)}`);
    }
    let where = `id = ${params.add(id)}`;
    if (fromStatuses !== undefined) where += ` AND status = ANY(${params.add([...fromStatuses])})`;
    const { rows } = await this.db.query(`UPDATE media_assets SET ${sets.join(', ')} WHERE ${where} RETURNING *`, params.values);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async list(filter: MediaListFilter): Promise<MediaPage> {
    const params = new Params();
    const clauses = [`account_id = ${params.add(filter.accountId)}`];
    if (filter.status !== undefined) clauses.push(`status = ${params.add(filter.status)}`);
    const position = filter.cursor === undefined ? null : decodeCursor(filter.cursor);
    const total = (await this.db.query<{ n: number }>(`SELECT count(*) AS n FROM media_assets WHERE ${clauses.join(' AND ')}`, params.values)).rows[0]!.n;
    if (position !== null) {
      const created = params.add(position.createdAt);
      clauses.push(`(created_at < ${created} OR (created_at = ${created} AND id < ${params.add(position.id)}))`);
    }
    const { rows } = await this.db.query(
      `SELECT * FROM media_assets WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${params.add(filter.limit + 1)}`,
      params.values,
    );
    const items = rows.slice(0, filter.limit).map(fromRow);
    return { items, total, nextCursor: rows.length > filter.limit ? encodeCursor(items[items.length - 1]!) : null };
  }

  async delete(id: string, fromStatuses?: readonly MediaStatus[]): Promise<boolean> {
    const result =
      fromStatuses === undefined
        ? await this.db.query('DELETE FROM media_assets WHERE id = $1', [id])
        : await this.db.query('DELETE FROM media_assets WHERE id = $1 AND status = ANY($2)', [id, [...fromStatuses]]);
    return (result.rowCount ?? 0) > 0;
  }

  async findUnfinalized(before: string, limit: number): Promise<MediaRecord[]> {
    const { rows } = await this.db.query(
      "SELECT * FROM media_assets WHERE status <> 'ready' AND created_at < $1 ORDER BY created_at, id LIMIT $2",
      [before, limit],
    );
    return rows.map(fromRow);
  }
}
