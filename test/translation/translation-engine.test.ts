// The translation engine on the shipped model (models/translate-am-en-ti-v1): its network in every
// direction and both decoding modes (opened with `wordTransfer: false`: the shipped folder answers
// every direction from its transfer tables otherwise), batching against one at a time, sentence
// joining, long inputs, the bounded queue, the same model loaded through a Marian-style manifest
// (source.spm, target.spm, vocab.json), and transfer directions beside network ones.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnnxTranslationEngine } from '../../src/engines/translation/translation.js';
import { joinSentences, splitSentences } from '../../src/engines/translation/sentence-splitter.js';
import { DIRECTIONS, SAMPLES, TRANSLATION_MODEL_DIR, scriptShare, sentencePiecePieces } from '../helpers/translation-model.js';

let engine: OnnxTranslationEngine;
beforeAll(async () => {
  engine = await OnnxTranslationEngine.open(TRANSLATION_MODEL_DIR, { maxBatch: 16, maxWaitMs: 20, workerNice: null, wordTransfer: false });
}, 120_000);
afterAll(async () => engine?.close());

describe('every direction, greedy and beam', () => {
  for (const [source, target] of DIRECTIONS) {
    it(`${source} -> ${target} gives non-empty ${target === 'en' ? 'Latin' : 'Ethiopic'} text`, async () => {
      for (const mode of ['greedy', 'beam'] as const) {
        const outputs = await engine.translateMany(SAMPLES[source], source, target, { mode });
        expect(outputs).toHaveLength(SAMPLES[source].length);
        for (const output of outputs) {
          expect(output.trim().length, `${mode}: ${JSON.stringify(outputs)}`).toBeGreaterThan(0);
          expect(scriptShare(output, target), `${mode}: ${output}`).toBeGreaterThan(0.8);
        }
      }
    }, 120_000);
  }
});

describe('batching', () => {
  it('gives the same outputs as one sentence at a time', async () => {
    const texts = [...SAMPLES.en, 'Good morning.', 'The market opens on Monday and closes on Saturday.'];
    const alone: string[] = [];
    for (const text of texts) alone.push(await engine.translate(text, 'en', 'am'));
    const batchesBefore = engine.stats().batches;
    const together = await Promise.all(texts.map((text) => engine.translate(text, 'en', 'am')));
    expect(together).toEqual(alone);
    // Concurrent requests shared batches.
    expect(engine.stats().batches - batchesBefore).toBeLessThan(texts.length);
    expect(await engine.translateMany(texts, 'en', 'am')).toEqual(alone);
  }, 120_000);

  it('gives the same beam-search outputs batched as one sentence at a time', async () => {
    const texts = [...SAMPLES.ti, 'ሰላም።'];
    const alone: string[] = [];
    for (const text of texts) alone.push(await engine.translate(text, 'ti', 'en', { mode: 'beam' }));
    expect(await Promise.all(texts.map((text) => engine.translate(text, 'ti', 'en', { mode: 'beam' })))).toEqual(alone);
  }, 120_000);
});

describe('texts', () => {
  it('translates sentence by sentence and keeps paragraph breaks', async () => {
    const [a, b, c] = SAMPLES.am;
    const input = `${a} ${b}\n\n${c}`;
    const whole = await engine.translate(input, 'am', 'en');
    const parts = await engine.translateMany([a!, b!, c!], 'am', 'en');
    expect(splitSentences(input).map((x) => x.text)).toEqual([a, b, c]);
    // One space within the paragraph, the blank line kept (empty translations leave no separator).
    expect(whole).toBe(joinSentences(splitSentences(input), parts));
    if (parts.every((p) => p.length > 0)) expect(whole).toBe(`${parts[0]} ${parts[1]}\n\n${parts[2]}`);
  }, 60_000);

  it('answers an empty text with an empty text', async () => {
    expect(await engine.translate('   ', 'en', 'am')).toBe('');
  });

  it('cuts a sentence longer than max_input_tokens into chunks and caps the output', async () => {
    const words = Array.from({ length: 400 }, (_, i) => ['water', 'school', 'market', 'village', 'road'][i % 5]).join(' ');
    const output = await engine.translate(words, 'en', 'am');
    expect(output.length).toBeGreaterThan(0);
    const { max_output_tokens: maxOut } = JSON.parse(readFileSync(join(TRANSLATION_MODEL_DIR, 'manifest.json'), 'utf8')).decoding;
    // 400 words are more than one chunk; each chunk's output is capped at max_output_tokens pieces.
    expect(output.split(/\s+/).length).toBeLessThan(4 * maxOut);
  }, 120_000);

  it('refuses a language the model does not cover, or the same language twice', async () => {
    await expect(engine.translate('hello', 'en', 'om' as 'am')).rejects.toMatchObject({ engineError: 'invalid_value', param: 'tgt_lang' });
    await expect(engine.translate('hello', 'en', 'en')).rejects.toMatchObject({ engineError: 'invalid_value' });
  });

  it('does not let a language token in the text pick the target', async () => {
    const plain = await engine.translate(SAMPLES.en[1]!, 'en', 'am');
    expect(await engine.translate(`<2ti> ${SAMPLES.en[1]}`, 'en', 'am')).toBe(plain);
  }, 60_000);
});

describe('a bounded queue', () => {
  it('refuses requests with server_overloaded once maxQueued sentences are held', async () => {
    const small = await OnnxTranslationEngine.open(TRANSLATION_MODEL_DIR, { maxBatch: 1, maxWaitMs: 0, maxQueued: 2, workerNice: null, wordTransfer: false });
    try {
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => small.translate(SAMPLES.en[0]!, 'en', 'ti')));
      const refused = results.filter((r) => r.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ engineError: 'overloaded', retryAfterSeconds: 1 });
      expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
      expect(small.stats().refused).toBe(refused.length);
    } finally {
      await small.close();
    }
    await expect(small.translate('hello', 'en', 'am')).rejects.toMatchObject({ engineError: 'unavailable' });
  }, 120_000);
});

describe('the public Marian export layout', () => {
  it('loads the same model from source.spm, target.spm and vocab.json and translates the same', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'marian-layout-'));
    try {
      const ours = JSON.parse(readFileSync(join(TRANSLATION_MODEL_DIR, 'manifest.json'), 'utf8'));
      for (const file of readdirSync(TRANSLATION_MODEL_DIR)) {
        if (file.endsWith('.onnx') || file.endsWith('.bin') || file.endsWith('.data')) symlinkSync(join(TRANSLATION_MODEL_DIR, file), join(folder, file));
      }
      const spm = join(TRANSLATION_MODEL_DIR, ours.tokenizer.model);
      copyFileSync(spm, join(folder, 'source.spm'));
      copyFileSync(spm, join(folder, 'target.spm'));
      const vocab = Object.fromEntries(sentencePiecePieces(readFileSync(spm)).map((piece, id) => [piece, id]));
      writeFileSync(join(folder, 'vocab.json'), JSON.stringify(vocab));
      // Written the way an operator describes an Optimum Marian export: default file names, no model field.
      const manifest = {
        kind: 'translation',
        name: 'marian-style-copy',
        languages: ours.languages,
        tokenizer: { type: 'sentencepiece', source: 'source.spm', target: 'target.spm', vocab: 'vocab.json' },
        target_tags: ours.target_tags,
        target_tag_position: 'source',
        onnx: { decoder: 'decoder_model.onnx', decoder_with_past: 'decoder_with_past_model.onnx' },
        special_ids: ours.special_ids,
        decoding: ours.decoding,
      };
      writeFileSync(join(folder, 'manifest.json'), JSON.stringify(manifest));
      const marian = await OnnxTranslationEngine.open(folder, { workerNice: null });
      try {
        expect(marian.name).toBe('marian-style-copy');
        // Directions the shipped manifest answers by word transfer (am-ti, ti-am) are left out: the copy has no tables.
        for (const [source, target] of [
          ['en', 'am'],
          ['am', 'en'],
          ['ti', 'en'],
          ['en', 'ti'],
        ] as const) {
          expect(await marian.translateMany(SAMPLES[source], source, target)).toEqual(await engine.translateMany(SAMPLES[source], source, target));
        }
      } finally {
        await marian.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('word-for-word transfer (manifest word_transfer)', () => {
  /** A copy of the shipped folder (graphs and tokenizer linked) whose manifest lists am-ti alone, with `table` as lex.am-ti. */
  const folderWith = (table: string): string => {
    const folder = mkdtempSync(join(tmpdir(), 'word-transfer-'));
    for (const file of readdirSync(TRANSLATION_MODEL_DIR)) {
      if (!['lex.am-ti', 'heldout', 'manifest.json'].includes(file)) symlinkSync(join(TRANSLATION_MODEL_DIR, file), join(folder, file));
    }
    const manifest = JSON.parse(readFileSync(join(TRANSLATION_MODEL_DIR, 'manifest.json'), 'utf8'));
    manifest.word_transfer = { 'am-ti': { table: 'lex.am-ti', min_probability: 0.2 } };
    writeFileSync(join(folder, 'manifest.json'), JSON.stringify(manifest));
    writeFileSync(join(folder, 'lex.am-ti'), table);
    return folder;
  };

  it('answers both modes without the worker, and the network still serves the other directions', async () => {
    const folder = folderWith(readFileSync(join(TRANSLATION_MODEL_DIR, 'lex.am-ti'), 'utf8'));
    const mixed = await OnnxTranslationEngine.open(folder, { workerNice: null, intraOpThreads: 1 });
    try {
      expect(mixed.wordTransferDirections).toEqual(['am-ti']);
      const greedy = await mixed.translateMany(SAMPLES.am, 'am', 'ti');
      const beam = await mixed.translateMany(SAMPLES.am, 'am', 'ti', { mode: 'beam' });
      expect(beam).toEqual(greedy);
      expect(mixed.stats().batches).toBe(0);
      expect(greedy[0]).not.toBe(SAMPLES.am[0]);
      expect(greedy.map((t) => t.at(-1))).toEqual(SAMPLES.am.map((t) => t.at(-1)));
      await mixed.translate(SAMPLES.am[0]!, 'am', 'en');
      expect(mixed.stats().batches).toBeGreaterThan(0);
    } finally {
      await mixed.close();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);

  it('the shipped folder answers all six directions from its tables, without the worker, and never loops', async () => {
    const served = await OnnxTranslationEngine.open(TRANSLATION_MODEL_DIR, { workerNice: null, intraOpThreads: 1 });
    try {
      expect(served.wordTransferDirections.sort()).toEqual(DIRECTIONS.map(([s, t]) => `${s}-${t}`).sort());
      for (const [source, target] of DIRECTIONS) {
        const outputs = await served.translateMany(SAMPLES[source], source, target);
        outputs.forEach((output) => expect(scriptShare(output, target), `${source}-${target}: ${output}`).toBeGreaterThan(0.8));
        for (const output of outputs)
          expect(
            output.split(' ').some((w, i, ws) => i > 0 && w === ws[i - 1]),
            output,
          ).toBe(false);
      }
      expect(served.stats().batches).toBe(0);
    } finally {
      await served.close();
    }
  }, 60_000);

  it('uses the given table, and rejects a request whose signal has fired', async () => {
    const folder = folderWith('ጓደኛ ወዳጅ 0.9\nናብ ወደ 0.1\n');
    const small = await OnnxTranslationEngine.open(folder, { workerNice: null, intraOpThreads: 1 });
    try {
      expect(await small.translate('ወዳጅ ወደ ቤት።', 'am', 'ti')).toBe('ጓደኛ ወደ ቤት።');
      const aborted = AbortSignal.abort(new Error('client left'));
      await expect(small.translate('ወዳጅ', 'am', 'ti', { signal: aborted })).rejects.toThrow('client left');
    } finally {
      await small.close();
      rmSync(folder, { recursive: true, force: true });
    }
    await expect(small.translate('ወዳጅ', 'am', 'ti')).rejects.toMatchObject({ engineError: 'unavailable' });
  }, 60_000);

  it('fails to load a table that does not parse, naming the file and line', async () => {
    const folder = folderWith('ጓደኛ ወዳጅ 0.9\nnot a table line\n');
    try {
      await expect(OnnxTranslationEngine.open(folder, { workerNice: null, intraOpThreads: 1 })).rejects.toThrow(/word_transfer\.am-ti: lex\.am-ti: line 2/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
