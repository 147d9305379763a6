import { newId } from '../ids.js';
import type { SqlExecutor } from '../sql/executor.js';
import type { Account, AccountStore } from '../store-types.js';

interface AccountRow {
  id: string;
  name: string;
  created_at: string;
}

const toAccount = (row: AccountRow): Account => ({ id: row.id, name: row.name, createdAt: row.created_at });

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
    const row = await this.sql.one<AccountRow>('SELECT * FROM accounts WHERE id = ?', [id]);
    return row ? toAccount(row) : null;
  }

  async findByName(name: string): Promise<Account | null> {
    const row = await this.sql.one<AccountRow>('SELECT * FROM accounts WHERE name = ?', [name]);
    return row ? toAccount(row) : null;
  }

  async list(): Promise<Account[]> {
    return (await this.sql.query<AccountRow>('SELECT * FROM accounts ORDER BY created_at, id')).map(toAccount);
  }
}
