import type { ApiKeyRecord, KeyLimitOverrides, Scope } from '../../auth/principal.js';
import { newId } from '../ids.js';
import type { SqlExecutor } from '../sql/executor.js';
import type { ApiKeyStore, NewApiKey } from '../store-types.js';

interface KeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  scopes: string;
  ip_allowlist: string | null;
  origin_allowlist: string | null;
  limits: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

const toKey = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  prefix: row.prefix,
  scopes: JSON.parse(row.scopes) as Scope[],
  ipAllowlist: row.ip_allowlist === null ? null : (JSON.parse(row.ip_allowlist) as string[]),
  originAllowlist: row.origin_allowlist === null ? null : (JSON.parse(row.origin_allowlist) as string[]),
  limits: JSON.parse(row.limits) as KeyLimitOverrides,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  lastUsedAt: row.last_used_at,
});

export class KeyRepository implements ApiKeyStore {
  constructor(private readonly sql: SqlExecutor) {}

  async create(key: NewApiKey): Promise<ApiKeyRecord> {
    const row = await this.sql.one<KeyRow>(
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
    return toKey(row!);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const row = await this.sql.one<KeyRow>('SELECT * FROM api_keys WHERE hash = ?', [hash]);
    return row ? toKey(row) : null;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.sql.one<KeyRow>('SELECT * FROM api_keys WHERE id = ?', [id]);
    return row ? toKey(row) : null;
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
    return (await this.sql.query<KeyRow>(`SELECT * FROM api_keys ${where} ORDER BY created_at, id`, values)).map(toKey);
  }

  /** The first revocation's date stays. */
  async revoke(id: string, at: string): Promise<ApiKeyRecord | null> {
    const row = await this.sql.one<KeyRow>('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING *', [at, id]);
    return row ? toKey(row) : null;
  }

  async touch(id: string, at: string): Promise<void> {
    await this.sql.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [at, id]);
  }
}
