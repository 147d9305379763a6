// Where the benchmarks put their figures: bench/results/<name>.json under the repository root,
// whether they run from bench/ under tsx or compiled from dist/bench/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/helpers/fixtures.js';

/** Writes `report` as indented JSON to bench/results/<name>.json; returns the file's path. */
export function writeBenchResults(name: string, report: unknown): string {
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `v` rounded to two decimals, as the reports give times and percentages. */
export const round2 = (v: number): number => Math.round(v * 100) / 100;

/** a / b rounded to three decimals, as the reports give their ratios. */
export const ratio3 = (a: number, b: number): number => Math.round((a / b) * 1000) / 1000;

/**
 * A report with the date and the Node version, printed as JSON and written to
 * bench/results/<name>.json.
 */
export function publishReport(name: string, fields: Record<string, unknown>): void {
  const report = { date: new Date().toISOString(), node: process.version, ...fields };
  console.log(JSON.stringify(report, null, 2));
  writeBenchResults(name, report);
}
