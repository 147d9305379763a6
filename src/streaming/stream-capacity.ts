// The live capacity of this gateway for streams, from what inference actually costs here.
//
// Every recognised piece reports its audio seconds and the pool's figures for it: the worker's
// time on its batch (features, model run and decoding) divided by the batch size is what the
// piece cost. Time-decayed sums
// (half-life `halfLifeMs`) give
//   - cost: worker seconds per audio second (batching, contention and model speed included),
//   - load: worker seconds consumed per wall second by the streams now open,
//   - utilisation: load / workers, and per session load / live sessions,
//   - the inference queue wait the pieces saw (smoothed), which catches what the estimate misses
//     (REST jobs or other processes on the same cores),
//   - shed: the worker seconds that skipped partials would have cost (their audio at the measured
//     cost). Levels and admission go by demand = load + shed: shedding partials lowers the load but
//     not what the open sessions ask for, so it must not make room for more sessions (that feedback
//     admitted a third more sessions than fit and sent p95 turn latency past 500 ms).
// From these the gateway decides, in order: partials off, larger batches, then refusing new
// sessions. Finals and turns of admitted sessions are never shed. Pure: time is passed in.
//
// Host CPU (opt-in, `hostFullAt` > 0): the workers' own time misses the time they wait for a core
// that the event loop, Silero or other processes hold. The caller reports the host's busy core
// seconds (all processes); a decayed sum gives the host's utilisation (busy cores / `hostCores`).
// At `hostFullAt` the level is full, and a new session is refused when the host load a warm session
// brings (the host's busy cores over the warm sessions: everything else on the host is charged to
// them, so it errs on refusing) would take the host there.

export type OverloadLevel = 'normal' | 'partials_off' | 'larger_batches' | 'full';

const LEVELS: readonly OverloadLevel[] = ['normal', 'partials_off', 'larger_batches', 'full'];

export interface CapacitySettings {
  /** Inference workers (each runs one batch at a time). */
  readonly workers: number;
  /** Utilisation from which partial results stop (0..1). */
  readonly partialsOffAt: number;
  /** Utilisation from which interactive batches wait longer to fill. */
  readonly largerBatchesAt: number;
  /** Utilisation (projected with one more session) from which new sessions are refused. */
  readonly fullAt: number;
  /** Smoothed inference queue wait (ms) that counts as full whatever the utilisation. */
  readonly maxQueueWaitMs: number;
  /** A fixed cap on live sessions; 0: the estimate alone decides. */
  readonly maxSessions: number;
  /** Half-life of the decayed sums. */
  readonly halfLifeMs: number;
  /** Host utilisation (busy cores / hostCores) that counts as full; 0: host CPU not watched. */
  readonly hostFullAt: number;
  /** The host's cores (what its busy core seconds are measured against). */
  readonly hostCores: number;
  /** A level is left only when utilisation falls this far below its threshold (no flapping). */
  readonly hysteresis: number;
}

export const DEFAULT_CAPACITY: Omit<CapacitySettings, 'workers'> = {
  partialsOffAt: 0.6,
  largerBatchesAt: 0.75,
  fullAt: 0.85,
  maxQueueWaitMs: 150,
  maxSessions: 0,
  halfLifeMs: 5_000,
  hysteresis: 0.1,
  hostFullAt: 0,
  hostCores: 1,
};

export interface PieceCost {
  /** The worker's time on the piece's whole batch (features, run, decoding). */
  readonly workerMs: number;
  readonly batchSize: number;
  readonly queueWaitMs: number;
}

export interface CapacityEstimate {
  readonly level: OverloadLevel;
  /** Worker seconds per audio second; null before the first measured piece. */
  readonly costPerAudioSecond: number | null;
  /** Worker seconds consumed per second by stream pieces. */
  readonly load: number;
  /** load + the worker seconds per second that skipped partials would have cost. */
  readonly demand: number;
  /** load / workers (what the workers do now). */
  readonly utilization: number;
  /** demand / workers: what levels and admission go by. */
  readonly demandUtilization: number;
  readonly queueWaitMs: number;
  /** The host's busy cores / hostCores (all processes); null when host CPU is not watched or not yet reported. */
  readonly hostUtilization: number | null;
  /** Sessions this gateway can hold at `fullAt` (and `hostFullAt`); null while there is nothing to estimate from. */
  readonly capacitySessions: number | null;
}

export type Admission = { readonly admitted: true } | { readonly admitted: false; readonly reason: string; readonly retryAfterSeconds: number };

/** An exponentially decayed sum: each amount loses half its weight every half-life. */
class DecayedSum {
  private value = 0;
  private at = 0;
  constructor(private readonly tauMs: number) {}
  add(now: number, amount: number): void {
    this.value = this.read(now) + amount;
    this.at = now;
  }
  read(now: number): number {
    return now <= this.at ? this.value : this.value * Math.exp(-(now - this.at) / this.tauMs);
  }
}

export class StreamCapacity {
  private readonly tauMs: number;
  private readonly workerSeconds: DecayedSum;
  private readonly audioSeconds: DecayedSum;
  private readonly waitWeighted: DecayedSum;
  private readonly pieces: DecayedSum;
  private readonly shedWorkerSeconds: DecayedSum;
  private readonly hostBusySeconds: DecayedSum;
  /** Where the first host CPU reading's interval began (the sum holds a full rate only after about tau). */
  private hostSince: number | null = null;
  private level: OverloadLevel = 'normal';

  constructor(readonly settings: CapacitySettings) {
    this.tauMs = settings.halfLifeMs / Math.LN2;
    this.workerSeconds = new DecayedSum(this.tauMs);
    this.audioSeconds = new DecayedSum(this.tauMs);
    this.waitWeighted = new DecayedSum(this.tauMs);
    this.pieces = new DecayedSum(this.tauMs);
    this.shedWorkerSeconds = new DecayedSum(this.tauMs);
    this.hostBusySeconds = new DecayedSum(this.tauMs);
  }

  /** The host's busy core seconds (all processes) between two readings, `from` to `now` (hostFullAt > 0). */
  recordHostCpu(from: number, now: number, busyCoreSeconds: number): void {
    if (this.settings.hostFullAt <= 0 || busyCoreSeconds < 0 || now <= from) return;
    this.hostSince ??= from;
    this.hostBusySeconds.add(now, busyCoreSeconds);
  }

  /** Busy cores now (decayed rate, scaled up while the sum is younger than tau); null when not watched or not reported. */
  private hostLoad(now: number): number | null {
    if (this.settings.hostFullAt <= 0 || this.hostSince === null) return null;
    const filled = 1 - Math.exp(-(now - this.hostSince) / this.tauMs);
    return filled < 0.05 ? null : this.hostBusySeconds.read(now) / (this.tauMs / 1000) / filled;
  }

  /** A recognised streaming piece (turn, final or partial) and what the pool reported for it. */
  record(now: number, audioSeconds: number, cost: PieceCost): void {
    if (audioSeconds <= 0) return;
    this.workerSeconds.add(now, cost.workerMs / 1000 / Math.max(1, cost.batchSize));
    this.audioSeconds.add(now, audioSeconds);
    this.waitWeighted.add(now, cost.queueWaitMs);
    this.pieces.add(now, 1);
  }

  /** A partial result skipped under overload: its audio at the measured cost counts as demand. */
  recordShed(now: number, audioSeconds: number): void {
    if (audioSeconds <= 0) return;
    const audio = this.audioSeconds.read(now);
    if (audio <= 1e-9) return;
    this.shedWorkerSeconds.add(now, (audioSeconds * this.workerSeconds.read(now)) / audio);
  }

  /**
   * How much of a session's steady load the decayed sums hold after it has been open `ageMs`:
   * 0 for a new one, 1 - e^(-age/tau) after that. The load per session is taken over the sum of
   * these weights (`measuredSessions`), so that a fast ramp of new sessions, which cost nothing yet,
   * does not dilute it.
   */
  sessionWeight(ageMs: number): number {
    return ageMs <= 0 ? 0 : 1 - Math.exp(-ageMs / this.tauMs);
  }

  /** `warmSessions`: the live sessions' summed `sessionWeight` (default: all of them, fully). */
  estimate(now: number, liveSessions: number, warmSessions: number = liveSessions): CapacityEstimate {
    const { workers, fullAt } = this.settings;
    const worker = this.workerSeconds.read(now);
    const audio = this.audioSeconds.read(now);
    const pieces = this.pieces.read(now);
    // A decayed sum over tau is a rate per tau: load in worker seconds per second.
    const load = worker / (this.tauMs / 1000);
    const demand = load + this.shedWorkerSeconds.read(now) / (this.tauMs / 1000);
    const utilization = load / Math.max(1, workers);
    const demandUtilization = demand / Math.max(1, workers);
    // Averaged over at least one piece: with no recent pieces the old waits fade instead of staying.
    const queueWaitMs = this.waitWeighted.read(now) / Math.max(1, pieces);
    const perSession = liveSessions > 0 ? demand / Math.max(1, Math.min(liveSessions, warmSessions)) : 0;
    let capacitySessions = perSession > 1e-9 ? Math.floor((fullAt * workers) / perSession) : null;
    const hostLoad = this.hostLoad(now);
    const hostUtilization = hostLoad === null ? null : hostLoad / Math.max(1, this.settings.hostCores);
    const hostPerSession = hostLoad !== null && liveSessions > 0 ? hostLoad / Math.max(1, Math.min(liveSessions, warmSessions)) : 0;
    if (hostPerSession > 1e-9) {
      const byHost = Math.floor((this.settings.hostFullAt * this.settings.hostCores) / hostPerSession);
      capacitySessions = Math.min(capacitySessions ?? byHost, byHost);
    }
    if (this.settings.maxSessions > 0) capacitySessions = Math.min(capacitySessions ?? this.settings.maxSessions, this.settings.maxSessions);
    this.level = this.nextLevel(demandUtilization, queueWaitMs, hostUtilization);
    return {
      level: this.level,
      costPerAudioSecond: audio > 1e-9 ? worker / audio : null,
      load,
      demand,
      utilization,
      demandUtilization,
      queueWaitMs,
      hostUtilization,
      capacitySessions,
    };
  }

  /** Whether one more session may open now, with `liveSessions` open. */
  admit(now: number, liveSessions: number, warmSessions: number = liveSessions): Admission {
    const { maxSessions, fullAt, workers, maxQueueWaitMs } = this.settings;
    const retryAfterSeconds = Math.max(1, Math.ceil((2 * this.settings.halfLifeMs) / 1000));
    if (maxSessions > 0 && liveSessions >= maxSessions)
      return { admitted: false, reason: `the server holds its limit of ${maxSessions} live sessions`, retryAfterSeconds };
    // An idle gateway always admits: a first session is how the cost gets measured.
    if (liveSessions === 0) return { admitted: true };
    const estimate = this.estimate(now, liveSessions, warmSessions);
    if (estimate.queueWaitMs > maxQueueWaitMs) return { admitted: false, reason: 'recognition is queueing behind the live sessions', retryAfterSeconds };
    // Full stays full until utilisation and queue wait are clearly below their bounds (hysteresis).
    if (estimate.level === 'full') {
      const hostBusy = estimate.hostUtilization !== null && estimate.hostUtilization >= this.settings.hostFullAt - this.settings.hysteresis;
      return { admitted: false, reason: hostBusy ? "the host's CPU is busy" : 'the live sessions use the recognition capacity', retryAfterSeconds };
    }
    // Every live session (warm or not yet) at the demand a warm one puts on the workers, plus one more.
    const perSession = estimate.demand / Math.max(1, Math.min(liveSessions, warmSessions));
    const projected = (perSession * (liveSessions + 1)) / Math.max(1, workers);
    if (projected >= fullAt) return { admitted: false, reason: 'the live sessions use the recognition capacity', retryAfterSeconds };
    if (estimate.hostUtilization !== null) {
      const hostProjected = (estimate.hostUtilization * (liveSessions + 1)) / Math.max(1, Math.min(liveSessions, warmSessions));
      if (hostProjected >= this.settings.hostFullAt) return { admitted: false, reason: "the host's CPU is busy", retryAfterSeconds };
    }
    return { admitted: true };
  }

  /** The level for this utilisation: up at once, down only past the hysteresis margin. */
  private nextLevel(utilization: number, queueWaitMs: number, hostUtilization: number | null): OverloadLevel {
    const { partialsOffAt, largerBatchesAt, fullAt, maxQueueWaitMs, hysteresis, hostFullAt } = this.settings;
    const thresholds = [0, partialsOffAt, largerBatchesAt, fullAt];
    const full = LEVELS.length - 1;
    let target = 0;
    for (let i = 1; i < thresholds.length; i++) if (utilization >= thresholds[i]!) target = i;
    if (queueWaitMs > maxQueueWaitMs) target = full;
    if (hostUtilization !== null && hostUtilization >= hostFullAt) target = full;
    let current = LEVELS.indexOf(this.level);
    if (target >= current) return LEVELS[target]!;
    const hostClear = hostUtilization === null || hostUtilization < hostFullAt - hysteresis;
    while (current > target && utilization < thresholds[current]! - hysteresis && queueWaitMs <= maxQueueWaitMs / 2 && (current < full || hostClear)) current--;
    return LEVELS[current]!;
  }
}
