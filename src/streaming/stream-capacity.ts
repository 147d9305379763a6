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
//   - shed: the worker seconds that skipped partials would have cost: their new audio at what the
//     partials computed lately cost per audio second (a live stream's step recomputes its
//     look-ahead tail, so partials cost several times a turn's second pass; before any partial was
//     measured, the all-pieces cost). Both partial sums decay alike, so their ratio is the last
//     measured partial cost however long partials stay off. Levels and admission go by demand =
//     load + shed: shedding partials lowers the load but not what the open sessions ask for, so it
//     must not make room for more sessions (that feedback admitted a third more sessions than fit
//     and sent p95 turn latency past 500 ms).
// From these the gateway decides, in order: partials thinned, larger batches, then refusing new
// sessions. Finals and turns of admitted sessions are never shed. Pure: time is passed in.
//
// Partials past `partialsOffAt` (any level above normal, `full` included) are thinned, not
// stopped: one due partial in `partialEvery` is computed (the others skipped and counted as shed),
// so every session still gets interim results, less often. Leaving `normal` starts at one in 2;
// then, at most once per `halfLifeMs` (the load sums need that long to show a change), one more is
// skipped while the workers' own utilisation is at or over `partialsOffAt` (up to
// `maxPartialStride`; at that, none while it is at or over `largerBatchesAt`, the widest again
// once it is `hysteresis` under `partialsOffAt`), one fewer once it is `hysteresis` under it. The
// thinning follows what the workers do, so turns keep their room; the level follows demand (every
// partial counted), so it stays until every partial would fit again. None are computed while the host's CPU is at
// `hostFullAt` (the workers' time does not show that contention), nor with `maxPartialStride` 0.
//
// Host CPU (`hostFullAt` > 0; off when 0): the workers' own time misses the time they wait for a
// core that the event loop, Silero, onnxruntime's threads or other processes hold. "The host" is
// the CPU this process may use: its cgroup's quota where one is set, else the machine
// (platform/metrics/cpu-budget.ts). The caller
// reports, per interval, the host's busy core seconds (all processes), this process's CPU seconds
// (all its threads) and the inference workers' busy seconds (all their work). Decayed sums give:
//   - host: the host's busy cores; its utilisation is host / `hostCores`; at `hostFullAt` the
//     level is full;
//   - sessions' share: this process's cores less the workers' time on work that was not a stream
//     piece (REST and job recognition), at most the host's: what the live sessions cost the host;
//   - other: the host's cores less the sessions' share (other processes, REST and job work),
//     charged to nobody, so a busy neighbour leaves fewer sessions room but does not make each
//     session look dearer.
// A new session is refused when other + the share a warm session brings x (sessions + 1) would take
// the host to `hostFullAt`. Without process readings the whole host is the sessions' share (errs on refusing).
// A session's set-up (handshake, session state, first messages) lands in the host sums at once while
// its steady load builds up over tau, so the share a warm session brings is taken over at least
// the weight of every live session `hostMinWarmMs` old: otherwise a burst of sessions connecting
// within a second is charged its set-up CPU many times over and refused (the weight of a 0.5 s old
// session is a fifteenth of a warm one's).

export type OverloadLevel = 'normal' | 'partials_thinned' | 'larger_batches' | 'full';

const LEVELS: readonly OverloadLevel[] = ['normal', 'partials_thinned', 'larger_batches', 'full'];

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
  /** The host's cores (what its busy core seconds are measured against; a cgroup quota may make it fractional). */
  readonly hostCores: number;
  /** The host share a warm session brings is taken over at least every live session's weight at this age (see the header). */
  readonly hostMinWarmMs: number;
  /** A level is left only when utilisation falls this far below its threshold (no flapping). */
  readonly hysteresis: number;
  /** Past `partialsOffAt`, one due partial in at most this many is computed (see the header); 0: none. */
  readonly maxPartialStride: number;
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
  hostMinWarmMs: 3_000,
  maxPartialStride: 4,
};

/** CPU over one interval between two readings, in core seconds. */
export interface HostCpuReading {
  /** Every process on the host (busy time of all CPUs). */
  readonly hostBusy: number;
  /** This process, all its threads; null when not measured (then the whole host counts as the sessions'). */
  readonly processBusy: number | null;
  /** The inference workers' busy time on all their work (stream pieces and the rest). */
  readonly workerBusy: number;
}

export interface PieceCost {
  /** The worker's time on the piece's whole batch (features, run, decoding). */
  readonly workerMs: number;
  readonly batchSize: number;
  readonly queueWaitMs: number;
}

export interface CapacityEstimate {
  readonly level: OverloadLevel;
  /** One due partial in this many is computed: 1 every one, 0 none (see the header). */
  readonly partialEvery: number;
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
  /** The host's cores the live sessions hold (see the header); null as hostUtilization. */
  readonly hostSessionCores: number | null;
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
  private readonly partialWorkerSeconds: DecayedSum;
  private readonly partialAudioSeconds: DecayedSum;
  private readonly hostBusySeconds: DecayedSum;
  private readonly processBusySeconds: DecayedSum;
  private readonly workerBusySeconds: DecayedSum;
  /** Whether every host reading so far came with the process's CPU. */
  private processMeasured = true;
  /** Where the first host CPU reading's interval began (the sum holds a full rate only after about tau). */
  private hostSince: number | null = null;
  private level: OverloadLevel = 'normal';
  /** Past partialsOffAt: whether partials are thinned, one due partial in how many is computed, since when. */
  private partialsThinned = false;
  private partialStride = 1;
  private partialStrideAt = 0;

  constructor(readonly settings: CapacitySettings) {
    this.tauMs = settings.halfLifeMs / Math.LN2;
    this.workerSeconds = new DecayedSum(this.tauMs);
    this.audioSeconds = new DecayedSum(this.tauMs);
    this.waitWeighted = new DecayedSum(this.tauMs);
    this.pieces = new DecayedSum(this.tauMs);
    this.shedWorkerSeconds = new DecayedSum(this.tauMs);
    this.partialWorkerSeconds = new DecayedSum(this.tauMs);
    this.partialAudioSeconds = new DecayedSum(this.tauMs);
    this.hostBusySeconds = new DecayedSum(this.tauMs);
    this.processBusySeconds = new DecayedSum(this.tauMs);
    this.workerBusySeconds = new DecayedSum(this.tauMs);
  }

  /** The CPU between two readings, `from` to `now` (hostFullAt > 0; negative figures are dropped). */
  recordHostCpu(from: number, now: number, reading: HostCpuReading): void {
    if (this.settings.hostFullAt <= 0 || reading.hostBusy < 0 || now <= from) return;
    this.hostSince ??= from;
    this.hostBusySeconds.add(now, reading.hostBusy);
    if (reading.processBusy === null) this.processMeasured = false;
    else this.processBusySeconds.add(now, Math.max(0, reading.processBusy));
    this.workerBusySeconds.add(now, Math.max(0, reading.workerBusy));
  }

  /**
   * The host's busy cores and the live sessions' part of them (decayed rates, scaled up while the
   * sums are younger than tau); null when not watched or not reported. `liveWorkerLoad`: the
   * workers' seconds per second on stream pieces.
   */
  private hostShares(now: number, liveWorkerLoad: number): { readonly busy: number; readonly sessions: number } | null {
    if (this.settings.hostFullAt <= 0 || this.hostSince === null) return null;
    const filled = 1 - Math.exp(-(now - this.hostSince) / this.tauMs);
    if (filled < 0.05) return null;
    const rate = (sum: DecayedSum): number => sum.read(now) / (this.tauMs / 1000) / filled;
    const busy = rate(this.hostBusySeconds);
    if (!this.processMeasured) return { busy, sessions: busy };
    const otherWorkerLoad = Math.max(0, rate(this.workerBusySeconds) - liveWorkerLoad);
    return { busy, sessions: Math.min(busy, Math.max(0, rate(this.processBusySeconds) - otherWorkerLoad)) };
  }

  /** A recognised streaming piece (turn, final or `partial`) and what the pool reported for it. */
  record(now: number, audioSeconds: number, cost: PieceCost, partial = false): void {
    if (audioSeconds <= 0) return;
    const workerSeconds = cost.workerMs / 1000 / Math.max(1, cost.batchSize);
    this.workerSeconds.add(now, workerSeconds);
    this.audioSeconds.add(now, audioSeconds);
    this.waitWeighted.add(now, cost.queueWaitMs);
    this.pieces.add(now, 1);
    if (!partial) return;
    this.partialWorkerSeconds.add(now, workerSeconds);
    this.partialAudioSeconds.add(now, audioSeconds);
  }

  /** A partial result skipped under overload: the new audio it would have decoded, at what partials cost, counts as demand. */
  recordShed(now: number, audioSeconds: number): void {
    if (audioSeconds <= 0) return;
    const cost = this.partialCostPerAudioSecond(now);
    if (cost !== null) this.shedWorkerSeconds.add(now, audioSeconds * cost);
  }

  /** Worker seconds per audio second of the partials measured lately, else of all pieces; null before any piece. */
  partialCostPerAudioSecond(now: number): number | null {
    const partialAudio = this.partialAudioSeconds.read(now);
    if (partialAudio > 0) return this.partialWorkerSeconds.read(now) / partialAudio;
    const audio = this.audioSeconds.read(now);
    return audio > 1e-9 ? this.workerSeconds.read(now) / audio : null;
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

  /** The host's cores, never zero (a cgroup quota may be a fraction of a core). */
  private get hostCores(): number {
    return Math.max(0.01, this.settings.hostCores);
  }

  /** What the host share of the live sessions is divided by: their warm weight, at least each at `hostMinWarmMs`. */
  private hostWarmWeight(liveSessions: number, warmSessions: number): number {
    const floor = liveSessions * this.sessionWeight(this.settings.hostMinWarmMs);
    return Math.max(1, Math.min(liveSessions, Math.max(warmSessions, floor)));
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
    const host = this.hostShares(now, load);
    const hostUtilization = host === null ? null : host.busy / this.hostCores;
    const hostPerSession = host !== null && liveSessions > 0 ? host.sessions / this.hostWarmWeight(liveSessions, warmSessions) : 0;
    if (host !== null && hostPerSession > 1e-9) {
      const room = this.settings.hostFullAt * this.hostCores - (host.busy - host.sessions);
      const byHost = Math.max(0, Math.floor(room / hostPerSession));
      capacitySessions = Math.min(capacitySessions ?? byHost, byHost);
    }
    if (this.settings.maxSessions > 0) capacitySessions = Math.min(capacitySessions ?? this.settings.maxSessions, this.settings.maxSessions);
    this.level = this.nextLevel(demandUtilization, queueWaitMs, hostUtilization);
    return {
      level: this.level,
      partialEvery: this.nextPartialEvery(now, utilization, hostUtilization),
      costPerAudioSecond: audio > 1e-9 ? worker / audio : null,
      load,
      demand,
      utilization,
      demandUtilization,
      queueWaitMs,
      hostUtilization,
      hostSessionCores: host === null ? null : host.sessions,
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
    if (estimate.hostUtilization !== null && estimate.hostSessionCores !== null) {
      const cores = this.hostCores;
      const other = estimate.hostUtilization * cores - estimate.hostSessionCores;
      const perSessionCores = estimate.hostSessionCores / this.hostWarmWeight(liveSessions, warmSessions);
      if (other + perSessionCores * (liveSessions + 1) >= this.settings.hostFullAt * cores)
        return { admitted: false, reason: "the host's CPU is busy", retryAfterSeconds };
    }
    return { admitted: true };
  }

  /** One due partial in how many to compute at this level and the workers' own utilisation (see the header). */
  private nextPartialEvery(now: number, utilization: number, hostUtilization: number | null): number {
    const { partialsOffAt, hysteresis, maxPartialStride, halfLifeMs, hostFullAt } = this.settings;
    if (this.level === 'normal') {
      this.partialsThinned = false;
      return 1;
    }
    if (maxPartialStride <= 0 || (hostUtilization !== null && hostUtilization >= hostFullAt)) return 0;
    if (!this.partialsThinned) {
      // entering the level: thin at once
      this.partialsThinned = true;
      this.partialStride = Math.min(2, maxPartialStride);
      this.partialStrideAt = now;
    } else if (now - this.partialStrideAt >= halfLifeMs) {
      const next = this.nextStride(utilization);
      if (next !== this.partialStride) {
        this.partialStride = next;
        this.partialStrideAt = now;
      }
    }
    return this.partialStride;
  }

  /** One step of the thinning: 1 to maxPartialStride, then 0 (none) while the workers stay past largerBatchesAt at the widest. */
  private nextStride(utilization: number): number {
    const { partialsOffAt, largerBatchesAt, hysteresis, maxPartialStride } = this.settings;
    const stride = this.partialStride;
    const under = utilization < partialsOffAt - hysteresis;
    if (stride === 0) return under ? maxPartialStride : 0;
    if (utilization >= partialsOffAt) return stride < maxPartialStride ? stride + 1 : utilization >= largerBatchesAt ? 0 : stride;
    return under ? Math.max(1, stride - 1) : stride;
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
