import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { InferencePool } from '../../src/engines/asr/inference/inference-pool.js';

/** nice and scheduling policy of the calling thread, from /proc/thread-self/stat (Linux). */
function threadSchedule(): { nice: number; policy: number } {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { nice: Number(fields[19 - 3]), policy: Number(fields[41 - 3]) };
}

const SCHED_BATCH = 3;
const addonPath = createRequire(import.meta.url).resolve('../../build/native/Release/gateway_native.node');

describe.runIf(process.platform === 'linux')('threadSetBackground (native)', () => {
  it('lowers only the calling thread: SCHED_BATCH and the nice value asked for', async () => {
    const before = threadSchedule();
    // A plain worker thread (no tsx): load the addon, lower the thread, read its own schedule back.
    const source = `
      const { parentPort } = require('node:worker_threads');
      const { readFileSync } = require('node:fs');
      const addon = require(${JSON.stringify(addonPath)});
      const read = () => { const s = readFileSync('/proc/thread-self/stat', 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return { nice: Number(f[16]), policy: Number(f[38]) }; };
      const report = addon.threadSetBackground(7);
      const after = read();
      const clamped = addon.threadSetBackground(99);
      parentPort.postMessage({ report, after, clamped });`;
    const worker = new Worker(source, { eval: true });
    const answer = await new Promise<{
      report: { applied: boolean; batch: boolean; nice: number };
      after: { nice: number; policy: number };
      clamped: { nice: number };
    }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(answer.report).toEqual({ applied: true, batch: true, nice: 7 });
    expect(answer.after).toEqual({ nice: 7, policy: SCHED_BATCH });
    expect(answer.clamped.nice).toBe(19);
    // This thread kept its schedule.
    expect(threadSchedule()).toEqual(before);
  });

  it('is what the inference pool does to its workers by default, and can be turned off', async () => {
    const lines: { details: Record<string, unknown>; message: string }[] = [];
    const logger = { info: (details: object, message: string) => lines.push({ details: details as Record<string, unknown>, message }), warn: () => {} };
    const pool = await InferencePool.start({ workers: 1, intraOpThreads: 1, logger });
    await pool.close();
    expect(lines).toContainEqual({ details: { worker: 0, applied: true, batch: true, nice: 10 }, message: 'inference workers run at background priority' });
    lines.length = 0;
    const plain = await InferencePool.start({ workers: 1, intraOpThreads: 1, logger, workerNice: null });
    await plain.close();
    expect(lines.filter((l) => l.message.includes('priority'))).toEqual([]);
  });
});
