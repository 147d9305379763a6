import type { ApiKeyRecord } from '../../auth/principal.js';
import { newId } from '../ids.js';
import type { SqlExecutor } from '../sql/executor.js';
import type { ApiKeyStore, NewApiKey } from '../store-types.js';
import { RecordTable } from './record-table.js';

/** The api_keys table; its `hash` column is written once, by `create`, and never read back. */
const KEYS = new RecordTable<ApiKeyRecord>('api_keys', {
  id: 'plain',
  accountId: 'plain',
  name: 'plain',
  prefix: 'plain',
  scopes: 'json',
  ipAllowlist: 'json',
  originAllowlist: 'json',
  limits: 'json',
  createdAt: 'time',
  expiresAt: 'time',
  revokedAt: 'time',
  lastUsedAt: 'time',
});

export class KeyRepository implements ApiKeyStore {
  constructor(private readonly sql: SqlExecutor) {}

  async create(key: NewApiKey): Promise<ApiKeyRecord> {
    const row = await this.sql.one(
      `INSERT INTO api_keys (id, account_id, name, prefix, hash, scopes, ip_allowlist, origin_allowlist, limits, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [
        newId('key'),
        key.accountId,
        key.name,
        key.prefix,
        key.hash,
        JSON.stringify(key.scopes),
        key.ipAllowlist === null ? null : JSON.stringify(key.ipAllowlist),
        key.originAllowlist === null ? null : JSON.stringify(key.originAllowlist),
        JSON.stringify(key.limits),
        new Date().toISOString(),
        key.expiresAt,
      ],
    );
    return KEYS.fromRow(row!);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    return KEYS.fromRowOrNull(await this.sql.one('SELECT * FROM api_keys WHERE hash = ?', [hash]));
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    return KEYS.byId(this.sql, id);
  }

  async list(filter: { accountId?: string; includeRevoked?: boolean }): Promise<ApiKeyRecord[]> {
    const clauses: string[] = [];
    const values: unknown[] = [];
    if (filter.accountId !== undefined) {
      clauses.push('account_id = ?');
      values.push(filter.accountId);
    }
    if (!filter.includeRevoked) clauses.push('revoked_at IS NULL');
    const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
    return (await this.sql.query(`SELECT * FROM api_keys ${where} ORDER BY created_at, id`, values)).map(KEYS.fromRow);
  }

  /** The first revocation's date stays. */
  async revoke(id: string, at: string): Promise<ApiKeyRecord | null> {
    return KEYS.fromRowOrNull(await this.sql.one('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING *', [at, id]));
  }

  async touch(id: string, at: string): Promise<void> {
    await this.sql.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [at, id]);
  }
}
