// Sessions a client may resume after its connection drops (docs/streaming.md "Resuming a
// session"). Pure: no sockets, no timers; the caller passes the clock.
//
// Every resumable session has an opaque token (`ready.resume_token`), bound to the API key that
// opened it; only its SHA-256 is kept. A session is `attached` while a socket carries it and
// `parked` from an abnormal close until it is resumed or its window ends; `expire` hands back
// the parked sessions whose window ended (the caller finalises them). At most `maxParked`
// sessions are parked at once: parking one more finalises the one parked longest.
import { createHash, randomBytes } from 'node:crypto';

const TOKEN_PATTERN = /^wsr_[A-Za-z0-9_-]{43}$/;

export interface ResumeHandle {
  readonly tokenHash: string;
}

interface Entry<T> {
  readonly keyId: string;
  readonly value: T;
  /** When the session was parked; null while a socket carries it. */
  parkedAt: number | null;
}

export type ResumeLookup<T> =
  | { readonly ok: true; readonly value: T; readonly handle: ResumeHandle; readonly parkedAt: number | null }
  | { readonly ok: false; readonly reason: 'unknown' | 'wrong_key' };

export interface ResumableSessionsOptions {
  /** How long a parked session waits for its client, ms; 0 disables resuming. */
  readonly windowMs: number;
  readonly maxParked: number;
}

export class ResumableSessions<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Parked sessions in the order they were parked (token hashes). */
  private readonly parkedOrder = new Set<string>();

  constructor(private readonly options: ResumableSessionsOptions) {}

  get enabled(): boolean {
    return this.options.windowMs > 0;
  }

  get windowMs(): number {
    return this.options.windowMs;
  }

  get parkedCount(): number {
    return this.parkedOrder.size;
  }

  get size(): number {
    return this.entries.size;
  }

  /** A new attached session of `keyId`: its token (give it to the client once) and its handle. */
  register(keyId: string, value: T): { token: string; handle: ResumeHandle } {
    const token = `wsr_${randomBytes(32).toString('base64url')}`;
    const tokenHash = hashToken(token);
    this.entries.set(tokenHash, { keyId, value, parkedAt: null });
    return { token, handle: { tokenHash } };
  }

  /** The session lost its socket: parked from `now`. Returns the sessions pushed out to keep within maxParked (the caller finalises them). */
  park(handle: ResumeHandle, now: number): T[] {
    const entry = this.entries.get(handle.tokenHash);
    if (entry === undefined || entry.parkedAt !== null) return [];
    entry.parkedAt = now;
    this.parkedOrder.add(handle.tokenHash);
    const evicted: T[] = [];
    for (const hash of this.parkedOrder) {
      if (this.parkedOrder.size <= this.options.maxParked) break;
      evicted.push(this.entries.get(hash)!.value);
      this.drop(hash);
    }
    return evicted;
  }

  /**
   * The session of `token` for a client authenticated as `keyId`: unknown (never issued, the
   * session ended, or its window passed) or another key's. Changes nothing; `attach` takes it.
   */
  find(token: string, keyId: string, now: number): ResumeLookup<T> {
    if (!this.enabled || !TOKEN_PATTERN.test(token)) return { ok: false, reason: 'unknown' };
    const tokenHash = hashToken(token);
    const entry = this.entries.get(tokenHash);
    if (entry === undefined) return { ok: false, reason: 'unknown' };
    if (entry.parkedAt !== null && now - entry.parkedAt >= this.options.windowMs) return { ok: false, reason: 'unknown' };
    if (entry.keyId !== keyId) return { ok: false, reason: 'wrong_key' };
    return { ok: true, value: entry.value, handle: { tokenHash }, parkedAt: entry.parkedAt };
  }

  /** A socket carries the session again (resumed, or taken over from an older socket). */
  attach(handle: ResumeHandle): void {
    const entry = this.entries.get(handle.tokenHash);
    if (entry === undefined) return;
    entry.parkedAt = null;
    this.parkedOrder.delete(handle.tokenHash);
  }

  /** The session ended (completed, failed, finalised): its token resumes nothing any more. */
  remove(handle: ResumeHandle): void {
    this.drop(handle.tokenHash);
  }

  /** Parked sessions whose window has passed, removed from the registry (the caller finalises them). */
  expire(now: number): T[] {
    const expired: T[] = [];
    for (const hash of this.parkedOrder) {
      const entry = this.entries.get(hash)!;
      // Parked in order, so the first one still inside its window ends the scan.
      if (now - entry.parkedAt! < this.options.windowMs) break;
      expired.push(entry.value);
      this.drop(hash);
    }
    return expired;
  }

  /** Every parked session, removed (shutdown). */
  drainParked(): T[] {
    const all = [...this.parkedOrder].map((hash) => this.entries.get(hash)!.value);
    for (const hash of [...this.parkedOrder]) this.drop(hash);
    return all;
  }

  private drop(hash: string): void {
    this.entries.delete(hash);
    this.parkedOrder.delete(hash);
  }
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
