// The CPU this process may use, and how much of it is busy: what the live sessions' host CPU guard
// (OVERLOAD_HOST_CPU_FULL_AT) measures against.
//
// Rules:
// - A cgroup CPU quota, when one is set on the process's cgroup or an ancestor, is the budget: its
//   cores are quota / period and its busy time is that cgroup's usage (every process in it), so a
//   container limited to 2 cores on a 64-core machine is full at its 2 cores, whatever the machine's
//   other tenants do. The smallest quota on the way to the root wins; a quota of at least the
//   machine's CPUs limits nothing, and the machine is the budget. cgroup v2 (`cpu.max`,
//   `cpu.stat` usage_usec) and v1 (`cpu.cfs_quota_us` / `cpu.cfs_period_us`, `cpuacct.usage`).
// - Otherwise the machine is the budget: every CPU's busy time, every process, from /proc/stat:
//   user, nice, system, irq, softirq and steal. Steal (time the hypervisor gave another guest while
//   this VM had work) counts as busy: a VM whose neighbours take a quarter of its time has a quarter
//   fewer cores for sessions, and without it such a VM reads 0.75 while it is saturated. Without
//   /proc/stat (not Linux): os.cpus() (user, nice, sys, irq; no steal).
// - Where the budget is comes from one look at start; a usage reading that fails repeats the last one.
// Node has no CPU-quota API (process.constrainedMemory covers memory only), hence the files.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

export interface CpuBudget {
  /** Where the budget comes from: a cgroup's quota or the whole machine. */
  readonly scope: 'cgroup' | 'machine';
  /** Cores of the budget (quota / period for a cgroup; may be fractional). */
  readonly cores: number;
  /** Busy core seconds so far (a cumulative counter: readings are differenced). */
  busySeconds(): number;
}

/** Linux reports /proc/stat in USER_HZ ticks, fixed at 100 a second for user space on x86 and arm64. */
const PROC_STAT_TICKS_PER_SECOND = 100;

/** /proc/stat's aggregate `cpu` line: busy seconds (user, nice, system, irq, softirq, steal), or null. */
export function parseProcStatBusy(text: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) return null;
  // user nice system idle iowait irq softirq steal [guest guest_nice: already inside user and nice]
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  if (ticks.length < 8 || ticks.some((t) => !Number.isFinite(t))) return null;
  const [user, nice, system, , , irq, softirq, steal] = ticks as [number, number, number, number, number, number, number, number];
  return (user + nice + system + irq + softirq + steal) / PROC_STAT_TICKS_PER_SECOND;
}

/** The machine: every CPU's busy time (`procStat` is for tests). */
export function machineCpuBudget(procStat = '/proc/stat'): CpuBudget {
  const fromOs = (): number => {
    let ms = 0;
    for (const cpu of cpus()) ms += cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq;
    return ms / 1000;
  };
  const readable = readText(procStat) !== null;
  let last = 0;
  return {
    scope: 'machine',
    cores: cpus().length,
    busySeconds: () => {
      if (!readable) return fromOs();
      const text = readText(procStat);
      const seconds = text === null ? null : parseProcStatBusy(text);
      if (seconds !== null) last = seconds;
      return last;
    },
  };
}

/** `cpu.max` (v2): "QUOTA PERIOD" in microseconds, QUOTA "max" when unlimited. Cores, or null without a quota. */
export function parseCgroupV2Max(text: string): number | null {
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === undefined || quota === 'max') return null;
  const cores = Number(quota) / Number(period ?? 100_000);
  return Number.isFinite(cores) && cores > 0 ? cores : null;
}

/** `cpu.stat` (v2): the `usage_usec` line, in seconds; null when absent. */
export function parseCgroupV2Usage(text: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith('usage_usec '));
  const usec = line === undefined ? Number.NaN : Number(line.slice('usage_usec '.length));
  return Number.isFinite(usec) ? usec / 1e6 : null;
}

/** v1: `cpu.cfs_quota_us` (-1 when unlimited) over `cpu.cfs_period_us`. Cores, or null without a quota. */
export function parseCgroupV1Quota(quotaText: string, periodText: string): number | null {
  const quota = Number(quotaText.trim());
  const period = Number(periodText.trim());
  if (!(quota > 0) || !(period > 0)) return null;
  return quota / period;
}

/** The process's cgroup paths from /proc/self/cgroup: the v2 path (hierarchy 0) and each v1 controller's. */
export function parseProcCgroup(text: string): { readonly v2: string | null; readonly v1: ReadonlyMap<string, string> } {
  let v2: string | null = null;
  const v1 = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (match === null) continue;
    const [, id, controllers, path] = match;
    if (id === '0' && controllers === '') v2 = path!;
    else for (const controller of controllers!.split(',')) if (controller !== '') v1.set(controller, path!);
  }
  return { v2, v1 };
}

/** A path and its ancestors up to the root ("/a/b" gives "/a/b", "/a", "/"). */
function withAncestors(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  const out: string[] = [];
  for (let n = parts.length; n >= 0; n--) out.push(`/${parts.slice(0, n).join('/')}`);
  return out;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

interface Quota {
  readonly cores: number;
  readonly usagePath: string;
  readonly usage: (text: string) => number | null;
}

/** The smallest quota on the way from `path` to the root whose usage can be read, or null. */
function smallestQuota(candidates: readonly (Quota | null)[]): Quota | null {
  let best: Quota | null = null;
  for (const quota of candidates) {
    if (quota === null || readText(quota.usagePath) === null) continue;
    if (best === null || quota.cores < best.cores) best = quota;
  }
  return best;
}

function v2Quota(root: string, path: string): Quota | null {
  return smallestQuota(
    withAncestors(path).map((p) => {
      const max = readText(join(root, p, 'cpu.max'));
      const cores = max === null ? null : parseCgroupV2Max(max);
      return cores === null ? null : { cores, usagePath: join(root, p, 'cpu.stat'), usage: parseCgroupV2Usage };
    }),
  );
}

function v1Quota(root: string, cpuPath: string, cpuacctPath: string): Quota | null {
  const cpuDir = ['cpu,cpuacct', 'cpu'].map((d) => join(root, d)).find((d) => readText(join(d, 'cpu.cfs_period_us')) !== null);
  const acctDir = ['cpu,cpuacct', 'cpuacct'].map((d) => join(root, d)).find((d) => readText(join(d, 'cpuacct.usage')) !== null);
  if (cpuDir === undefined || acctDir === undefined) return null;
  const acctAncestors = new Set(withAncestors(cpuacctPath));
  return smallestQuota(
    withAncestors(cpuPath).map((p) => {
      const quota = readText(join(cpuDir, p, 'cpu.cfs_quota_us'));
      const period = readText(join(cpuDir, p, 'cpu.cfs_period_us'));
      const cores = quota === null || period === null ? null : parseCgroupV1Quota(quota, period);
      // the usage of the same group (the controllers are mounted apart: the same path under cpuacct)
      if (cores === null || !acctAncestors.has(p)) return null;
      return {
        cores,
        usagePath: join(acctDir, p, 'cpuacct.usage'),
        usage: (text: string) => (Number.isFinite(Number(text.trim())) ? Number(text.trim()) / 1e9 : null),
      };
    }),
  );
}

/**
 * The budget of this process: its cgroup's quota when one is set (see the header), else the
 * machine. The paths are for tests.
 */
export function openCpuBudget(root = '/sys/fs/cgroup', procCgroup = '/proc/self/cgroup', procStat = '/proc/stat'): CpuBudget {
  const machine = machineCpuBudget(procStat);
  const cgroups = parseProcCgroup(readText(procCgroup) ?? '');
  const cpuPath = cgroups.v1.get('cpu');
  const quota =
    (cgroups.v2 === null ? null : v2Quota(root, cgroups.v2)) ?? (cpuPath === undefined ? null : v1Quota(root, cpuPath, cgroups.v1.get('cpuacct') ?? cpuPath));
  if (quota === null || quota.cores >= machine.cores) return machine;
  let last = 0;
  return {
    scope: 'cgroup',
    cores: quota.cores,
    busySeconds: () => {
      const text = readText(quota.usagePath);
      const seconds = text === null ? null : quota.usage(text);
      if (seconds !== null) last = seconds;
      return last;
    },
  };
}
