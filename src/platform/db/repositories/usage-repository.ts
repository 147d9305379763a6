import { addDays } from '../dates.js';
import type { SqlExecutor } from '../sql/executor.js';
import type { UsageDay, UsageStore } from '../store-types.js';

interface UsageRow {
  date: string;
  requests: number;
  audio_seconds: number;
  jobs: number;
}

const toDay = (date: string, row: UsageRow | undefined): UsageDay => ({
  date,
  requests: row?.requests ?? 0,
  audioSeconds: row?.audio_seconds ?? 0,
  jobs: row?.jobs ?? 0,
});

export class UsageRepository implements UsageStore {
  constructor(private readonly sql: SqlExecutor) {}

  /** An upsert that adds: every process flushes its own counts into the same row. */
  async add(keyId: string, date: string, delta: { requests?: number; audioSeconds?: number; jobs?: number }): Promise<void> {
    await this.sql.run(
      `INSERT INTO usage_daily (key_id, date, requests, audio_seconds, jobs) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_id, date) DO UPDATE SET requests = usage_daily.requests + excluded.requests,
         audio_seconds = usage_daily.audio_seconds + excluded.audio_seconds, jobs = usage_daily.jobs + excluded.jobs`,
      [keyId, date, delta.requests ?? 0, delta.audioSeconds ?? 0, delta.jobs ?? 0],
    );
  }

  async day(keyId: string, date: string): Promise<UsageDay> {
    const row = await this.sql.one<UsageRow>('SELECT date, requests, audio_seconds, jobs FROM usage_daily WHERE key_id = ? AND date = ?', [keyId, date]);
    return toDay(date, row);
  }

  async history(keyId: string, untilDate: string, days: number): Promise<UsageDay[]> {
    const from = addDays(untilDate, -(days - 1));
    const rows = await this.sql.query<UsageRow>('SELECT date, requests, audio_seconds, jobs FROM usage_daily WHERE key_id = ? AND date BETWEEN ? AND ?', [
      keyId,
      from,
      untilDate,
    ]);
    const byDate = new Map(rows.map((r) => [r.date, r]));
    return Array.from({ length: days }, (_, i) => {
      const date = addDays(from, i);
      return toDay(date, byDate.get(date));
    });
  }
}
