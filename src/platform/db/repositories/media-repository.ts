import type { MediaListFilter, MediaPage, MediaRecord, MediaStore } from '../media-records.js';
import type { SqlDatabase } from '../sql/executor.js';
import { countWhere, keysetPage } from './keyset.js';
import { KeyedRepository } from './keyed-repository.js';
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

export class MediaRepository extends KeyedRepository<MediaRecord> implements MediaStore {
  constructor(db: SqlDatabase) {
    super(db, MEDIA);
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

  /** Oldest first; records created in the same instant in id order. */
  async findUnfinalized(before: string, limit: number): Promise<MediaRecord[]> {
    const rows = await this.db.query("SELECT * FROM media_assets WHERE status <> 'ready' AND created_at < ? ORDER BY created_at, id LIMIT ?", [before, limit]);
    return rows.map(MEDIA.fromRow);
  }
}
