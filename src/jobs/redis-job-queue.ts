import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { redisHealth } from '../platform/redis/redis-health.js';
import type { JobQueue, QueueHandler, QueueVerdict } from './job-queue.js';
import { newLeaseOwner } from './leased-runner.js';

/**
 * Lua scripts: every change to the queue's structures is one atomic script, so the `ids` set
 * always matches what sits in `waiting`, `delayed` and the consumers' `processing` lists.
 * Times come from the Redis server (TIME), so hosts' clocks never disagree about a delay.
 */
/** Lua that runs `then` and returns 1 when `condition` (a call that moves ARGV[1]) holds, else returns 0. */
const onlyIf = (condition: string, then: string): string => `
if ${condition} then
  ${then}
  return 1
end
return 0`;

const SCRIPTS = {
  /** KEYS: ids, waiting. ARGV: id. Adds unless present anywhere. */
  gwqEnqueue: { keys: 2, lua: onlyIf("redis.call('SADD', KEYS[1], ARGV[1]) == 1", "redis.call('LPUSH', KEYS[2], ARGV[1])") },
  /** KEYS: processing, ids. ARGV: id. Done with; a no-op when a reaper already moved it away. */
  gwqAck: { keys: 2, lua: onlyIf("redis.call('LREM', KEYS[1], 1, ARGV[1]) > 0", "redis.call('SREM', KEYS[2], ARGV[1])") },
  /** KEYS: processing, waiting, delayed. ARGV: id, delay ms. Hands the id out again, now or later. */
  gwqRetry: {
    keys: 3,
    lua: `
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then return 0 end
local delay = tonumber(ARGV[2])
if delay <= 0 then
  redis.call('LPUSH', KEYS[2], ARGV[1])
else
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[3], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + delay, ARGV[1])
end
return 1`,
  },
  /** KEYS: delayed, waiting. ARGV: most to move. Moves due ids; returns ms until the next one is due, or -1. */
  gwqPromoteDue: {
    keys: 2,
    lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('LPUSH', KEYS[2], id)
end
local next = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if next[2] == nil then return -1 end
return math.max(0, tonumber(next[2]) - now)`,
  },
  /** KEYS: delayed, waiting. ARGV: id. A delayed id becomes due now. */
  gwqPromote: { keys: 2, lua: onlyIf("redis.call('ZREM', KEYS[1], ARGV[1]) == 1", "redis.call('LPUSH', KEYS[2], ARGV[1])") },
  /**
   * KEYS: processing of a consumer, waiting, consumers, its heartbeat. ARGV: consumer, force.
   * Unless the consumer is alive (or `force`), its unfinished ids go to the delivery end of
   * `waiting` and it is forgotten. Returns how many ids moved, or -1 when it is alive.
   */
  gwqRequeueConsumer: {
    keys: 4,
    lua: `
if ARGV[2] ~= '1' and redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
local moved = 0
local id = redis.call('RPOP', KEYS[1])
while id do
  redis.call('RPUSH', KEYS[2], id)
  moved = moved + 1
  id = redis.call('RPOP', KEYS[1])
end
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[4])
return moved`,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;

export interface RedisJobQueueOptions {
  readonly concurrency: number;
  /** Prefix of the queue's keys (REDIS_KEY_PREFIX). */
  readonly prefix: string;
  /**
   * A consumer not heard from for this long is presumed dead and its unfinished ids are
   * delivered again; it says it is alive every third of it.
   */
  readonly consumerTtlMs: number;
  readonly logger?: Logger;
  /** This consumer's name; `host/pid/random` when absent. */
  readonly consumer?: string;
}

/**
 * A reliable queue on Redis lists. A consumer takes an id with BLMOVE from `waiting` into its own
 * `processing` list, so the id is never only in flight: when the handler returns the id is
 * acknowledged (or handed back, delayed), and when the process dies its heartbeat key expires and
 * any live consumer moves its `processing` ids back to `waiting`. Keys share the `{jobq}` hash
 * tag (one Redis Cluster slot).
 */
export class RedisJobQueue implements JobQueue {
  readonly backend = 'redis' as const;
  /** Unique per process start (the job lease owner, `host/pid/random`). */
  readonly consumer: string;
  private readonly blocking: Redis;
  private handler: QueueHandler | null = null;
  private readonly runningIds = new Set<string>();
  private closeCalls = 0;
  private closed = false;
  private released = false;
  private waitingCount = 0;
  private tickTimer: NodeJS.Timeout | null = null;
  private slotWaiter: (() => void) | null = null;
  private idleWaiters: (() => void)[] = [];
  private loopDone: Promise<void> = Promise.resolve();
  private readonly keys: { ids: string; waiting: string; delayed: string; consumers: string };

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisJobQueueOptions,
  ) {
    this.consumer = options.consumer ?? newLeaseOwner();
    const base = `${options.prefix}:{jobq}`;
    this.keys = { ids: `${base}:ids`, waiting: `${base}:waiting`, delayed: `${base}:delayed`, consumers: `${base}:consumers` };
    for (const [name, script] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys: script.keys, lua: script.lua });
    // BLMOVE holds its connection while it waits: it gets one of its own.
    this.blocking = redis.duplicate();
    this.blocking.on('error', (error: Error) => this.options.logger?.debug({ err: error }, 'job queue connection error'));
  }

  static connect(url: string, options: RedisJobQueueOptions): RedisJobQueue {
    const redis = new Redis(url, { maxRetriesPerRequest: 2 });
    redis.on('error', (error: Error) => options.logger?.debug({ err: error }, 'job queue connection error'));
    return new RedisJobQueue(redis, options);
  }

  private processingKey(consumer: string): string {
    return `${this.options.prefix}:{jobq}:processing:${consumer}`;
  }

  private aliveKey(consumer: string): string {
    return `${this.options.prefix}:{jobq}:alive:${consumer}`;
  }

  private run(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<number> {
    const command = (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<number>>)[name]!;
    return command.call(this.redis, ...keys, ...args);
  }

  async enqueue(jobId: string): Promise<void> {
    await this.run('gwqEnqueue', [this.keys.ids, this.keys.waiting], [jobId]);
  }

  async promote(jobId: string): Promise<boolean> {
    return (await this.run('gwqPromote', [this.keys.delayed, this.keys.waiting], [jobId])) === 1;
  }

  consume(handler: QueueHandler): void {
    if (this.handler !== null) throw new Error('the queue already has a consumer');
    this.handler = handler;
    void this.tick();
    this.loopDone = this.loop();
  }

  waiting(): number {
    return this.waitingCount;
  }

  running(): number {
    return this.runningIds.size;
  }

  /** Heartbeat, then the reaper: consumers whose heartbeat expired lose their unfinished ids to `waiting`. */
  private async tick(): Promise<void> {
    if (this.closed) return;
    try {
      await this.redis.multi().set(this.aliveKey(this.consumer), '1', 'PX', this.options.consumerTtlMs).sadd(this.keys.consumers, this.consumer).exec();
      for (const consumer of await this.redis.smembers(this.keys.consumers)) {
        if (consumer === this.consumer) continue;
        const moved = await this.run(
          'gwqRequeueConsumer',
          [this.processingKey(consumer), this.keys.waiting, this.keys.consumers, this.aliveKey(consumer)],
          [consumer, '0'],
        );
        if (moved > 0) this.options.logger?.warn({ consumer, jobs: moved }, 'queued again the jobs of a gateway process that stopped');
      }
      this.waitingCount = await this.redis.llen(this.keys.waiting);
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'job queue heartbeat failed');
    } finally {
      if (!this.closed) {
        this.tickTimer = setTimeout(() => void this.tick(), Math.max(100, Math.floor(this.options.consumerTtlMs / 3)));
        this.tickTimer.unref();
      }
    }
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      if (this.runningIds.size >= this.options.concurrency) {
        await new Promise<void>((resolve) => (this.slotWaiter = resolve));
        continue;
      }
      try {
        const nextDueMs = await this.run('gwqPromoteDue', [this.keys.delayed, this.keys.waiting], [100]);
        // Wake in time for the next delayed id; otherwise look again every second (closing, reaped ids).
        const waitMs = nextDueMs < 0 ? 1000 : Math.min(1000, Math.max(10, nextDueMs));
        const id = await this.blocking.blmove(this.keys.waiting, this.processingKey(this.consumer), 'RIGHT', 'LEFT', (waitMs / 1000).toFixed(3));
        if (id !== null) this.dispatch(id);
      } catch (error) {
        if (this.closed) break;
        this.options.logger?.warn({ err: error }, 'job queue could not take the next job; retrying');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  private dispatch(id: string): void {
    const handler = this.handler!;
    this.runningIds.add(id);
    void (async () => {
      let verdict: QueueVerdict = undefined;
      try {
        verdict = await handler(id);
      } catch {
        // The handler records its own failures on the job.
      }
      try {
        if (this.released) return;
        if (verdict)
          await this.run('gwqRetry', [this.processingKey(this.consumer), this.keys.waiting, this.keys.delayed], [id, Math.round(verdict.retryAfterMs)]);
        else await this.run('gwqAck', [this.processingKey(this.consumer), this.keys.ids], [id]);
      } catch (error) {
        // Left in our processing list: delivered again after this process stops.
        this.options.logger?.warn({ err: error, jobId: id }, 'job queue could not acknowledge a job');
      } finally {
        this.runningIds.delete(id);
        const wake = this.slotWaiter;
        this.slotWaiter = null;
        wake?.();
        if (this.runningIds.size === 0) for (const idle of this.idleWaiters.splice(0)) idle();
      }
    })();
  }

  async close(timeoutMs: number): Promise<boolean> {
    this.closeCalls++;
    if (!this.closed) {
      this.closed = true;
      if (this.tickTimer !== null) clearTimeout(this.tickTimer);
      // Interrupts a waiting BLMOVE; an id it took meanwhile is returned by release().
      this.blocking.disconnect();
      const wake = this.slotWaiter;
      this.slotWaiter = null;
      wake?.();
      await this.loopDone;
    }
    const idle =
      this.runningIds.size === 0 ||
      (await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        this.idleWaiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      }));
    if (idle || this.closeCalls >= 2) await this.release();
    return idle;
  }

  /** Returns what this consumer still holds to `waiting`, forgets the consumer, closes the connection. */
  private async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      await this.run(
        'gwqRequeueConsumer',
        [this.processingKey(this.consumer), this.keys.waiting, this.keys.consumers, this.aliveKey(this.consumer)],
        [this.consumer, '1'],
      );
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'job queue could not hand back its jobs; they return when its heartbeat expires');
    }
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    if (this.released) return { ok: false, detail: 'closed' };
    return redisHealth(this.redis);
  }
}
