import type { MediaListFilter, MediaPage, MediaPatch, MediaRecord, MediaStatus, MediaStore } from '../media-records.js';
import type { SqlDatabase } from '../sql/executor.js';
import { countWhere, keysetPage } from './keyset.js';
import { RecordTable } from './record-table.js';

/** The media_assets table. */
const MEDIA = new RecordTable<MediaRecord>('media_assets', {
  id: 'plain',
  accountId: 'plain',
  keyId: 'plain',
  status: 'plain',
  source: 'plain',
  storageKey: 'plain',
  filename: 'plain',
  contentType: 'plain',
  expectedBytes: 'plain',
  sizeBytes: 'plain',
  format: 'plain',
  durationSeconds: 'plain',
  createdAt: 'time',
  uploadedAt: 'time',
  finalizedAt: 'time',
  updatedAt: 'time',
});

export class MediaRepository implements MediaStore {
  constructor(private readonly db: SqlDatabase) {}

  async insert(record: MediaRecord): Promise<void> {
    await MEDIA.insert(this.db, [record]);
  }

  async get(id: string): Promise<MediaRecord | null> {
    return MEDIA.fromRowOrNull(await this.db.one('SELECT * FROM media_assets WHERE id = ?', [id]));
  }

  async update(id: string, patch: MediaPatch, fromStatuses?: readonly MediaStatus[]): Promise<MediaRecord | null> {
    const values: unknown[] = [];
    const sets = MEDIA.setClause({ ...patch, updatedAt: new Date().toISOString() }, values);
    let where = 'id = ?';
    values.push(id);
    if (fromStatuses !== undefined) {
      where += ` AND ${this.db.dialect.inList('status')}`;
      values.push(this.db.dialect.list(fromStatuses));
    }
    return MEDIA.fromRowOrNull(await this.db.one(`UPDATE media_assets SET ${sets} WHERE ${where} RETURNING *`, values));
  }

  async list(filter: MediaListFilter): Promise<MediaPage> {
    const clauses = ['account_id = ?'];
    const values: unknown[] = [filter.accountId];
    if (filter.status !== undefined) {
      clauses.push('status = ?');
      values.push(filter.status);
    }
    const total = await countWhere(this.db, 'media_assets', clauses, values);
    const page = await keysetPage(this.db, { table: 'media_assets', where: clauses, values, cursor: filter.cursor, limit: filter.limit });
    return { items: page.rows.map(MEDIA.fromRow), total, nextCursor: page.nextCursor };
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
    const rows = await this.db.query("SELECT * FROM media_assets WHERE status <> 'ready' AND created_at < ? ORDER BY created_at, id LIMIT ?", [before, limit]);
    return rows.map(MEDIA.fromRow);
  }
}
