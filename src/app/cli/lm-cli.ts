/**
 * npm run lm -- build --lang <am|om|ti> --order <n> --out <file.bin>
 *                    [--data <dir>] [--min-counts 1,1,1,2,2,2] [--min-char-count 2]
 *                    [--punctuation drop|keep] [--casing keep|lower]
 *     Builds a character n-gram LM from the shared text corpora (see src/engines/asr/decoding/lm/lm-corpus.ts for the
 *     sources and the ALFFA hold-out rule) and writes <file.bin> plus <file.bin>.json (sources,
 *     licences, options, counts, held-out perplexity).
 * npm run lm -- info <file.bin>     header and entry counts
 * npm run lm -- eval <file.bin> --lang am [--data <dir>]
 *     Per-character perplexity on the held-out text (HornMT lines 1900..; ALFFA with audio for am).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildCharNgramLm,
  CharNgramLm,
  corpusSources,
  FLAG_LOWERCASE,
  FLAG_PUNCTUATION,
  forLm,
  HORNMT_HELD_OUT_FROM,
  parseKaldiText,
  readCorpus,
  usesEthiopicScript,
} from '../../engines/asr/asr.js';
import { parseFlags, runCommand } from './cli-flags.js';

const USAGE =
  'usage: npm run lm -- build --lang am|om|ti --order N --out FILE [--data DIR] [--min-counts a,b,..] [--min-char-count K] [--punctuation drop|keep] [--casing keep|lower] | info FILE | eval FILE --lang L';

const DEFAULT_DATA = process.env.DATA_DIR ?? '/work/shared/data';

/**
 * Per-character perplexity (</s> included) of the held-out text, normalised as for the LM:
 * HornMT lines 1900.. (every language) and, for am, the 1,000 ALFFA transcripts with audio.
 */
async function heldOutPerplexity(
  lm: CharNgramLm,
  dataDir: string,
  language: string,
): Promise<Record<string, { sentences: number; characters: number; perplexity: number }>> {
  const sets: Record<string, string[]> = {
    hornmt_1900_on: (await readFile(corpusSources(dataDir, language).find((s) => s.name === 'hornmt')!.path, 'utf8')).split('\n').slice(HORNMT_HELD_OUT_FROM),
  };
  if (language === 'am') sets.alffa_with_audio = [...parseKaldiText(await readFile(join(dataDir, 'alffa-am-train/text'), 'utf8')).values()];
  const out: Record<string, { sentences: number; characters: number; perplexity: number }> = {};
  for (const [name, texts] of Object.entries(sets)) {
    let logSum = 0;
    let chars = 0;
    let sentences = 0;
    for (const text of texts) {
      const norm = forLm(text, language, { punctuation: lm.punctuation ? 'canonical' : 'drop', casing: lm.lowercase ? 'lower' : 'keep' });
      if (!norm) continue;
      const symbols = Array.from(norm, (c) => lm.symbol(c));
      logSum += lm.sentenceLogProb(symbols);
      chars += symbols.length + 1;
      sentences++;
    }
    out[name] = { sentences, characters: chars, perplexity: Math.round(Math.exp(-logSum / chars) * 1000) / 1000 };
  }
  return out;
}

async function build(argv: string[]): Promise<number> {
  const f = parseFlags(argv);
  const language = f.get('lang');
  const order = Number(f.get('order') ?? '6');
  const out = f.get('out');
  if (!language || !out || !Number.isInteger(order)) throw new Error(USAGE);
  const dataDir = f.get('data') ?? DEFAULT_DATA;
  const punctuation = f.get('punctuation') === 'keep' ? 'canonical' : 'drop';
  const casing = (f.get('casing') as 'keep' | 'lower' | undefined) ?? (usesEthiopicScript(language) ? 'keep' : 'lower');
  const minCounts = f.get('min-counts')?.split(',').map(Number);
  const minCharCount = Number(f.get('min-char-count') ?? '2');
  const started = performance.now();
  const { lines, sources, excluded, heldOutIds } = await readCorpus(dataDir, language);
  const sentences = lines.map((l) => forLm(l.text, language, { punctuation, casing })).filter((s) => s.length > 0);
  const lmFlags = (casing === 'lower' ? FLAG_LOWERCASE : 0) | (punctuation === 'canonical' ? FLAG_PUNCTUATION : 0);
  const { bytes, report } = buildCharNgramLm(sentences, { order, minCounts, minCharCount, flags: lmFlags });
  const buildMs = performance.now() - started;
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, bytes);
  const lm = CharNgramLm.fromBytes(bytes, out);
  const perplexity = await heldOutPerplexity(lm, dataDir, language);
  const meta = {
    file: basename(out),
    format: 'HNLM v1 character n-gram (src/engines/asr/decoding/lm/char-ngram-lm.ts)',
    language,
    unit: 'char',
    order,
    smoothing: 'interpolated Witten-Bell, backoff form, natural log',
    normalisation: { function: 'forLm (src/engines/asr/text/text-normalizer.ts)', punctuation, casing, numerals: 'ascii' },
    min_counts: minCounts ?? null,
    min_char_count: minCharCount,
    sources: sources.map((s) => ({
      name: s.name,
      file: s.path.replace(dataDir, '<data>'),
      licence: s.licence,
      lines: lines.filter((l) => l.source === s.name).length,
    })),
    held_out: `${language === 'am' ? `all ${heldOutIds} utterance ids of alffa-am-train/text (the ones with audio), ` : ''}HornMT lines 1900..2029 (0-based; the training pipeline's synthetic test text), and any line whose scoring form equals a held-out sentence: ${excluded} lines excluded (src/engines/asr/decoding/lm/lm-corpus.ts)`,
    report,
    held_out_char_perplexity: perplexity,
    command: `npm run lm -- build ${argv.join(' ')}`,
    build_seconds: Math.round(buildMs / 100) / 10,
    attribution:
      'Built from HornMT (Lesan AI, CC BY 4.0), AfriSenti SemEval-2023 (CC BY 4.0)' +
      (language === 'am' ? ' and ALFFA_PUBLIC Amharic transcripts (MIT)' : '') +
      '. Redistribution must keep this attribution.',
  };
  await writeFile(`${out}.json`, `${JSON.stringify(meta, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify({ out, ...report, excluded, build_seconds: meta.build_seconds, held_out_char_perplexity: perplexity }, null, 2)}\n`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'build') return build(rest);
  if ((command === 'info' || command === 'eval') && rest[0]) {
    const started = performance.now();
    const lm = await CharNgramLm.load(rest[0]);
    const loadMs = performance.now() - started;
    const info: Record<string, unknown> = {
      file: rest[0],
      order: lm.order,
      symbols: lm.symbols,
      lowercase: lm.lowercase,
      punctuation: lm.punctuation,
      counts: lm.counts(),
      bytes: lm.byteLength,
      load_ms: Math.round(loadMs * 10) / 10,
    };
    if (command === 'eval') {
      const language = parseFlags(rest.slice(1)).get('lang') ?? 'am';
      info.held_out_char_perplexity = await heldOutPerplexity(lm, parseFlags(rest.slice(1)).get('data') ?? DEFAULT_DATA, language);
    }
    process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
    return 0;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

runCommand(main);
