import type { SqlDatabase } from '../sql/executor.js';
import { inListCondition, type RecordTable, type SqlCondition } from './record-table.js';

/** A record of a table keyed by `id` whose rows carry a `status` and the time of their last write. */
export interface KeyedRecord {
  readonly id: string;
  readonly status: string;
  readonly updatedAt: string;
}

/**
 * What the repositories of tables keyed by `id` (media assets, webhooks) do alike with one record:
 * insert it, read it, patch it (stamping `updated_at`) and delete it, the last two only while its
 * status is one of `fromStatuses` when that is given.
 */
export abstract class KeyedRepository<T extends KeyedRecord> {
  protected constructor(
    protected readonly db: SqlDatabase,
    private readonly table: RecordTable<T>,
  ) {}

  async insert(record: T): Promise<void> {
    await this.table.insert(this.db, [record]);
  }

  get(id: string): Promise<T | null> {
    return this.table.byId(this.db, id);
  }

  async update(id: string, patch: Partial<T>, fromStatuses?: readonly T['status'][]): Promise<T | null> {
    return this.table.fromRowOrNull(await this.table.updateRow(this.db, id, { ...patch, updatedAt: new Date().toISOString() }, this.statusIn(fromStatuses)));
  }

  delete(id: string, fromStatuses?: readonly T['status'][]): Promise<boolean> {
    return this.table.deleteRow(this.db, id, this.statusIn(fromStatuses));
  }

  private statusIn(fromStatuses: readonly string[] | undefined): SqlCondition[] {
    return fromStatuses === undefined ? [] : [inListCondition(this.db.dialect, 'status', fromStatuses)];
  }
}
