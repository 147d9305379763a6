import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from './sqlite-database.js';
import { SqliteExecutor } from './sqlite-executor.js';

const MIGRATIONS = [{ id: '0001', sql: 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, flag INTEGER)' }];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SqliteExecutor', () => {
  const opened: SqliteExecutor[] = [];
  let dir = '';

  function open(): SqliteExecutor {
    dir ||= mkdtempSync(join(tmpdir(), 'sqlite-executor-'));
    const executor = new SqliteExecutor(openSqlite(join(dir, 'db.sqlite'), MIGRATIONS));
    opened.push(executor);
    return executor;
  }

  afterEach(() => {
    for (const executor of opened.splice(0)) {
      executor.detach();
      executor.db.close();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  it('binds booleans as 1 and 0 and counts changed rows', async () => {
    const sql = open();
    expect(await sql.run('INSERT INTO t (id, n, flag) VALUES (?, ?, ?), (?, ?, ?)', ['a', 1, true, 'b', 2, false])).toBe(2);
    expect(await sql.query('SELECT id, flag FROM t ORDER BY id')).toEqual([
      { id: 'a', flag: 1 },
      { id: 'b', flag: 0 },
    ]);
    expect(await sql.one('UPDATE t SET n = n + 1 WHERE id = ? RETURNING n', ['a'])).toEqual({ n: 2 });
    expect(await sql.one('SELECT * FROM t WHERE id = ?', ['zz'])).toBeUndefined();
  });

  it('lets statements of other connections to the file wait for a transaction that spans awaits', async () => {
    const [first, second] = [open(), open()];
    await first.run('INSERT INTO t (id, n) VALUES (?, ?)', ['x', 0]);
    const order: string[] = [];
    const tx = first.transaction(async (t) => {
      const { n } = (await t.one<{ n: number }>('SELECT n FROM t WHERE id = ?', ['x']))!;
      await pause(50);
      await t.run('UPDATE t SET n = ? WHERE id = ?', [n + 1, 'x']);
      order.push('tx');
    });
    // Without the gate this write would block the thread in SQLite's busy handler and fail.
    const write = second.run('UPDATE t SET n = n + 10 WHERE id = ?', ['x']).then(() => order.push('write'));
    // A statement on the transaction's own connection does not join the transaction.
    const read = first.one<{ n: number }>('SELECT n FROM t WHERE id = ?', ['x']).then((row) => order.push(`read ${row!.n}`));
    await Promise.all([tx, write, read]);
    expect(order[0]).toBe('tx');
    expect((await second.one<{ n: number }>('SELECT n FROM t WHERE id = ?', ['x']))!.n).toBe(11);
  });

  it('rolls back a transaction that throws, and refuses a transaction used after it ended', async () => {
    const sql = open();
    let leaked: Parameters<Parameters<SqliteExecutor['transaction']>[0]>[0] | undefined;
    await expect(
      sql.transaction(async (t) => {
        leaked = t;
        await t.run('INSERT INTO t (id, n) VALUES (?, ?)', ['gone', 1]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await sql.one('SELECT * FROM t WHERE id = ?', ['gone'])).toBeUndefined();
    await expect(leaked!.run('INSERT INTO t (id, n) VALUES (?, ?)', ['late', 1])).rejects.toThrow(/after it ended/);
    expect(sql.db.inTransaction).toBe(false);
  });
});
