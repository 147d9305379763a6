/**
 * Open WebSocket sessions per API key (spec: Limits, 5 per key, 4029 past it). A slot is taken
 * on the upgrade, after authentication, and given back when the socket closes or the upgrade is
 * abandoned. Implementations: in-process memory (one gateway) and Redis (every gateway that
 * shares it counts the same slots; RATE_LIMIT_BACKEND=redis).
 */
export interface ConnectionSlots {
  readonly backend: 'memory' | 'redis';
  /** Takes `slotId` for `keyId` unless the key already holds `limit` slots; true when taken. */
  tryAcquire(keyId: string, slotId: string, limit: number): Promise<boolean>;
  /** Gives the slot back; releasing a slot that is not held does nothing. */
  release(keyId: string, slotId: string): Promise<void>;
  /** Slots the key holds now. */
  count(keyId: string): Promise<number>;
  close(): Promise<void>;
}

export class MemoryConnectionSlots implements ConnectionSlots {
  readonly backend = 'memory' as const;
  private readonly slots = new Map<string, Set<string>>();

  async tryAcquire(keyId: string, slotId: string, limit: number): Promise<boolean> {
    const held = this.slots.get(keyId) ?? new Set<string>();
    if (held.has(slotId)) return true;
    if (held.size >= limit) return false;
    held.add(slotId);
    this.slots.set(keyId, held);
    return true;
  }

  async release(keyId: string, slotId: string): Promise<void> {
    const held = this.slots.get(keyId);
    if (!held) return;
    held.delete(slotId);
    if (held.size === 0) this.slots.delete(keyId);
  }

  async count(keyId: string): Promise<number> {
    return this.slots.get(keyId)?.size ?? 0;
  }

  async close(): Promise<void> {
    this.slots.clear();
  }
}
