/**
 * A small key → JSON value cache with per-entry expiry. Implementations: in-process (one
 * gateway) and Redis (shared by several gateways). Values must survive JSON round trips.
 */
export interface Cache {
  readonly backend: 'in-process' | 'redis';
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  close(): Promise<void>;
}
