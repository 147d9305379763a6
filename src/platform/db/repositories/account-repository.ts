import { newId } from '../ids.js';
import type { SqlExecutor } from '../sql/executor.js';
import type { Account, AccountStore } from '../store-types.js';
import { RecordTable } from './record-table.js';

const ACCOUNTS = new RecordTable<Account>('accounts', { id: 'plain', name: 'plain', createdAt: 'time' });

export class AccountRepository implements AccountStore {
  constructor(private readonly sql: SqlExecutor) {}

  /** Two processes ensuring the same name at once both get the one row that won. */
  async ensure(name: string): Promise<Account> {
    const existing = await this.findByName(name);
    if (existing) return existing;
    await this.sql.run('INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [newId('acct'), name, new Date().toISOString()]);
    return (await this.findByName(name))!;
  }

  async get(id: string): Promise<Account | null> {
    return ACCOUNTS.byId(this.sql, id);
  }

  async findByName(name: string): Promise<Account | null> {
    return ACCOUNTS.fromRowOrNull(await this.sql.one('SELECT * FROM accounts WHERE name = ?', [name]));
  }

  async list(): Promise<Account[]> {
    return (await this.sql.query('SELECT * FROM accounts ORDER BY created_at, id')).map(ACCOUNTS.fromRow);
  }
}
