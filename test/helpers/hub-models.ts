// Public exports in the transformers.js layout, as the parity tests meet them: a local hub folder
// @huggingface/transformers loads them from (local files only) and, for the translation exports
// (test/fixtures/nllb-tiny, marian-tiny), the sentences translated and the check of the gateway
// against the reference's greedy `generate`. Uses vitest's hooks and expect: tests only.
import { AutoModelForSeq2SeqLM, AutoTokenizer, env, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { beforeAll, expect } from 'vitest';
import { OnnxSeq2Seq } from '../../src/engines/translation/onnx-seq2seq.js';
import { OnnxTranslationEngine } from '../../src/engines/translation/onnx-translation-engine.js';
import { outputCap } from '../../src/engines/translation/output-cap.js';
import { greedySearch } from '../../src/engines/translation/seq2seq-search.js';
import type { TranslationLanguage } from '../../src/engines/translation/translation-engine.js';
import { readTranslationManifest } from '../../src/engines/translation/translation-manifest.js';
import { TranslationTokenizer } from '../../src/engines/translation/translation-tokenizer.js';
import { useScratchDir } from './suite-fixtures.js';

export interface HubCase {
  text: string;
  source: TranslationLanguage;
  target: TranslationLanguage;
}

/** Sentences in the fixtures' toy vocabulary, every direction but ti→en. */
export const HUB_CASES: readonly HubCase[] = [
  { text: 'the good day is water.', source: 'en', target: 'am' },
  { text: 'a good day.', source: 'en', target: 'ti' },
  { text: 'ሰላም ነው።', source: 'am', target: 'en' },
  { text: 'ደህና ቀን ውሃ ነው።', source: 'am', target: 'ti' },
  { text: 'ሰላምታ ቀን።', source: 'ti', target: 'am' },
  { text: 'water is good?', source: 'en', target: 'am' },
];

/** A scratch folder @huggingface/transformers loads models from by name (no remote models); the function gives paths inside it. */
export function useLocalHub(prefix: string): (...parts: string[]) => string {
  const path = useScratchDir(prefix);
  beforeAll(() => {
    env.allowRemoteModels = false;
    env.localModelPath = path();
  });
  return path;
}

/** How one export's layout marks languages. */
export interface HubLayout {
  /** Each language's tag token (Marian's `>>amh<<`, NLLB's `amh_Ethi`). */
  tags: Record<TranslationLanguage, string>;
  /** The language whose tag opens the source: the target (Marian) or the source (NLLB). */
  sourceTag: (c: HubCase) => TranslationLanguage;
  /** Whether the decoder is given the target's tag after its start token (NLLB). */
  targetTagInDecoder: boolean;
  /** The reference tokenizer's source ids for a case, and its greedy `generate` of `maxNew` new tokens (ours' cap). */
  reference: (
    tokenizer: PreTrainedTokenizer,
    model: Awaited<ReturnType<typeof AutoModelForSeq2SeqLM.from_pretrained>>,
    c: HubCase,
  ) => { sourceIds: number[]; generate: (maxNew: number) => Promise<Tensor> };
}

/**
 * Checks the imported model `name` (in the local hub at `dir`, manifest written) case by case
 * against the reference, greedy, decoding guards off: the same source ids, the same output tokens
 * (some ending before the cap), and the engine's texts, batched, equal to the reference's decoded
 * text of each sentence alone.
 */
export async function expectHubParity(dir: string, name: string, layout: HubLayout, cases: readonly HubCase[] = HUB_CASES): Promise<void> {
  const manifest = readTranslationManifest(dir);
  const { eos, pad, decoderStart } = manifest.specialIds;
  const tokenizer = (await AutoTokenizer.from_pretrained(name)) as PreTrainedTokenizer;
  const reference = await AutoModelForSeq2SeqLM.from_pretrained(name, { dtype: 'fp32' });
  const ours = await TranslationTokenizer.open(manifest.tokenizer, manifest.specialIds.unk);
  const seq2seq = await OnnxSeq2Seq.open(manifest, { intraOpThreads: 1 });
  const engine = await OnnxTranslationEngine.open(dir, { intraOpThreads: 1, workerNice: null, decodingGuards: false, maxWaitMs: 50 });
  try {
    const tagId = (language: TranslationLanguage): number => ours.tokenId(layout.tags[language]);
    const expectedTexts: string[] = [];
    let ended = 0;
    for (const c of cases) {
      const run = layout.reference(tokenizer, reference, c);
      const pieces = ours.encode(c.text).ids;
      const sourceIds = [tagId(layout.sourceTag(c)), ...pieces, eos];
      expect(run.sourceIds, `${c.source} ${c.text}`).toEqual(sourceIds);

      const maxNew = outputCap(pieces.length, manifest.decoding);
      const prefix = layout.targetTagInDecoder ? [decoderStart, tagId(c.target)] : [decoderStart];
      const [tokens] = await greedySearch(seq2seq, [{ source: sourceIds, prefix, maxNew }], {
        eos,
        banned: new Set([pad, ...Object.values(layout.tags).map((t) => ours.tokenId(t))]),
        beamSize: 1,
        lengthPenalty: 1,
      });
      const generated = ((await run.generate(maxNew)).tolist()[0] as bigint[]).map(Number);
      expect(generated.slice(0, prefix.length), c.text).toEqual(prefix);
      if (generated.at(-1) === eos) ended++;
      expect(tokens, c.text).toEqual(generated.slice(prefix.length).filter((id) => id !== eos));
      expect(tokens!.length).toBeGreaterThan(0);
      expectedTexts.push(tokenizer.decode(generated, { skip_special_tokens: true }));
    }
    expect(ended, 'some sentences end before the cap').toBeGreaterThan(0);
    // The engine end to end (sentence queue, worker, batching with padding): the same texts.
    const served = await Promise.all(cases.map(({ text, source, target }) => engine.translate(text, source, target, { mode: 'greedy' })));
    expect(served).toEqual(expectedTexts);
  } finally {
    await engine.close();
    await seq2seq.release();
  }
}
