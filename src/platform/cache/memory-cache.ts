import type { Cache } from './cache.js';

interface Entry {
  readonly json: string;
  readonly expiresAt: number;
}

/**
 * In-process cache bounded by entry count. Values are stored as JSON text, so callers get a
 * fresh copy on every read (as they would from Redis). When full, expired entries go first,
 * then the oldest inserted.
 */
export class MemoryCache implements Cache {
  readonly backend = 'in-process' as const;
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get<T>(key: string): Promise<T | null> {
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return null;
    }
    return JSON.parse(entry.json) as T;
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.evict();
    this.entries.set(key, { json: JSON.stringify(value), expiresAt: this.now() + ttlSeconds * 1000 });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private evict(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    // Maps iterate in insertion order: the first keys are the oldest.
    for (const key of this.entries.keys()) {
      if (this.entries.size < this.maxEntries) break;
      this.entries.delete(key);
    }
  }

  async health(): Promise<{ ok: boolean }> {
    return { ok: true };
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
