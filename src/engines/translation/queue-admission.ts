/**
 * Admission to the translation queue, per decoding mode (pure; the engine owns one of each).
 * An admitted request holds room from admission until it ends: a text request (greedy) all of its
 * sentences, a file job's request (beam) the window of sentences it keeps queued. A request gets
 * in only when its whole hold fits both the mode's room (`maxQueued` sentences) and its tenant's
 * share (`maxQueuedPerTenant`), so no request, however large, overfills the queue and no tenant
 * takes the room of all others. A refusal says how long the sentences in the way should take to
 * drain at the rate the worker has shown (`DrainRate`).
 */
import type { TranslationMode } from './translation-engine.js';

export interface AdmissionLimits {
  /** Sentences held in all, per mode. */
  readonly maxQueued: number;
  /** Sentences one tenant holds at most, per mode. */
  readonly maxQueuedPerTenant: number;
}

/** Why a request did not get in: the hold that is full, what it holds and its limit. */
export interface Refusal {
  readonly reason: 'queue' | 'tenant';
  readonly held: number;
  readonly limit: number;
}

interface Holds {
  total: number;
  readonly byTenant: Map<string, number>;
}

export class QueueRoom {
  private readonly holds: Record<TranslationMode, Holds> = {
    greedy: { total: 0, byTenant: new Map() },
    beam: { total: 0, byTenant: new Map() },
  };

  constructor(readonly limits: AdmissionLimits) {}

  heldIn(mode: TranslationMode): number {
    return this.holds[mode].total;
  }

  heldBy(mode: TranslationMode, tenant: string): number {
    return this.holds[mode].byTenant.get(tenant) ?? 0;
  }

  /** Holds `sentences` for `tenant`, or says why not (nothing is held then). */
  tryHold(mode: TranslationMode, tenant: string, sentences: number): Refusal | null {
    const holds = this.holds[mode];
    const byTenant = this.heldBy(mode, tenant);
    if (byTenant + sentences > this.limits.maxQueuedPerTenant) return { reason: 'tenant', held: byTenant, limit: this.limits.maxQueuedPerTenant };
    if (holds.total + sentences > this.limits.maxQueued) return { reason: 'queue', held: holds.total, limit: this.limits.maxQueued };
    holds.total += sentences;
    holds.byTenant.set(tenant, byTenant + sentences);
    return null;
  }

  release(mode: TranslationMode, tenant: string, sentences: number): void {
    const holds = this.holds[mode];
    const left = this.heldBy(mode, tenant) - sentences;
    holds.total = Math.max(0, holds.total - sentences);
    if (left > 0) holds.byTenant.set(tenant, left);
    else holds.byTenant.delete(tenant);
  }
}

/** Weight of the newest batch in the moving rate. */
const RATE_SMOOTHING = 0.2;
/** Bounds of a `retryAfterSeconds`. */
export const RETRY_AFTER_MIN_SECONDS = 1;
export const RETRY_AFTER_MAX_SECONDS = 60;

/** Sentences per second of worker time, per mode, as an exponential moving average of batches. */
export class DrainRate {
  private readonly rates: Record<TranslationMode, number | null> = { greedy: null, beam: null };

  observe(mode: TranslationMode, sentences: number, workerMs: number): void {
    if (sentences <= 0 || workerMs <= 0) return;
    const rate = (sentences * 1000) / workerMs;
    const before = this.rates[mode];
    this.rates[mode] = before === null ? rate : before + RATE_SMOOTHING * (rate - before);
  }

  /** Sentences per second, or null before the first batch of the mode. */
  rate(mode: TranslationMode): number | null {
    return this.rates[mode];
  }
}

/**
 * Seconds until a refused request of `sentences` may fit: the sentences held beyond room for it,
 * drained at `rate` (shared by `sharers` tenants round-robin for a tenant's own share), whole
 * seconds within [1, 60]; 1 before any rate is known.
 */
export function retryAfterSeconds(refusal: Refusal, sentences: number, rate: number | null, sharers: number): number {
  if (rate === null || rate <= 0) return RETRY_AFTER_MIN_SECONDS;
  const excess = refusal.held + sentences - refusal.limit;
  const share = refusal.reason === 'tenant' ? rate / Math.max(1, sharers) : rate;
  const seconds = Math.ceil(excess / share);
  return Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(RETRY_AFTER_MIN_SECONDS, seconds));
}
