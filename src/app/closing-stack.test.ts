import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ClosingStack } from './closing-stack.js';

describe('ClosingStack', () => {
  it('closes last opened first, each step once, and goes on past a failing step', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({}, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const stack = new ClosingStack(logger);
    const order: string[] = [];
    stack.push('store', async () => order.push('store'));
    stack.push('queue', async () => {
      order.push('queue');
      throw new Error('queue stuck');
    });
    stack.push('cache', async () => order.push('cache'));
    await stack.closeAll();
    expect(order).toEqual(['cache', 'queue', 'store']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ step: 'queue', msg: 'shutdown step failed', err: { message: 'queue stuck' } });
    await stack.closeAll();
    expect(order).toHaveLength(3);
  });
});
