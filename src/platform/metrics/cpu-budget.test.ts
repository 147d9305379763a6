import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { machineCpuBudget, openCpuBudget, parseCgroupV1Quota, parseCgroupV2Max, parseCgroupV2Usage, parseProcCgroup, parseProcStatBusy } from './cpu-budget.js';

describe('cgroup files', () => {
  it('reads v2 cpu.max as cores, none for "max"', () => {
    expect(parseCgroupV2Max('200000 100000\n')).toBe(2);
    expect(parseCgroupV2Max('50000 100000')).toBe(0.5);
    expect(parseCgroupV2Max('max 100000\n')).toBeNull();
    expect(parseCgroupV2Max('')).toBeNull();
  });

  it('reads v2 cpu.stat usage in seconds', () => {
    expect(parseCgroupV2Usage('usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n')).toBe(1.5);
    expect(parseCgroupV2Usage('user_usec 1\n')).toBeNull();
  });

  it('reads a v1 quota, none for -1', () => {
    expect(parseCgroupV1Quota('150000\n', '100000\n')).toBe(1.5);
    expect(parseCgroupV1Quota('-1\n', '100000\n')).toBeNull();
  });

  it("finds the process's v2 path and each v1 controller's", () => {
    const parsed = parseProcCgroup('12:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/kubepods/pod1/c1\n');
    expect(parsed.v2).toBe('/kubepods/pod1/c1');
    expect(parsed.v1.get('cpu')).toBe('/docker/abc');
    expect(parsed.v1.get('cpuacct')).toBe('/docker/abc');
    expect(parseProcCgroup('0::/\n').v1.size).toBe(0);
  });
});

describe('/proc/stat', () => {
  it('counts user, nice, system, irq, softirq and steal as busy; idle, iowait and guest not', () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const text = 'cpu  1000 200 300 9000 400 10 20 250 77 5\ncpu0 500 100 150 4500 200 5 10 125 0 0\nintr 1 2 3\n';
    expect(parseProcStatBusy(text)).toBeCloseTo((1000 + 200 + 300 + 10 + 20 + 250) / 100, 9);
    expect(parseProcStatBusy('cpu  1 2 3\n')).toBeNull();
    expect(parseProcStatBusy('intr 1\n')).toBeNull();
  });

  it("is the machine's budget, a steal-heavy second reading as busy as a working one", () => {
    const dir = mkdtempSync(join(tmpdir(), 'proc-stat-'));
    try {
      const stat = join(dir, 'stat');
      writeFileSync(stat, 'cpu  100 0 0 100 0 0 0 0 0 0\n');
      const budget = machineCpuBudget(stat);
      expect(budget).toMatchObject({ scope: 'machine', cores: cpus().length });
      expect(budget.busySeconds()).toBe(1);
      // the next second on 2 cores: 1.5 core seconds of work, 0.5 stolen: the VM was full
      writeFileSync(stat, 'cpu  250 0 0 100 0 0 0 50 0 0\n');
      expect(budget.busySeconds()).toBe(3);
      // an unreadable reading repeats the last
      writeFileSync(stat, 'garbage\n');
      expect(budget.busySeconds()).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('openCpuBudget', () => {
  let root: string;
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const open = (procCgroup: string) => {
    write('proc-self-cgroup', procCgroup);
    return openCpuBudget(join(root, 'fs'), join(root, 'proc-self-cgroup'));
  };
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('measures a v2 quota set on an ancestor, with that group usage', () => {
    root = mkdtempSync(join(tmpdir(), 'cpu-budget-'));
    write('fs/kubepods/pod1/cpu.max', '150000 100000\n');
    write('fs/kubepods/pod1/cpu.stat', 'usage_usec 2000000\n');
    write('fs/kubepods/pod1/c1/cpu.max', 'max 100000\n');
    write('fs/kubepods/pod1/c1/cpu.stat', 'usage_usec 1000000\n');
    const budget = open('0::/kubepods/pod1/c1\n');
    expect(budget).toMatchObject({ scope: 'cgroup', cores: 1.5 });
    expect(budget.busySeconds()).toBe(2);
    write('fs/kubepods/pod1/cpu.stat', 'usage_usec 2750000\n');
    expect(budget.busySeconds()).toBe(2.75);
    // a failed reading repeats the last one (no jump in the differences)
    rmSync(join(root, 'fs/kubepods/pod1/cpu.stat'));
    expect(budget.busySeconds()).toBe(2.75);
  });

  it('takes the smallest quota on the way to the root', () => {
    root = mkdtempSync(join(tmpdir(), 'cpu-budget-'));
    write('fs/cpu.max', '400000 100000\n');
    write('fs/cpu.stat', 'usage_usec 9000000\n');
    write('fs/a/cpu.max', '100000 100000\n');
    write('fs/a/cpu.stat', 'usage_usec 1000000\n');
    expect(open('0::/a\n')).toMatchObject({ scope: 'cgroup', cores: 1 });
  });

  it('measures a v1 quota (cpu and cpuacct mounted apart)', () => {
    root = mkdtempSync(join(tmpdir(), 'cpu-budget-'));
    write('fs/cpu/cpu.cfs_period_us', '100000\n');
    write('fs/cpu/docker/x/cpu.cfs_quota_us', '50000\n');
    write('fs/cpu/docker/x/cpu.cfs_period_us', '100000\n');
    write('fs/cpuacct/cpuacct.usage', '1\n');
    write('fs/cpuacct/docker/x/cpuacct.usage', '3000000000\n');
    const budget = open('3:cpu:/docker/x\n2:cpuacct:/docker/x\n0::/\n');
    expect(budget).toMatchObject({ scope: 'cgroup', cores: 0.5 });
    expect(budget.busySeconds()).toBe(3);
  });

  it('is the machine without a quota (v2 "max", v1 -1, or no cgroup files)', () => {
    root = mkdtempSync(join(tmpdir(), 'cpu-budget-'));
    write('fs/cpu.max', 'max 100000\n');
    write('fs/cpu.stat', 'usage_usec 1\n');
    write('fs/cpu/cpu.cfs_period_us', '100000\n');
    write('fs/cpu/cpu.cfs_quota_us', '-1\n');
    write('fs/cpuacct/cpuacct.usage', '1\n');
    const budget = open('2:cpu:/\n1:cpuacct:/\n0::/\n');
    expect(budget).toMatchObject({ scope: 'machine', cores: cpus().length });
    expect(budget.busySeconds()).toBeGreaterThan(0);
    expect(open('')).toMatchObject({ scope: 'machine' });
    // a quota of at least the machine's CPUs limits nothing
    write('fs/big/cpu.max', `${(cpus().length + 1) * 100_000} 100000\n`);
    write('fs/big/cpu.stat', 'usage_usec 1\n');
    expect(open('0::/big\n')).toMatchObject({ scope: 'machine', cores: cpus().length });
  });
});
