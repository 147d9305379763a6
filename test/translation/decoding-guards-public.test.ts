// The decoding guards on a public export's layout: the NLLB-200 / M2M100 fixture
// (test/fixtures/nllb-tiny: random weights, merged decoder, SentencePiece with fairseq's id offset
// 1, language codes as added tokens), served by the engine through a manifest written by hand as
// docs/translation-models.md shows. The guards read each id's text from the SentencePiece model
// with the offset (checked against the tokenizer's own decoding, id by id), and a random model's
// outputs, which loop without them, come back sound with them.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDegeneracies } from '../../src/engines/scoring/degenerate-output.js';
import { OnnxTranslationEngine } from '../../src/engines/translation/onnx-translation-engine.js';
import { readTranslationManifest } from '../../src/engines/translation/translation-manifest.js';
import { TranslationTokenizer } from '../../src/engines/translation/translation-tokenizer.js';
import { HUB_CASES as CASES } from '../helpers/hub-models.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/nllb-tiny', import.meta.url));
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'nllb-guards-'));
  await cp(FIXTURE, folder, { recursive: true });
  const config = JSON.parse(await readFile(join(folder, 'config.json'), 'utf8')) as Record<string, number>;
  const tokenizer = JSON.parse(await readFile(join(folder, 'tokenizer.json'), 'utf8')) as { added_tokens: { content: string; id: number }[] };
  const id = (code: string): number => tokenizer.added_tokens.find((t) => t.content === code)!.id;
  const codes = { en: 'eng_Latn', am: 'amh_Ethi', ti: 'tir_Ethi' };
  await writeFile(
    join(folder, 'manifest.json'),
    JSON.stringify({
      kind: 'translation',
      name: 'nllb-tiny',
      languages: ['en', 'am', 'ti'],
      tokenizer: {
        type: 'sentencepiece',
        model: 'sentencepiece.bpe.model',
        id_offset: 1,
        added_tokens: Object.fromEntries(Object.values(codes).map((c) => [c, id(c)])),
      },
      source_tags: codes,
      target_tags: codes,
      target_tag_position: 'decoder',
      onnx: { encoder: 'onnx/encoder_model.onnx', decoder_merged: 'onnx/decoder_model_merged.onnx' },
      layers: config['decoder_layers'],
      heads: config['decoder_attention_heads'],
      head_dim: config['d_model']! / config['decoder_attention_heads']!,
      special_ids: { pad: config['pad_token_id'], unk: 3, eos: config['eos_token_id'], decoder_start: config['decoder_start_token_id'] },
      decoding: { max_output_tokens: 64 },
    }),
  );
});
afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('decoding guards on an NLLB-layout export', () => {
  it("read every id's text through the fairseq offset: the tokenizer decodes each id to it", async () => {
    const manifest = readTranslationManifest(folder);
    const tokenizer = await TranslationTokenizer.open(manifest.tokenizer, manifest.specialIds.unk);
    const texts = tokenizer.pieceTexts();
    // fairseq's <s> <pad> </s> <unk> and the language codes carry no text.
    for (const special of [0, 1, 2, 3, 65, 66, 68]) expect(texts[special]).toBe('');
    let compared = 0;
    for (let id = 4; id < texts.length; id++) {
      if (texts[id] === '' || Object.values(manifest.tokenizer.addedTokens).includes(id)) continue;
      expect(tokenizer.decode([id]), `id ${id}`).toBe(texts[id]!.trim());
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('a random model loops without the guards and comes back sound with them, greedy and beam', async () => {
    const open = (decodingGuards: boolean) => OnnxTranslationEngine.open(folder, { workerNice: null, intraOpThreads: 1, decodingGuards });
    const [off, on] = await Promise.all([open(false), open(true)]);
    try {
      let loopsWithout = 0;
      for (const mode of ['greedy', 'beam'] as const) {
        for (const { text, source, target } of CASES) {
          const plain = await off.translate(text, source, target, { mode });
          if (findDegeneracies(plain, text).length > 0) loopsWithout++;
          const guarded = await on.translate(text, source, target, { mode }).catch((error: { engineError?: string }) => {
            // A sentence with no sound output is refused, never answered with a loop.
            expect(error.engineError).toBe('untranslatable');
            return '';
          });
          expect(findDegeneracies(guarded, text), `${mode} ${source}->${target}: ${guarded}`).toEqual([]);
        }
      }
      expect(loopsWithout).toBeGreaterThan(0);
    } finally {
      await Promise.all([off.close(), on.close()]);
    }
  }, 120_000);
});
