import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { InProcessJobQueue, type JobQueue, type QueueHandler } from '../../src/jobs/job-queue.js';
import { RedisJobQueue } from '../../src/jobs/redis-job-queue.js';
import { REDIS_URL, skipWithout, testRedisPrefix } from '../helpers/distributed-servers.js';
import { untilTrue } from '../helpers/polling.js';
import { distEntry } from '../helpers/spawn-dist.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const until = (check: () => boolean, timeoutMs = 5_000): Promise<void> => untilTrue(check, timeoutMs, 10, 'condition not met in time');

/** A handler that records what it got and holds each id until released. */
function recorder() {
  const seen: string[] = [];
  const gates = new Map<string, () => void>();
  let active = 0;
  let peak = 0;
  const handler: QueueHandler = async (id) => {
    seen.push(id);
    active++;
    peak = Math.max(peak, active);
    await new Promise<void>((resolve) => gates.set(id, resolve));
    active--;
  };
  return {
    seen,
    handler,
    peak: () => peak,
    release: (id: string) => gates.get(id)?.(),
    releaseAll: () => [...gates.values()].forEach((open) => open()),
  };
}

const redisSkip = await skipWithout('redis');
const prefixes: { clean: () => Promise<void> }[] = [];
const queues: JobQueue[] = [];
afterEach(async () => {
  for (const q of queues.splice(0)) await q.close(1_000).then((idle) => idle || q.close(100));
});
afterAll(async () => {
  for (const p of prefixes) await p.clean();
});

/** Both queues keep the same promises. */
function queueBehaviour(name: string, make: (concurrency: number) => JobQueue, skip = false): void {
  describe.skipIf(skip)(name, () => {
    it('delivers each id once, at most `concurrency` at a time, and ignores an id already waiting or running', async () => {
      const queue = make(2);
      queues.push(queue);
      const r = recorder();
      for (const id of ['a', 'b', 'c', 'a']) await queue.enqueue(id);
      queue.consume(r.handler);
      await until(() => r.seen.length === 2);
      await queue.enqueue('a');
      await sleep(100);
      expect(r.seen.sort()).toEqual(['a', 'b']);
      expect(queue.running()).toBe(2);
      r.release('a');
      await until(() => r.seen.length === 3);
      expect(r.seen[2]).toBe('c');
      r.releaseAll();
      await until(() => queue.running() === 0);
      expect(r.peak()).toBe(2);
      // Done with: the same id may come again.
      await queue.enqueue('a');
      await until(() => r.seen.length === 4);
      r.releaseAll();
    });

    it('hands an id out again after the delay a handler asks for, or at once when promoted', async () => {
      const queue = make(4);
      queues.push(queue);
      const times = new Map<string, number[]>();
      const started = Date.now();
      queue.consume(async (id) => {
        const list = times.get(id) ?? [];
        list.push(Date.now() - started);
        times.set(id, list);
        return list.length === 1 ? { retryAfterMs: id === 'slow' ? 60_000 : 300 } : undefined;
      });
      await queue.enqueue('later');
      await queue.enqueue('slow');
      await until(() => (times.get('later')?.length ?? 0) === 2);
      const [first, second] = times.get('later')!;
      expect(second! - first!).toBeGreaterThanOrEqual(250);
      expect(times.get('slow')).toHaveLength(1);
      // A delayed id is not enqueued twice, and promotion makes it due now.
      await queue.enqueue('slow');
      expect(await queue.promote('nothing-delayed')).toBe(false);
      expect(await queue.promote('slow')).toBe(true);
      await until(() => (times.get('slow')?.length ?? 0) === 2);
      expect(times.get('slow')![1]! - started).toBeLessThan(10_000);
    });

    it('closes once running handlers return, or says it timed out', async () => {
      const queue = make(1);
      queues.push(queue);
      const r = recorder();
      queue.consume(r.handler);
      await queue.enqueue('x');
      await until(() => r.seen.length === 1);
      expect(await queue.close(50)).toBe(false);
      setTimeout(() => r.releaseAll(), 50);
      expect(await queue.close(2_000)).toBe(true);
    });
  });
}

queueBehaviour('InProcessJobQueue', (concurrency) => new InProcessJobQueue(concurrency));

function redisQueue(prefix: string, concurrency: number, consumerTtlMs = 3_000): RedisJobQueue {
  return new RedisJobQueue(new Redis(REDIS_URL, { maxRetriesPerRequest: 1 }), { concurrency, prefix, consumerTtlMs });
}

queueBehaviour(
  'RedisJobQueue (Redis at 127.0.0.1:6379)',
  (concurrency) => {
    const p = testRedisPrefix('queue');
    prefixes.push(p);
    return redisQueue(p.prefix, concurrency);
  },
  redisSkip,
);

describe.skipIf(redisSkip)('RedisJobQueue across processes', () => {
  it('shares the ids among consumers, each id to one of them', async () => {
    const p = testRedisPrefix('shared');
    prefixes.push(p);
    const [a, b] = [redisQueue(p.prefix, 3), redisQueue(p.prefix, 3)];
    queues.push(a, b);
    const got: Record<string, string[]> = { a: [], b: [] };
    const take = (name: 'a' | 'b') => async (id: string) => {
      got[name]!.push(id);
      await sleep(5);
    };
    a.consume(take('a'));
    b.consume(take('b'));
    const ids = Array.from({ length: 40 }, (_, i) => `job-${i}`);
    await Promise.all(ids.map((id, i) => (i % 2 === 0 ? a : b).enqueue(id)));
    await until(() => got['a']!.length + got['b']!.length === 40);
    await sleep(200);
    const all = [...got['a']!, ...got['b']!];
    expect(all.sort()).toEqual([...ids].sort());
    expect(got['a']!.length).toBeGreaterThan(0);
    expect(got['b']!.length).toBeGreaterThan(0);
  });

  it('delivers again an id held by a process that was killed, once its heartbeat expires', async () => {
    const p = testRedisPrefix('crash');
    prefixes.push(p);
    // A real process takes the id and dies with it (SIGKILL): nothing of it acknowledges or hands back.
    const script = `
      const { Redis } = await import('ioredis');
      const { RedisJobQueue } = await import(${JSON.stringify(distEntry('src/jobs/redis-job-queue.js'))});
      const queue = new RedisJobQueue(new Redis(${JSON.stringify(REDIS_URL)}), { concurrency: 1, prefix: ${JSON.stringify(p.prefix)}, consumerTtlMs: 600 });
      queue.consume((id) => { process.stdout.write('took ' + id + '\\n'); return new Promise(() => {}); });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const survivor = redisQueue(p.prefix, 1, 600);
      queues.push(survivor);
      await survivor.enqueue('held-by-the-dead');
      await until(() => output.includes('took held-by-the-dead'), 10_000);
      child.kill('SIGKILL');
      const got: string[] = [];
      const killedAt = Date.now();
      survivor.consume(async (id) => void got.push(id));
      await until(() => got.length === 1, 10_000);
      expect(got).toEqual(['held-by-the-dead']);
      // Not before the dead consumer's heartbeat (600 ms from its last beat) could expire.
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(150);
      // Acknowledged: it stays done.
      await sleep(1_000);
      expect(got).toEqual(['held-by-the-dead']);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('returns what it holds to the queue when it closes with handlers still running', async () => {
    const p = testRedisPrefix('handback');
    prefixes.push(p);
    const first = redisQueue(p.prefix, 1);
    const r = recorder();
    first.consume(r.handler);
    await first.enqueue('unfinished');
    await until(() => r.seen.length === 1);
    expect(await first.close(20)).toBe(false);
    expect(await first.close(20)).toBe(false);
    const second = redisQueue(p.prefix, 1);
    queues.push(second);
    const got: string[] = [];
    second.consume(async (id) => void got.push(id));
    await until(() => got.length === 1);
    expect(got).toEqual(['unfinished']);
    r.releaseAll();
  });
});
