// The translation engine's admission, fair shares and output bound on the shipped model
// (models/translate-am-en-ti-v1) with small limits: a text request is weighed whole and refused
// past its maximum or when it does not fit; a tenant holds at most its share; a file job's
// (beam) request of any length keeps only its window queued and shares the worker round-robin;
// every row stops at its output cap in greedy and beam decoding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputCap } from '../../src/engines/translation/output-cap.js';
import { OnnxSeq2Seq } from '../../src/engines/translation/onnx-seq2seq.js';
import { beamSearch, greedySearch, type SearchRow } from '../../src/engines/translation/seq2seq-search.js';
import { OnnxTranslationEngine, readTranslationManifest } from '../../src/engines/translation/translation.js';
import { TranslationTokenizer } from '../../src/engines/translation/translation-tokenizer.js';
import { SAMPLES, TRANSLATION_MODEL_DIR } from '../helpers/translation-model.js';

// The network's queue is under test: every direction goes to it (the shipped folder's transfer tables would answer them all).
const LIMITS = { maxBatch: 8, maxWaitMs: 2, maxQueued: 12, maxQueuedPerTenant: 8, maxRequestSentences: 6, workerNice: null, wordTransfer: false } as const;
/** Two beam batches of maxBatch / beam_size (8 / 4) sentences. */
const BEAM_WINDOW = 4;

let engine: OnnxTranslationEngine;
beforeAll(async () => {
  engine = await OnnxTranslationEngine.open(TRANSLATION_MODEL_DIR, LIMITS);
}, 120_000);
afterAll(async () => engine?.close());

const sentences = (count: number): string => Array.from({ length: count }, (_, i) => SAMPLES.en[i % 3]).join(' ');

describe('admission', () => {
  it('answers a text of more sentences than the per-request maximum with invalid_value on text, naming the limit', async () => {
    const refused = await engine.translate(sentences(7), 'en', 'am', { tenant: 'a' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ engineError: 'invalid_value', param: 'text' });
    expect((refused as Error).message).toContain('at most 6');
    expect(await engine.translate(sentences(6), 'en', 'am', { tenant: 'a' })).not.toBe('');
  }, 60_000);

  it('weighs each text whole: a tenant gets its share, another tenant the room left, nobody more', async () => {
    const refusals = engine.stats().refused;
    // Each call holds its room before it returns, so the order below is the order of admission.
    const first = engine.translate(sentences(6), 'en', 'ti', { tenant: 'a' });
    const second = engine.translate(sentences(3), 'en', 'ti', { tenant: 'a' });
    const other = engine.translate(sentences(6), 'en', 'ti', { tenant: 'b' });
    const third = engine.translate(sentences(1), 'en', 'ti', { tenant: 'c' });
    const [a1, a2, b, c] = await Promise.allSettled([first, second, other, third]);
    expect(a1.status).toBe('fulfilled');
    // 6 + 3 is over tenant a's share of 8.
    expect(a2).toMatchObject({ status: 'rejected', reason: { engineError: 'overloaded' } });
    expect((a2 as PromiseRejectedResult).reason.message).toContain('at most 8 at once');
    expect((a2 as PromiseRejectedResult).reason.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(b.status).toBe('fulfilled');
    // 6 + 6 fill the 12 sentences of room: one more does not fit.
    expect(c).toMatchObject({ status: 'rejected', reason: { engineError: 'overloaded' } });
    expect((c as PromiseRejectedResult).reason.message).toContain('queue is full');
    expect(engine.stats().refused - refusals).toBe(2);
    // The holds were released: the same requests fit again.
    expect(await engine.translate(sentences(3), 'en', 'ti', { tenant: 'a' })).not.toBe('');
  }, 60_000);
});

describe('fair shares', () => {
  it("keeps a long beam request to its window and serves another tenant's short request before it ends", async () => {
    const lines = Array.from({ length: 16 }, (_, i) => `Where is the hospital ${i}?`);
    let mostQueued = 0;
    const sampler = setInterval(() => {
      mostQueued = Math.max(mostQueued, engine.stats().queued);
    }, 2);
    const finished: string[] = [];
    try {
      const big = engine.translateMany(lines, 'en', 'am', { mode: 'beam', tenant: 'big' }).then((out) => {
        finished.push('big');
        return out;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const small = engine.translateMany([SAMPLES.en[1]!], 'en', 'am', { mode: 'beam', tenant: 'small' }).then((out) => {
        finished.push('small');
        return out;
      });
      const [bigOut, smallOut] = await Promise.all([big, small]);
      expect(bigOut).toHaveLength(16);
      expect(smallOut[0]!.length).toBeGreaterThan(0);
    } finally {
      clearInterval(sampler);
    }
    expect(finished).toEqual(['small', 'big']);
    // 16 sentences, never more than the window of each request queued.
    expect(mostQueued).toBeLessThanOrEqual(2 * BEAM_WINDOW);
  }, 120_000);
});

describe('the output bound', () => {
  it('stops every row at ceil(ratio x source pieces) + extra in greedy and beam decoding, looping rows included', async () => {
    const manifest = readTranslationManifest(TRANSLATION_MODEL_DIR);
    const tokenizer = await TranslationTokenizer.open(manifest.tokenizer, manifest.specialIds.unk);
    const model = await OnnxSeq2Seq.open(manifest, { intraOpThreads: 1 });
    try {
      const banned = new Set([manifest.specialIds.pad, ...['am', 'en', 'ti'].map((l) => tokenizer.tokenId(manifest.targetTags[l as 'am']!))]);
      // Short texts the shipped model loops on (it repeats pieces until something stops it).
      const rows: SearchRow[] = (
        [
          ['Yes.', 'en'],
          ['Yes.', 'am'],
          ['Hello.', 'am'],
          ['ሰላም።', 'am'],
        ] as const
      ).map(([text, target]) => {
        const pieces = tokenizer.encode(text).ids;
        return {
          source: [tokenizer.tokenId(manifest.targetTags[target]!), ...pieces, manifest.specialIds.eos],
          prefix: [manifest.specialIds.decoderStart],
          maxNew: outputCap(pieces.length, manifest.decoding),
        };
      });
      const settings = { eos: manifest.specialIds.eos, banned, beamSize: 1, lengthPenalty: manifest.decoding.lengthPenalty };
      const greedy = await greedySearch(model, rows, settings);
      const beam = await beamSearch(model, rows, { ...settings, beamSize: manifest.decoding.beamSize });
      for (const generated of [greedy, beam]) {
        generated.forEach((ids, r) => expect(ids.length).toBeLessThanOrEqual(rows[r]!.maxNew));
      }
      // The cap is what stopped the looping rows: without it they run on (to 40 pieces and more).
      expect(greedy.some((ids, r) => ids.length === rows[r]!.maxNew)).toBe(true);
      const uncapped = await greedySearch(
        model,
        rows.map((r) => ({ ...r, maxNew: 40 })),
        settings,
      );
      expect(Math.max(...uncapped.map((ids) => ids.length))).toBeGreaterThan(Math.max(...rows.map((r) => r.maxNew)));
    } finally {
      await model.release();
    }
  }, 120_000);
});
