import { Redis } from 'ioredis';
import type { ConnectionSlots } from './connection-slots.js';

/**
 * Slots are members of one sorted set per key, scored by the time their lease ends (Redis's own
 * clock, so gateways need not agree on time). This process renews the leases of the slots it
 * holds every third of the lease; a gateway that stops without releasing loses its slots when
 * their leases end, so a crash frees a key's connections within one lease.
 *
 * ACQUIRE  KEYS: the key's set. ARGV: limit, lease ms, slot id. Drops ended leases, then adds the
 *          slot if the set holds fewer than `limit` (an already held slot is renewed): 1, else 0.
 * RENEW    KEYS: the key's set. ARGV: lease ms, slot ids.
 * COUNT    KEYS: the key's set. Slots whose lease has not ended.
 */
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const ACQUIRE_SCRIPT = `
${NOW}
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
redis.call('PEXPIRE', KEYS[1], lease * 2)
return 1
`;

const RENEW_SCRIPT = `
${NOW}
local lease = tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + lease, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], lease * 2)
return #ARGV - 1
`;

const COUNT_SCRIPT = `
${NOW}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`;

type ScriptCall = (...args: unknown[]) => Promise<number>;

export interface RedisConnectionSlotsOptions {
  /** Lease of a slot; renewed every third of it while held. Default 30 s. */
  readonly leaseMs?: number;
}

export class RedisConnectionSlots implements ConnectionSlots {
  readonly backend = 'redis' as const;
  private readonly leaseMs: number;
  /** Slots this process holds: slot id -> key id. */
  private readonly held = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private readonly scripts: Record<'acquire' | 'renew' | 'count', ScriptCall>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'gw:ws',
    options: RedisConnectionSlotsOptions = {},
  ) {
    this.leaseMs = Math.max(100, options.leaseMs ?? 30_000);
    redis.defineCommand('gatewaySlotAcquire', { numberOfKeys: 1, lua: ACQUIRE_SCRIPT });
    redis.defineCommand('gatewaySlotRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    redis.defineCommand('gatewaySlotCount', { numberOfKeys: 1, lua: COUNT_SCRIPT });
    const commands = redis as unknown as Record<string, ScriptCall>;
    this.scripts = {
      acquire: commands['gatewaySlotAcquire']!.bind(redis),
      renew: commands['gatewaySlotRenew']!.bind(redis),
      count: commands['gatewaySlotCount']!.bind(redis),
    };
    this.timer = setInterval(() => void this.renew(), Math.floor(this.leaseMs / 3));
    this.timer.unref();
  }

  static connect(url: string, prefix = 'gw:ws', options: RedisConnectionSlotsOptions = {}): RedisConnectionSlots {
    return new RedisConnectionSlots(new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false }), prefix, options);
  }

  /** `{keyId}` is a hash tag: one key's set lives in one cluster slot. */
  private setKey(keyId: string): string {
    return `${this.prefix}:{${keyId}}`;
  }

  async tryAcquire(keyId: string, slotId: string, limit: number): Promise<boolean> {
    const taken = (await this.scripts.acquire(this.setKey(keyId), String(limit), String(this.leaseMs), slotId)) === 1;
    if (taken) this.held.set(slotId, keyId);
    return taken;
  }

  async release(keyId: string, slotId: string): Promise<void> {
    this.held.delete(slotId);
    await this.redis.zrem(this.setKey(keyId), slotId);
  }

  async count(keyId: string): Promise<number> {
    return Number(await this.scripts.count(this.setKey(keyId)));
  }

  /** Renews every held slot's lease, one script call per key. A failed renewal is retried on the next tick. */
  async renew(): Promise<void> {
    const byKey = new Map<string, string[]>();
    for (const [slotId, keyId] of this.held) {
      const slots = byKey.get(keyId) ?? [];
      slots.push(slotId);
      byKey.set(keyId, slots);
    }
    await Promise.all([...byKey].map(([keyId, slots]) => this.scripts.renew(this.setKey(keyId), String(this.leaseMs), ...slots).catch(() => 0)));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
