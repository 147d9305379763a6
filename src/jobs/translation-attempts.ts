/**
 * One file translation unit's call of the engine, with its retries and its waits for room. A
 * refusal because the engine's queue is full (`overloaded`) is not a failure: the unit waits the
 * refusal's `retryAfterSeconds` (with a tenth of jitter) and asks again, spending no retry, for at
 * most `queueWaitMs` in all. A sentence the decoding guards find untranslatable (`untranslatable`)
 * fails the unit at once with TRANSLATION_ERROR: the same model would fail it again. Any other
 * error spends one of the unit's 3 retries (after
 * `retryDelayMs`, doubling). Every wait ends at once when the job's signal aborts (shutdown, lost
 * lease, delete); the abort reason is then thrown.
 */
import { isEngineError } from '../platform/errors/api-error.js';
import type { TranslationEngine, TranslationLanguage } from '../engines/translation/translation.js';
import { UnitFailure } from './translation-documents.js';

/** Retries of a unit's translation after its first attempt failed (the spec's Limits table). */
export const TRANSLATION_RETRIES = 3;

export interface UnitTranslation {
  readonly source: TranslationLanguage;
  readonly target: TranslationLanguage;
  /** The job's account: the engine's tenant, served round-robin with other accounts. */
  readonly tenant: string;
  readonly signal: AbortSignal;
  /** Wait before the first retry of a failed translation, doubled for each further one. */
  readonly retryDelayMs: number;
  /** Most time spent in all waiting for room in a full queue. */
  readonly queueWaitMs: number;
  /** How waits are made (tests record them); default `abortableSleep`. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** The translations of `texts` (beam search), in order; a UnitFailure('TRANSLATION_ERROR') when retries or the queue wait run out. */
export async function translateUnitTexts(engine: TranslationEngine, texts: readonly string[], unit: UnitTranslation): Promise<string[]> {
  const { signal } = unit;
  const sleep = unit.sleep ?? abortableSleep;
  let failures = 0;
  let waitedMs = 0;
  for (;;) {
    try {
      const out = await engine.translateMany(texts, unit.source, unit.target, { mode: 'beam', signal, tenant: unit.tenant });
      if (out.length !== texts.length || out.some((t) => typeof t !== 'string')) {
        throw new Error(`the engine returned ${out.length} translations for ${texts.length} texts`);
      }
      return out;
    } catch (error) {
      signal.throwIfAborted();
      // A sentence the guarded decoding could not translate soundly fails the same way every time.
      if (isEngineError(error) && error.engineError === 'untranslatable') {
        throw new UnitFailure('TRANSLATION_ERROR', error.message.slice(0, 500));
      }
      if (isEngineError(error) && error.engineError === 'overloaded') {
        const waitMs = Math.max(1, error.retryAfterSeconds ?? 1) * 1000 * (0.95 + Math.random() * 0.1);
        if (waitedMs + waitMs > unit.queueWaitMs) {
          throw new UnitFailure(
            'TRANSLATION_ERROR',
            `The translation queue stayed full for ${Math.round(waitedMs / 1000)} s (at most ${Math.round(unit.queueWaitMs / 1000)} s of waiting per unit): ${error.message}`.slice(
              0,
              500,
            ),
          );
        }
        await sleep(waitMs, signal);
        waitedMs += waitMs;
        continue;
      }
      if (failures === TRANSLATION_RETRIES) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new UnitFailure('TRANSLATION_ERROR', `Translation failed after ${TRANSLATION_RETRIES} retries: ${reason}`.slice(0, 500));
      }
      await sleep(unit.retryDelayMs * 2 ** failures, signal);
      failures++;
    }
  }
}
