import { describe, expect, it } from 'vitest';
import type { FixtureStart, FromFixture, ToFixture } from './worker-host.fixture.js';
import { WorkerClosedError, type WorkerExit, WorkerHost, type WorkerHostOptions, WorkerLostError, type WorkerPriority } from './worker-host.js';

type Options = Partial<WorkerHostOptions<ToFixture, FromFixture>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds (fails the test after 10 s). */
async function until(done: () => boolean): Promise<void> {
  for (const start = performance.now(); !done(); await sleep(10)) if (performance.now() - start > 10_000) throw new Error('timed out waiting');
}

/** A host of the fixture worker, with what it heard. */
function fixtureHost(options: Options = {}, setup: { start?: FixtureStart; ignoreClose?: boolean } = {}) {
  const heard = { notes: [] as string[], exits: [] as WorkerExit[], readies: 0, priorities: [] as WorkerPriority[], restartFailures: [] as Error[] };
  let onReady = (): void => {};
  const host = new WorkerHost<ToFixture, FromFixture>({
    entry: new URL('./worker-host.fixture.js', import.meta.url),
    label: 'fixture worker',
    workerData: setup,
    starts: (m) => (m.type === 'ready' ? 'ready' : m.type === 'refused' ? new Error(m.message) : null),
    replyId: (m) => (m.type === 'echo' || m.type === 'schedule' ? m.id : null),
    onMessage: (m) => {
      if (m.type === 'note') heard.notes.push(m.value);
    },
    onReady: () => {
      heard.readies++;
      onReady();
    },
    onExit: (exit) => heard.exits.push(exit),
    onPriority: (priority) => heard.priorities.push(priority),
    onRestartFailed: (error) => heard.restartFailures.push(error),
    ...options,
  });
  /** Resolves at the next onReady. */
  const nextReady = () => new Promise<void>((resolve) => (onReady = resolve));
  const echo = (value: string, delayMs = 0) => host.request((id) => ({ type: 'echo', id, value, delayMs }));
  return { host, heard, nextReady, echo };
}

describe('WorkerHost', () => {
  it('pairs replies with requests by id, whatever their order, and passes other messages on', async () => {
    const { host, heard, echo } = fixtureHost();
    try {
      await host.started;
      expect(host.ready).toBe(true);
      const slow = echo('slow', 50);
      const fast = echo('fast');
      expect(host.post({ type: 'note', value: 'hello' })).toBe(true);
      const first = await Promise.race([slow.then(() => 'slow'), fast.then(() => 'fast')]);
      expect(first).toBe('fast');
      expect(await slow).toMatchObject({ value: 'slow' });
      expect(await fast).toMatchObject({ value: 'fast' });
      expect(heard.notes).toEqual(['hello']);
      expect(heard.priorities).toEqual([]); // no nice asked for
    } finally {
      await host.close();
    }
  });

  it('rejects pending requests when the thread crashes, then restarts it after the delay', async () => {
    const errors: Error[] = [];
    const { host, heard, nextReady, echo } = fixtureHost({ restart: { delayMs: 200, whileStarting: false }, onError: (e) => errors.push(e) });
    try {
      await host.started;
      const before = await echo('a');
      const pending = echo('never', 10_000);
      const restarted = nextReady();
      host.post({ type: 'crash' });
      const lost = await pending.catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(WorkerLostError);
      expect((lost as WorkerLostError).message).toBe('fixture worker failed: boom');
      expect(errors.map((e) => e.message)).toEqual(['boom']);
      expect(heard.exits).toEqual([{ code: 1, error: errors[0], started: true, restarting: true, message: 'fixture worker failed: boom' }]);
      expect(host.ready).toBe(false);
      await expect(echo('between')).rejects.toBeInstanceOf(WorkerClosedError);
      await restarted;
      const after = await echo('b');
      expect(after.type === 'echo' && before.type === 'echo' && after.threadId !== before.threadId).toBe(true);
      expect(heard.readies).toBe(2);
    } finally {
      await host.close();
    }
  });

  it('restarts only while allowed, and never a thread that refused to start', async () => {
    let allowed = false;
    const { host, heard, echo } = fixtureHost({ restart: { delayMs: 1, whileStarting: true, allowed: () => allowed } });
    await host.started;
    const first = host.thread;
    const pending = echo('x', 10_000);
    void first!.terminate();
    await expect(pending).rejects.toThrow('fixture worker exited with code 1');
    expect(heard.exits).toEqual([{ code: 1, error: null, started: true, restarting: false, message: 'fixture worker exited with code 1' }]);
    allowed = true;
    await sleep(50);
    expect(host.thread).toBe(first); // no thread started since
    await host.close();

    const refusing = fixtureHost({ restart: { delayMs: 1, whileStarting: true } }, { start: 'refuse' });
    await expect(refusing.host.started).rejects.toThrow('no model');
    await until(() => refusing.heard.exits.length > 0);
    expect(refusing.heard.exits).toMatchObject([{ code: 1, error: null, started: false, restarting: false }]);
    const refused = refusing.host.thread;
    await sleep(50);
    expect(refusing.host.thread).toBe(refused);
    await refusing.host.close();
  });

  it('restarts a thread that died while starting only with whileStarting, and reports each failed restart', async () => {
    const { host, heard } = fixtureHost({ restart: { delayMs: 1, whileStarting: false } }, { start: 'throw' });
    await expect(host.started).rejects.toThrow('cannot start');
    await until(() => heard.exits.length > 0);
    expect(heard.exits).toMatchObject([{ code: 1, started: false, restarting: false, message: 'fixture worker failed: cannot start' }]);
    await host.close();

    let asked = 0;
    const retrying = fixtureHost({ restart: { delayMs: 1, whileStarting: true, allowed: () => ++asked <= 3 } }, { start: 'throw' });
    await expect(retrying.host.started).rejects.toThrow('cannot start');
    await until(() => retrying.heard.exits.length === 2 && asked === 4);
    // allowed() is asked at each exit and when each delay ends: exit 1 (yes), delay (yes), exit 2 (yes), delay (no).
    expect(retrying.heard.exits.map((e) => e.restarting)).toEqual([true, true]);
    await until(() => retrying.heard.restartFailures.length > 0);
    expect(retrying.heard.restartFailures.map((e) => e.message)).toEqual(['cannot start']);
    await retrying.host.close();
  });

  it.runIf(process.platform === 'linux')('lowers the thread to the nice value asked for before its entry loads', async () => {
    const { host, heard } = fixtureHost({ nice: 7 });
    try {
      await host.started;
      expect(heard.priorities).toEqual([{ report: { applied: true, batch: true, nice: 7 }, error: null }]);
      expect(await host.request((id) => ({ type: 'schedule', id }))).toEqual({ type: 'schedule', id: 1, nice: 7 });
    } finally {
      await host.close();
    }
  });

  it('closes idempotently: the close message first, termination after the grace time, pending requests rejected', async () => {
    const graceful = fixtureHost({ close: { message: { type: 'close' }, graceMs: 10_000 } });
    await graceful.host.started;
    const gracefulExit = new Promise((resolve) => graceful.host.thread!.once('exit', resolve));
    const closing = graceful.host.close();
    expect(graceful.host.close()).toBe(closing);
    await closing;
    expect(await gracefulExit).toBe(0); // it ended itself
    expect(graceful.host.thread!.threadId).toBe(-1);
    expect(graceful.heard.exits).toEqual([]);
    await expect(graceful.echo('late')).rejects.toBeInstanceOf(WorkerClosedError);
    expect(graceful.host.post({ type: 'note', value: 'late' })).toBe(false);
    await graceful.host.close();

    const stubborn = fixtureHost({ close: { message: { type: 'close' }, graceMs: 100 }, restart: { delayMs: 1, whileStarting: true } }, { ignoreClose: true });
    await stubborn.host.started;
    const thread = stubborn.host.thread!;
    const stubbornExit = new Promise((resolve) => thread.once('exit', resolve));
    const pending = stubborn.echo('never', 10_000);
    const started = performance.now();
    await stubborn.host.close();
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    expect(await stubbornExit).toBe(1); // terminated
    await expect(pending).rejects.toBeInstanceOf(WorkerClosedError);
    expect(stubborn.heard.exits).toEqual([]);
    await sleep(50);
    expect(stubborn.host.thread).toBe(thread); // not restarted
    await stubborn.host.close();
  });
});
