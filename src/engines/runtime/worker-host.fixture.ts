// The worker of worker-host.test.ts: ready once loaded (or refuses, or throws, as its workerData
// says), answers `echo` by id after `delayMs`, reports its own nice value, and crashes, exits or
// ignores `close` when asked.
import { readFileSync } from 'node:fs';
import { parentPort, threadId, workerData } from 'node:worker_threads';

export type FixtureStart = 'ready' | 'refuse' | 'throw';

export type ToFixture =
  | { readonly type: 'echo'; readonly id: number; readonly value: string; readonly delayMs: number }
  | { readonly type: 'schedule'; readonly id: number }
  | { readonly type: 'note'; readonly value: string }
  | { readonly type: 'crash' }
  | { readonly type: 'close' };

export type FromFixture =
  | { readonly type: 'ready' }
  | { readonly type: 'refused'; readonly message: string }
  | { readonly type: 'echo'; readonly id: number; readonly value: string; readonly threadId: number }
  | { readonly type: 'schedule'; readonly id: number; readonly nice: number }
  | { readonly type: 'note'; readonly value: string };

const port = parentPort!;
const setup = (workerData ?? {}) as { start?: FixtureStart; ignoreClose?: boolean };
const post = (message: FromFixture): void => port.postMessage(message);

/** This thread's nice value, from /proc/thread-self/stat (Linux). */
function ownNice(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

port.on('message', (message: ToFixture) => {
  switch (message.type) {
    case 'echo':
      setTimeout(() => post({ type: 'echo', id: message.id, value: message.value, threadId }), message.delayMs);
      break;
    case 'schedule':
      post({ type: 'schedule', id: message.id, nice: ownNice() });
      break;
    case 'note':
      post({ type: 'note', value: message.value });
      break;
    case 'crash':
      throw new Error('boom');
    case 'close':
      if (!setup.ignoreClose) port.close();
      break;
  }
});

if (setup.start === 'throw') throw new Error('cannot start');
post(setup.start === 'refuse' ? { type: 'refused', message: 'no model' } : { type: 'ready' });
