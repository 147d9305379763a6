import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './sqlite-database.js';

/** Prepares each distinct SQL text once per database; statements live as long as the database. */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
