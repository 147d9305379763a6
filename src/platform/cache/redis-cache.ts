import { Redis } from 'ioredis';
import { redisHealth } from '../redis/redis-health.js';
import type { Cache } from './cache.js';

/**
 * The cache shared by every gateway process: one Redis string per entry, JSON text, expiring
 * with PX. Redis applies its own memory policy; entries never outlive their time to live.
 */
export class RedisCache implements Cache {
  readonly backend = 'redis' as const;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  static connect(url: string, prefix: string): RedisCache {
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    // Connection errors surface on the calls (and in /health); the client reconnects by itself.
    redis.on('error', () => undefined);
    return new RedisCache(redis, prefix);
  }

  private key(key: string): string {
    return `${this.prefix}:cache:${key}`;
  }

  async get<T>(key: string): Promise<T | null> {
    const text = await this.redis.get(this.key(key));
    return text === null ? null : (JSON.parse(text) as T);
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    await this.redis.set(this.key(key), JSON.stringify(value), 'PX', Math.round(ttlSeconds * 1000));
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.key(key));
  }

  health(): Promise<{ ok: boolean; detail?: string }> {
    return redisHealth(this.redis);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
