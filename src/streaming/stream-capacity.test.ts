import { describe, expect, it } from 'vitest';
import { DEFAULT_CAPACITY, StreamCapacity } from './stream-capacity.js';

const settings = { ...DEFAULT_CAPACITY, workers: 2 };

/** `sessions` streams, each sending `audioPerSecond` audio seconds a second at `cost` worker seconds per audio second. */
function drive(capacity: StreamCapacity, from: number, seconds: number, sessions: number, audioPerSecond: number, cost: number, queueWaitMs = 5): number {
  let now = from;
  for (let t = 0; t < seconds * 10; t++) {
    now += 100;
    for (let s = 0; s < sessions; s++) {
      const audio = audioPerSecond / 10;
      capacity.record(now, audio, { workerMs: audio * cost * 1000 * 4, batchSize: 4, queueWaitMs });
    }
  }
  return now;
}

/**
 * The CPU reported every 500 ms for `seconds`: `busyCores` cores busy on the host (all processes),
 * `processCores` of them this process's (null: not measured), `workerCores` the inference workers'.
 */
function driveHost(capacity: StreamCapacity, from: number, seconds: number, busyCores: number, processCores: number | null = null, workerCores = 0): number {
  let now = from;
  for (let t = 0; t < seconds * 2; t++) {
    now += 500;
    capacity.recordHostCpu(now - 500, now, {
      hostBusy: busyCores * 0.5,
      processBusy: processCores === null ? null : processCores * 0.5,
      workerBusy: workerCores * 0.5,
    });
  }
  return now;
}

describe('StreamCapacity', () => {
  it('measures cost per audio second and utilisation from the pieces', () => {
    const capacity = new StreamCapacity(settings);
    const now = drive(capacity, 0, 30, 10, 0.5, 0.1);
    const estimate = capacity.estimate(now, 10);
    expect(estimate.costPerAudioSecond).toBeCloseTo(0.1, 5);
    // 10 sessions x 0.5 audio s/s x 0.1 = 0.5 worker s/s over 2 workers.
    expect(estimate.load).toBeCloseTo(0.5, 1);
    expect(estimate.utilization).toBeCloseTo(0.25, 1);
    // 0.05 worker s/s per session: 0.85 x 2 / 0.05 = 34 sessions.
    expect(estimate.capacitySessions).toBeGreaterThanOrEqual(32);
    expect(estimate.capacitySessions).toBeLessThanOrEqual(35);
    expect(estimate.level).toBe('normal');
    expect(capacity.admit(now, 10).admitted).toBe(true);
  });

  it('degrades in order as the load grows: partials off, larger batches, then full', () => {
    const capacity = new StreamCapacity(settings);
    const levels: string[] = [];
    let now = 0;
    // 0.05 worker s/s per session; utilisation = sessions x 0.025.
    for (const sessions of [10, 26, 31, 36]) {
      now = drive(capacity, now, 40, sessions, 0.5, 0.1);
      levels.push(capacity.estimate(now, sessions).level);
    }
    expect(levels).toEqual(['normal', 'partials_thinned', 'larger_batches', 'full']);
    const refused = capacity.admit(now, 36);
    expect(refused.admitted).toBe(false);
    if (!refused.admitted) expect(refused.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('refuses the session that would take utilisation past the bound, admits the one before', () => {
    const capacity = new StreamCapacity(settings);
    let now = drive(capacity, 0, 40, 32, 0.5, 0.1);
    // 32 sessions = 0.8; one more projects 0.825 (< 0.85): admitted.
    expect(capacity.admit(now, 32).admitted).toBe(true);
    // 34 sessions = 0.85; one more projects 0.875: refused.
    now = drive(capacity, now, 40, 34, 0.5, 0.1);
    expect(capacity.admit(now, 34).admitted).toBe(false);
  });

  it('takes the load per session over warm sessions, so a fast ramp of new ones does not dilute it', () => {
    const capacity = new StreamCapacity(settings);
    const now = drive(capacity, 0, 40, 20, 0.5, 0.1);
    // 20 warm sessions = 0.5 utilisation; 14 more just opened, not yet measured.
    expect(capacity.admit(now, 34, 34).admitted).toBe(true); // diluted: 0.5 x 35/34 looks fine
    expect(capacity.admit(now, 34, 20).admitted).toBe(false); // 35 x 0.025 = 0.875 >= 0.85
    expect(capacity.admit(now, 30, 20).admitted).toBe(true); // 31 x 0.025 = 0.775
    expect(capacity.estimate(now, 34, 20).capacitySessions).toBeGreaterThanOrEqual(33);
    expect(capacity.estimate(now, 34, 20).capacitySessions).toBeLessThanOrEqual(34);
    // A session's weight grows with its age as the decayed sums take in its load.
    expect(capacity.sessionWeight(0)).toBe(0);
    expect(capacity.sessionWeight(settings.halfLifeMs)).toBeCloseTo(0.5, 5);
    expect(capacity.sessionWeight(10 * settings.halfLifeMs)).toBeGreaterThan(0.999);
  });

  it('comes back down with hysteresis once the load falls', () => {
    const capacity = new StreamCapacity(settings);
    let now = drive(capacity, 0, 40, 36, 0.5, 0.1);
    expect(capacity.estimate(now, 36).level).toBe('full');
    // Under the bound but inside the hysteresis margin (0.775 > 0.85 - 0.1): stays full ...
    now = drive(capacity, now, 40, 31, 0.5, 0.1);
    expect(capacity.estimate(now, 31).level).toBe('full');
    // ... and refuses, although one more session projects 0.8, under the bound.
    expect(capacity.admit(now, 31, 31).admitted).toBe(false);
    now = drive(capacity, now, 60, 10, 0.5, 0.1);
    expect(capacity.estimate(now, 10).level).toBe('normal');
  });

  it('a long inference queue wait counts as full whatever the estimate says', () => {
    const capacity = new StreamCapacity(settings);
    const now = drive(capacity, 0, 20, 2, 0.5, 0.1, 800);
    expect(capacity.estimate(now, 2).level).toBe('full');
    expect(capacity.admit(now, 2).admitted).toBe(false);
  });

  it('an old queue wait fades once no pieces arrive', () => {
    const capacity = new StreamCapacity(settings);
    const now = drive(capacity, 0, 20, 2, 0.5, 0.1, 800);
    expect(capacity.estimate(now, 2).queueWaitMs).toBeGreaterThan(700);
    expect(capacity.estimate(now + 120_000, 2).queueWaitMs).toBeLessThan(10);
    expect(capacity.admit(now + 120_000, 2).admitted).toBe(true);
  });

  it('always admits on an idle gateway, and honours a fixed session cap', () => {
    const capacity = new StreamCapacity({ ...settings, maxSessions: 3 });
    expect(capacity.admit(0, 0).admitted).toBe(true);
    expect(capacity.admit(0, 2).admitted).toBe(true);
    const refused = capacity.admit(0, 3);
    expect(refused.admitted).toBe(false);
    expect(capacity.estimate(0, 0).capacitySessions).toBe(3);
  });

  it('forgets old load: the sums decay with the half-life', () => {
    const capacity = new StreamCapacity(settings);
    const now = drive(capacity, 0, 30, 30, 0.5, 0.1);
    const busy = capacity.estimate(now, 30).load;
    expect(capacity.estimate(now + settings.halfLifeMs, 30).load).toBeCloseTo(busy / 2, 3);
  });
  it('counts skipped partials as demand, so shedding them makes no room for more sessions', () => {
    const run = (shed: boolean) => {
      const capacity = new StreamCapacity(settings);
      // 26 sessions at 0.05 worker s/s each: 0.65 utilisation, partials off.
      let now = drive(capacity, 0, 40, 26, 0.5, 0.1);
      expect(capacity.estimate(now, 26).level).toBe('partials_thinned');
      // Partials were 0.2 of each session's 0.5 audio s/s: without them the workers see 0.3.
      for (let t = 0; t < 400; t++) {
        now = drive(capacity, now, 0.1, 26, 0.3, 0.1);
        if (shed) for (let s = 0; s < 26; s++) capacity.recordShed(now, 0.02);
      }
      // 7 sessions just opened beside the 26 measured ones (their load not yet in the sums).
      return { estimate: capacity.estimate(now, 26), admitted: capacity.admit(now, 33, 26).admitted };
    };
    const shedding = run(true);
    expect(shedding.estimate.utilization).toBeCloseTo(0.39, 1);
    expect(shedding.estimate.demandUtilization).toBeCloseTo(0.65, 1);
    expect(shedding.estimate.level).toBe('partials_thinned');
    expect(shedding.estimate.capacitySessions).toBeLessThanOrEqual(35);
    // 34 sessions at the demand of a full one (0.025 each) would be 0.85: refused.
    expect(shedding.admitted).toBe(false);
    // Counting only what the workers do, the same sessions look like room for 50 more.
    const blind = run(false);
    expect(blind.estimate.level).toBe('normal');
    expect(blind.estimate.capacitySessions).toBeGreaterThan(50);
    expect(blind.admitted).toBe(true);
  });

  it("charges a skipped partial at what partials cost per audio second, not at the turns' cheaper average", () => {
    const capacity = new StreamCapacity(settings);
    // Before any partial was measured: the all-pieces cost (0.004 worker s per audio s of turns).
    capacity.record(0, 3, { workerMs: 12, batchSize: 1, queueWaitMs: 0 });
    expect(capacity.partialCostPerAudioSecond(0)).toBeCloseTo(0.004, 6);
    // Live-stream steps: 0.5 s of new audio each at 6 ms (a look-ahead tail recomputed every step).
    for (let i = 0; i < 10; i++) capacity.record(100 * i, 0.5, { workerMs: 12, batchSize: 2, queueWaitMs: 0 }, true);
    expect(capacity.partialCostPerAudioSecond(1_000)).toBeCloseTo(0.012, 6);
    // Partials off for a minute: the last measured partial cost still prices the skipped ones.
    const later = 61_000;
    expect(capacity.partialCostPerAudioSecond(later)).toBeCloseTo(0.012, 6);
    const before = capacity.estimate(later, 1).demand;
    capacity.recordShed(later, 0.5);
    const tau = settings.halfLifeMs / Math.LN2 / 1000;
    expect(capacity.estimate(later, 1).demand - before).toBeCloseTo((0.5 * 0.012) / tau, 6);
  });

  describe('partials past OVERLOAD_PARTIALS_OFF_AT', () => {
    // One worker; `load` worker seconds a second from the live streams for `seconds`.
    const oneWorker = { ...settings, workers: 1 };
    const run = (capacity: StreamCapacity, from: number, seconds: number, load: number, shedPerSecond = 0): { now: number; every: number[] } => {
      let now = from;
      const every: number[] = [];
      for (let t = 0; t < seconds * 10; t++) {
        now += 100;
        capacity.record(now, 0.1, { workerMs: load * 100, batchSize: 1, queueWaitMs: 5 });
        // skipped partials worth `shedPerSecond` worker seconds a second at the measured cost
        if (shedPerSecond > 0) capacity.recordShed(now, shedPerSecond / 10 / capacity.partialCostPerAudioSecond(now)!);
        every.push(capacity.estimate(now, 10).partialEvery);
      }
      return { now, every };
    };

    it('are thinned, not stopped: one in 2 at once, one more skipped every half-life while the workers stay over, back as they fall', () => {
      const capacity = new StreamCapacity(oneWorker);
      let { now, every } = run(capacity, 0, 30, 0.3);
      expect(every.at(-1)).toBe(1);
      // The workers at 0.7: thinned at once to one in 2, then 3, then 4 (the most), 5 s apart.
      ({ now, every } = run(capacity, now, 30, 0.7));
      expect(capacity.estimate(now, 10).level).toBe('partials_thinned');
      const firstThinned = every.findIndex((e) => e === 2);
      expect(firstThinned).toBeGreaterThan(0);
      expect(every.slice(0, firstThinned).every((e) => e === 1)).toBe(true);
      expect(every.indexOf(3) - firstThinned).toBeGreaterThanOrEqual(50);
      expect(every.at(-1)).toBe(4);
      expect(Math.max(...every)).toBe(4);
      // Thinned, the workers do 0.45 while demand (the skipped partials at their cost) stays 0.7:
      // the level stays, and partials come back one step per half-life.
      ({ now, every } = run(capacity, now, 30, 0.45, 0.25));
      expect(capacity.estimate(now, 10).level).toBe('partials_thinned');
      expect(every.at(-1)).toBe(1);
      expect(every.includes(3) && every.includes(2)).toBe(true);
    });

    it('keep thinning when full, stop while the workers stay past the larger-batches threshold at one in 4, while the host CPU is full or with maxPartialStride 0', () => {
      const full = new StreamCapacity(oneWorker);
      let { now, every } = run(full, 0, 30, 0.95);
      expect(full.estimate(now, 10).level).toBe('full');
      expect(every).toContain(4);
      expect(every.at(-1)).toBe(0);
      // The workers fall under the threshold (turns alone; demand with the skipped partials 0.7):
      // back at one in 4, then fewer skipped.
      ({ now, every } = run(full, now, 30, 0.4, 0.3));
      expect(every.findIndex((e) => e === 4)).toBeGreaterThan(every.findIndex((e) => e === 0));
      expect(every.at(-1)).toBeLessThan(4);
      expect(every.at(-1)).toBeGreaterThan(0);
      // At 0.7 (under the larger-batches threshold) one in 4 stays.
      const busy = new StreamCapacity(oneWorker);
      expect(run(busy, 0, 40, 0.7).every.at(-1)).toBe(4);
      const host = new StreamCapacity({ ...oneWorker, hostFullAt: 0.9, hostCores: 2 });
      driveHost(host, 0, 30, 1.9, 1.5, 0.5);
      expect(run(host, 0, 10, 0.3).every.at(-1)).toBe(0);
      expect(host.estimate(10_000, 10).level).toBe('full');
      const off = new StreamCapacity({ ...oneWorker, maxPartialStride: 0 });
      const stopped = run(off, 0, 30, 0.7);
      expect(off.estimate(stopped.now, 10).level).toBe('partials_thinned');
      expect(stopped.every.at(-1)).toBe(0);
    });
  });

  describe('host CPU (hostFullAt > 0)', () => {
    const host = { ...settings, hostFullAt: 0.9, hostCores: 2 };

    it('is not watched by default: reports change nothing and the estimate has no host figure', () => {
      const capacity = new StreamCapacity(settings);
      let now = drive(capacity, 0, 30, 10, 0.5, 0.1);
      now = driveHost(capacity, now - 30_000, 30, 2);
      const estimate = capacity.estimate(now, 10);
      expect(estimate.hostUtilization).toBeNull();
      expect(estimate.level).toBe('normal');
      expect(capacity.admit(now, 10).admitted).toBe(true);
    });

    it('without process readings, charges the whole host to the sessions: caps the capacity at the host share a session brings', () => {
      const capacity = new StreamCapacity(host);
      const now = driveHost(capacity, 0, 30, 1);
      drive(capacity, 0, 30, 10, 0.5, 0.1);
      const estimate = capacity.estimate(now, 10);
      expect(estimate.hostUtilization).toBeCloseTo(0.5, 1);
      // inference alone: 34 sessions; the host: 0.1 cores a session, 0.9 x 2 / 0.1 = 18
      expect(estimate.capacitySessions).toBeGreaterThanOrEqual(17);
      expect(estimate.capacitySessions).toBeLessThanOrEqual(18);
      expect(estimate.level).toBe('normal');
      // 10 sessions = 0.5; one more projects 0.55: admitted
      expect(capacity.admit(now, 10).admitted).toBe(true);
    });

    it('refuses the session that would take the host to the bound, with a reason that says so', () => {
      const capacity = new StreamCapacity(host);
      let now = driveHost(capacity, 0, 30, 1.6);
      drive(capacity, 0, 30, 16, 0.5, 0.1);
      expect(capacity.admit(now, 16).admitted).toBe(true); // 0.8, one more 0.85
      now = driveHost(capacity, now, 30, 1.7);
      drive(capacity, now - 30_000, 30, 17, 0.5, 0.1);
      const refused = capacity.admit(now, 17); // 0.85, one more 0.9
      expect(refused).toMatchObject({ admitted: false, reason: "the host's CPU is busy" });
    });

    it("charges the sessions only this process's cores: a busy neighbour leaves less room, not dearer sessions", () => {
      const capacity = new StreamCapacity(host);
      // one session: 0.05 worker cores, 0.06 cores of this process; another process holds 1.44 cores
      const now = driveHost(capacity, 0, 30, 1.5, 0.06, 0.05);
      drive(capacity, 0, 30, 1, 0.5, 0.1);
      const estimate = capacity.estimate(now, 1);
      expect(estimate.hostUtilization).toBeCloseTo(0.75, 1);
      expect(estimate.hostSessionCores).toBeCloseTo(0.06, 2);
      // (1.8 - 1.44) / 0.06 = 6 sessions by the host
      expect(estimate.capacitySessions).toBeGreaterThanOrEqual(5);
      expect(estimate.capacitySessions).toBeLessThanOrEqual(6);
      expect(capacity.admit(now, 1).admitted).toBe(true); // 1.44 + 2 x 0.06 = 1.56 < 1.8
      // charged the whole host, the one session would look like 1.5 cores and a second be refused
      const blind = new StreamCapacity(host);
      const then = driveHost(blind, 0, 30, 1.5);
      drive(blind, 0, 30, 1, 0.5, 0.1);
      expect(blind.admit(then, 1)).toMatchObject({ admitted: false, reason: "the host's CPU is busy" });
      // the neighbour grows: 1.74 + 2 x 0.06 = 1.86, refused
      const busier = new StreamCapacity(host);
      const later = driveHost(busier, 0, 30, 1.8, 0.06, 0.05);
      drive(busier, 0, 30, 1, 0.5, 0.1);
      expect(busier.admit(later, 1)).toMatchObject({ admitted: false, reason: "the host's CPU is busy" });
    });

    it("does not charge the sessions with the workers' REST and job recognition", () => {
      const capacity = new StreamCapacity(host);
      // the workers are busy 1 core, 0.05 of it on the one session's pieces; the process 1.1 cores
      const now = driveHost(capacity, 0, 30, 1.1, 1.1, 1);
      drive(capacity, 0, 30, 1, 0.5, 0.1);
      const estimate = capacity.estimate(now, 1);
      expect(estimate.hostSessionCores).toBeCloseTo(0.15, 2);
      expect(capacity.admit(now, 1).admitted).toBe(true); // 0.95 + 2 x 0.15 = 1.25 < 1.8
      // five sessions at 0.15 cores each beside the 0.95: 1.7 cores (0.85, not full); a sixth would make 1.85
      const fuller = new StreamCapacity(host);
      const later = driveHost(fuller, 0, 30, 1.7, 1.7, 1.2);
      drive(fuller, 0, 30, 5, 0.5, 0.1);
      const busy = fuller.estimate(later, 5);
      expect(busy.level).not.toBe('full');
      expect(busy.hostSessionCores).toBeCloseTo(0.75, 1);
      expect(fuller.admit(later, 5)).toMatchObject({ admitted: false, reason: "the host's CPU is busy" });
    });

    it('does not charge a burst of new sessions their set-up many times over, and still refuses a real overload', () => {
      // A quiet host (0.2 cores busy, 0.05 of them this process), then 300 sessions connect within a
      // second: their set-up costs this process 0.9 core seconds, then each costs `steady` cores.
      // Returns, at each age of the burst, whether one more session is admitted.
      const admittedAtAges = (steady: number, minWarmMs: number): Record<string, boolean> => {
        const capacity = new StreamCapacity({ ...host, hostMinWarmMs: minWarmMs });
        let now = driveHost(capacity, 0, 30, 0.2, 0.05);
        const connectedAt = now + 500; // on average
        now = driveHost(capacity, now, 1, 0.2 + 0.9 + 150 * steady, 0.05 + 0.9 + 150 * steady);
        const out: Record<string, boolean> = {};
        for (const age of [1_000, 2_000, 5_000, 15_000]) {
          now = driveHost(capacity, now, (connectedAt + age - now) / 1000, 0.2 + 300 * steady, 0.05 + 300 * steady);
          out[`${age / 1000} s`] = capacity.admit(now, 300, 300 * capacity.sessionWeight(now - connectedAt)).admitted;
        }
        return out;
      };
      // 0.9 cores for 300 sessions beside 0.2: room on 2 cores at 0.9. Over the warm weight alone
      // the burst's set-up is charged as if every session were that dear: refused at first.
      expect(admittedAtAges(0.003, 3_000)).toEqual({ '1 s': true, '2 s': true, '5 s': true, '15 s': true });
      expect(admittedAtAges(0.003, 0)).toMatchObject({ '1 s': false, '15 s': true });
      // 1.8 cores for 300 sessions: a real overload, refused once the first seconds have passed
      expect(admittedAtAges(0.006, 3_000)).toMatchObject({ '5 s': false, '15 s': false });
    });

    it('a busy host is full whatever the inference estimate, and leaves full only below the bound less the hysteresis', () => {
      const capacity = new StreamCapacity(host);
      let now = driveHost(capacity, 0, 30, 1.9);
      drive(capacity, 0, 30, 4, 0.5, 0.1); // inference utilisation 0.1
      expect(capacity.estimate(now, 4).level).toBe('full');
      expect(capacity.admit(now, 4)).toMatchObject({ admitted: false, reason: "the host's CPU is busy" });
      now = driveHost(capacity, now, 30, 1.7); // 0.85: under the bound, not past the hysteresis
      expect(capacity.estimate(now, 4).level).toBe('full');
      now = driveHost(capacity, now, 30, 1.2); // 0.6
      expect(capacity.estimate(now, 4).level).toBe('normal');
    });

    it('waits for the first readings to fill before judging', () => {
      const capacity = new StreamCapacity(host);
      capacity.recordHostCpu(100, 110, { hostBusy: 0.018, processBusy: null, workerBusy: 0 });
      expect(capacity.estimate(110, 0).hostUtilization).toBeNull(); // 10 ms of readings: too few to judge
      const now = driveHost(capacity, 110, 2, 1.8);
      expect(capacity.estimate(now, 0).hostUtilization).toBeCloseTo(0.9, 1); // 2 s: scaled up to the rate
    });
  });
});
