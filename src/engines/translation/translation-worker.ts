/**
 * Translation worker thread: owns the SentencePiece tokenizer (WebAssembly) and the
 * onnxruntime sessions of one translation model, and translates the batches of sentences the
 * engine sends: tokenise, cut sentences longer than `max_input_tokens` into chunks (at word
 * starts where it can), add the language tokens, decode all rows of the batch together (greedy
 * or beam search with the KV cache), turn ids back into text. onnxruntime-node's `run` and the
 * WASM tokenizer block the thread they run on, which is why all of it lives here and not on the
 * event loop (like the acoustic models' inference workers).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { OnnxSeq2Seq } from './onnx-seq2seq.js';
import { outputCap } from './output-cap.js';
import { chunkIds } from './token-chunks.js';
import { beamSearch, greedySearch, type SearchRow, type SearchSettings } from './seq2seq-search.js';
import type { TranslationLanguage } from './translation-engine.js';
import type { TranslationManifest } from './translation-manifest.js';
import type { FromTranslationWorker, ToTranslationWorker, TranslationWorkerSettings } from './translation-protocol.js';
import { TranslationTokenizer } from './translation-tokenizer.js';

const settings = workerData as TranslationWorkerSettings;
const port = parentPort!;
const post = (message: FromTranslationWorker): void => port.postMessage(message);

interface Loaded {
  readonly manifest: TranslationManifest;
  readonly tokenizer: TranslationTokenizer;
  readonly model: OnnxSeq2Seq;
  readonly targetIds: ReadonlyMap<TranslationLanguage, number>;
  readonly sourceIds: ReadonlyMap<TranslationLanguage, number> | null;
  /** Strings of the language tokens, removed from input text so that a text cannot pick its own target. */
  readonly tagStrings: readonly string[];
  readonly banned: ReadonlySet<number>;
}

async function load(): Promise<Loaded> {
  const { manifest } = settings;
  const [tokenizer, model] = await Promise.all([
    TranslationTokenizer.open(manifest.tokenizer, manifest.specialIds.unk),
    OnnxSeq2Seq.open(manifest, { intraOpThreads: settings.intraOpThreads }),
  ]);
  const targetIds = new Map<TranslationLanguage, number>();
  const sourceIds = manifest.sourceTags === null ? null : new Map<TranslationLanguage, number>();
  const tagStrings: string[] = [];
  for (const language of manifest.languages) {
    const target = manifest.targetTags[language]!;
    targetIds.set(language, tokenizer.tokenId(target));
    if (typeof target === 'string') tagStrings.push(target);
    const source = manifest.sourceTags?.[language];
    if (sourceIds !== null && source !== undefined) {
      sourceIds.set(language, tokenizer.tokenId(source));
      if (typeof source === 'string') tagStrings.push(source);
    }
  }
  const banned = new Set<number>([manifest.specialIds.pad, ...targetIds.values(), ...(sourceIds?.values() ?? [])]);
  if (manifest.specialIds.decoderStart !== manifest.specialIds.eos) banned.add(manifest.specialIds.decoderStart);
  return { manifest, tokenizer, model, targetIds, sourceIds, tagStrings, banned };
}

function stripTags(text: string, tags: readonly string[]): string {
  let out = text;
  for (const tag of tags) out = out.split(tag).join(' ');
  return out.replace(/\s+/g, ' ').trim();
}

interface Item {
  readonly text: string;
  readonly source: TranslationLanguage;
  readonly target: TranslationLanguage;
}

/** Translates every item (one sentence each); returns the texts and the number of model rows. */
async function translate(loaded: Loaded, items: readonly Item[], mode: 'greedy' | 'beam'): Promise<{ outputs: string[]; rows: number }> {
  const { manifest, tokenizer } = loaded;
  const { decoding, specialIds } = manifest;
  const rows: SearchRow[] = [];
  /** For each item, its rows' indices. */
  const owners: number[][] = [];
  for (const item of items) {
    const text = stripTags(item.text, loaded.tagStrings);
    const own: number[] = [];
    owners.push(own);
    if (text.length === 0) continue;
    const lead: number[] = [];
    if (manifest.targetTagPosition === 'source') lead.push(loaded.targetIds.get(item.target)!);
    const sourceTag = loaded.sourceIds?.get(item.source);
    if (sourceTag !== undefined) lead.push(sourceTag);
    const prefix = [specialIds.decoderStart];
    if (manifest.targetTagPosition === 'decoder') prefix.push(loaded.targetIds.get(item.target)!);
    const encoded = tokenizer.encode(text);
    const limit = Math.max(1, decoding.maxInputTokens - lead.length - 1);
    for (const chunk of chunkIds(encoded.ids, encoded.wordStarts, limit)) {
      if (chunk.length === 0) continue;
      const source = [...lead, ...chunk, specialIds.eos];
      own.push(rows.length);
      rows.push({ source, prefix, maxNew: outputCap(chunk.length, decoding) });
    }
  }
  if (rows.length === 0) return { outputs: items.map(() => ''), rows: 0 };
  const search: SearchSettings = {
    eos: specialIds.eos,
    banned: loaded.banned,
    beamSize: mode === 'beam' ? decoding.beamSize : 1,
    lengthPenalty: decoding.lengthPenalty,
  };
  const generated = mode === 'beam' ? await beamSearch(loaded.model, rows, search) : await greedySearch(loaded.model, rows, search);
  const texts = generated.map((ids) => tokenizer.decode(ids));
  return {
    outputs: owners.map((own) =>
      own
        .map((row) => texts[row]!)
        .filter((t) => t.length > 0)
        .join(' '),
    ),
    rows: rows.length,
  };
}

let loadedModel: Promise<Loaded> | null = null;
let queue: Promise<void> = Promise.resolve();

port.on('message', (message: ToTranslationWorker) => {
  switch (message.type) {
    case 'translate': {
      // One batch at a time (the engine sends one at a time; this keeps it so).
      queue = queue.then(async () => {
        const started = performance.now();
        try {
          const loaded = await loadedModel!;
          const { outputs, rows } = await translate(loaded, message.items, message.mode);
          post({ type: 'result', id: message.id, outputs, rows, workerMs: performance.now() - started });
        } catch (error) {
          post({ type: 'failed', id: message.id, message: (error as Error).message });
        }
      });
      break;
    }
    case 'close':
      queue = queue.then(async () => {
        try {
          await (await loadedModel)?.model.release();
        } catch {
          // nothing opened
        }
        post({ type: 'closed' });
        port.close();
      });
      break;
  }
});

// The thread's priority was lowered before this module loaded (runtime/worker-host.ts).
loadedModel = load();
loadedModel.then(
  (loaded) => post({ type: 'ready', layers: loaded.model.layers }),
  (error: Error) => post({ type: 'load-failed', message: error.message }),
);
