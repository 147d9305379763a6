/**
 * Translation worker thread: owns the SentencePiece tokenizer (WebAssembly) and the
 * onnxruntime sessions of one translation model, and translates the batches of sentences the
 * engine sends: tokenise, cut sentences longer than `max_input_tokens` into chunks (at word
 * starts where it can), add the language tokens, decode all rows of the batch together (greedy
 * or beam search with the KV cache; with `decodingGuards`, under the degeneration guards and their
 * fallbacks: guarded-decoding.ts), turn ids back into text. onnxruntime-node's `run` and the
 * WASM tokenizer block the thread they run on, which is why all of it lives here and not on the
 * event loop (like the acoustic models' inference workers).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { charCap, DEFAULT_GUARDS, GuardedRow, letterCount, PieceTable, typicalRatio, type GuardSettings } from './degeneration-guard.js';
import { guardedDecode, type GuardAction } from './guarded-decoding.js';
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
  /** Output text of every id, for the guards (null: guards off). */
  readonly pieces: PieceTable | null;
  readonly guards: GuardSettings;
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
  const pieces = settings.decodingGuards ? new PieceTable(tokenizer.pieceTexts()) : null;
  const guards: GuardSettings = {
    ...DEFAULT_GUARDS,
    noRepeatNgram: manifest.decoding.noRepeatNgram,
    repetitionPenalty: manifest.decoding.repetitionPenalty,
  };
  return { manifest, tokenizer, model, targetIds, sourceIds, tagStrings, banned, pieces, guards };
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

interface Translated {
  readonly outputs: string[];
  readonly untranslatable: number[];
  readonly guardActions: Partial<Record<GuardAction, number>>;
  readonly rows: number;
}

/** Translates every item (one sentence each); returns the texts and the number of model rows. */
async function translate(loaded: Loaded, items: readonly Item[], mode: 'greedy' | 'beam'): Promise<Translated> {
  const { manifest, tokenizer, pieces } = loaded;
  const { decoding, specialIds } = manifest;
  const rows: SearchRow[] = [];
  /** Per row, what the guards know of its source (guards on). */
  const guarded: GuardedRow[] = [];
  const typicalLetters: number[] = [];
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
    const chunks = chunkIds(encoded.ids, encoded.wordStarts, limit).filter((c) => c.length > 0);
    const direction = `${item.source}-${item.target}`;
    for (const chunk of chunks) {
      const source = [...lead, ...chunk, specialIds.eos];
      own.push(rows.length);
      rows.push({ source, prefix, maxNew: outputCap(chunk.length, decoding) });
      if (pieces !== null) {
        // A sentence's one row measures the text itself; a chunk of a long one, its pieces.
        const chunkText = chunks.length === 1 ? text : pieces.join(chunk).trim();
        const letters = letterCount(chunkText);
        const maxLetters = charCap(letters, direction, decoding.maxOutputCharRatio);
        guarded.push(new GuardedRow({ ids: chunk, text: chunkText, maxLetters }, loaded.guards.noRepeatNgram));
        typicalLetters.push(typicalRatio(direction, decoding.maxOutputCharRatio) * letters);
      }
    }
  }
  if (rows.length === 0) return { outputs: items.map(() => ''), untranslatable: [], guardActions: {}, rows: 0 };
  const search: SearchSettings = {
    eos: specialIds.eos,
    banned: loaded.banned,
    beamSize: mode === 'beam' ? decoding.beamSize : 1,
    lengthPenalty: decoding.lengthPenalty,
  };
  let texts: (string | null)[];
  const guardActions: Partial<Record<GuardAction, number>> = {};
  if (pieces === null) {
    const generated = mode === 'beam' ? await beamSearch(loaded.model, rows, search) : await greedySearch(loaded.model, rows, search);
    texts = generated.map((ids) => tokenizer.decode(ids));
  } else {
    const results = await guardedDecode(loaded.model, rows, search, {
      table: pieces,
      settings: loaded.guards,
      rows: guarded,
      typicalLetters,
      decode: (ids) => tokenizer.decode(ids),
    });
    for (const result of results) guardActions[result.action] = (guardActions[result.action] ?? 0) + 1;
    texts = results.map((r) => r.text);
  }
  const untranslatable: number[] = [];
  const outputs = owners.map((own, index) => {
    if (own.some((row) => texts[row] === null)) {
      untranslatable.push(index);
      return '';
    }
    return own
      .map((row) => texts[row]!)
      .filter((t) => t.length > 0)
      .join(' ');
  });
  return { outputs, untranslatable, guardActions, rows: rows.length };
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
          const { outputs, untranslatable, guardActions, rows } = await translate(loaded, message.items, message.mode);
          post({ type: 'result', id: message.id, outputs, untranslatable, guardActions, rows, workerMs: performance.now() - started });
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
