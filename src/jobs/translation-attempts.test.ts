import { describe, expect, it } from 'vitest';
import { EngineError } from '../engines/runtime/engine-error.js';
import type { TranslateOptions, TranslationEngine } from '../engines/translation/translation.js';
import { UnitFailure } from './translation-documents.js';
import { TRANSLATION_RETRIES, translateUnitTexts, type UnitTranslation } from './translation-attempts.js';

/** An engine that answers each call from `script` in turn (an error is thrown), recording the options. */
function scriptedEngine(script: Array<Error | 'ok'>): TranslationEngine & { calls: TranslateOptions[] } {
  const calls: TranslateOptions[] = [];
  return {
    name: 'scripted',
    languages: ['en', 'am', 'ti'],
    calls,
    translate: async () => '',
    translateMany: async (texts, _source, _target, options = {}) => {
      calls.push(options);
      const step = script[Math.min(calls.length - 1, script.length - 1)]!;
      if (step !== 'ok') throw step;
      return texts.map((t) => `<${t}>`);
    },
    close: async () => undefined,
  };
}

const overloaded = (seconds = 1): EngineError => new EngineError('overloaded', 'The translation queue is full.', { retryAfterSeconds: seconds });
const unit = (extra: Partial<UnitTranslation> = {}): UnitTranslation => ({
  source: 'en',
  target: 'am',
  tenant: 'account-1',
  signal: new AbortController().signal,
  retryDelayMs: 1,
  queueWaitMs: 10_000,
  ...extra,
});

describe('translateUnitTexts', () => {
  it("waits for room after each refusal without spending a retry, as the job's tenant in beam mode", async () => {
    const waits: number[] = [];
    const engine = scriptedEngine([overloaded(2), overloaded(1), overloaded(1), overloaded(1), overloaded(1), 'ok']);
    const sleep = async (ms: number): Promise<void> => void waits.push(ms);
    expect(await translateUnitTexts(engine, ['a', 'b'], unit({ sleep }))).toEqual(['<a>', '<b>']);
    // Five refusals, more than the 3 retries: none was counted as a failure.
    expect(engine.calls).toHaveLength(6);
    expect(engine.calls.every((c) => c.mode === 'beam' && c.tenant === 'account-1')).toBe(true);
    // Each wait is the refusal's retry-after, with at most a twentieth of jitter either way.
    expect(waits).toHaveLength(5);
    expect(waits[0]).toBeGreaterThanOrEqual(1_900);
    expect(waits[0]).toBeLessThanOrEqual(2_100);
    for (const ms of waits.slice(1)) expect(Math.abs(ms - 1_000)).toBeLessThanOrEqual(50);
  });

  it('fails with TRANSLATION_ERROR once the queue wait runs out', async () => {
    const waits: number[] = [];
    const engine = scriptedEngine([overloaded(2)]);
    const sleep = async (ms: number): Promise<void> => void waits.push(ms);
    const failure = await translateUnitTexts(engine, ['a'], unit({ queueWaitMs: 5_000, sleep })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UnitFailure);
    expect(failure).toMatchObject({ code: 'TRANSLATION_ERROR' });
    expect((failure as Error).message).toContain('stayed full');
    expect(waits).toHaveLength(2);
    expect(engine.calls).toHaveLength(3);
  });

  it('spends the 3 retries on other errors (waits doubling), then fails with the last reason', async () => {
    const waits: number[] = [];
    const engine = scriptedEngine([new Error('worker died')]);
    const sleep = async (ms: number): Promise<void> => void waits.push(ms);
    const failure = await translateUnitTexts(engine, ['a'], unit({ retryDelayMs: 10, sleep })).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'TRANSLATION_ERROR', message: 'Translation failed after 3 retries: worker died' });
    expect(engine.calls).toHaveLength(1 + TRANSLATION_RETRIES);
    expect(waits).toEqual([10, 20, 40]);
  });

  it('fails at once with TRANSLATION_ERROR, no retry, when a sentence is untranslatable (the same model fails it again)', async () => {
    const waits: number[] = [];
    const reason = 'The sentence ("ok ok") could not be translated from en to am: every output of the model degenerated.';
    const engine = scriptedEngine([new EngineError('untranslatable', reason, { param: 'text' }), 'ok']);
    const sleep = async (ms: number): Promise<void> => void waits.push(ms);
    const failure = await translateUnitTexts(engine, ['ok ok'], unit({ sleep })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UnitFailure);
    expect(failure).toMatchObject({ code: 'TRANSLATION_ERROR', message: reason });
    expect(engine.calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("stops waiting at once when the job's signal aborts", async () => {
    const controller = new AbortController();
    const engine = scriptedEngine([overloaded(30)]);
    const pending = translateUnitTexts(engine, ['a'], unit({ signal: controller.signal, queueWaitMs: 60_000 }));
    setTimeout(() => controller.abort('shutdown'), 20);
    const started = performance.now();
    await expect(pending).rejects.toBe('shutdown');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
