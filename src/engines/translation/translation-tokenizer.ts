/**
 * Text <-> model ids for a translation model, on Google's SentencePiece compiled to WebAssembly
 * (`@sctg/sentencepiece-js`). Two layouts (translation-manifest.ts):
 * - shared: one SentencePiece model; model id = SentencePiece id + `idOffset` (0 for ours; 1
 *   for NLLB's fairseq numbering, where SentencePiece's `<unk>` maps to `special_ids.unk`);
 * - pair (Marian): the source model cuts the text into pieces, `vocab.json` gives their ids; on
 *   the way back ids become pieces through the same vocabulary and the target model turns the
 *   pieces into text.
 * Language tokens resolve through `added_tokens`, then the vocabulary. Used inside the
 * translation worker only (WASM calls are synchronous).
 */
import { readFileSync } from 'node:fs';
import { SentencePieceProcessor } from '@sctg/sentencepiece-js';
import { readModelPieces } from './sentencepiece-pieces.js';
import type { LanguageToken, TranslationTokenizerSpec } from './translation-manifest.js';

interface Processor {
  readonly processor: { PieceToId(view: unknown): number; GetPieceSize?: () => number };
  readonly sentencepiece: { StringView: new (text: string) => { getView(): { delete(): void }; delete(): void } };
  encodeIds(text: string): number[];
  encodePieces(text: string): string[];
  decodeIds(ids: Int32Array): string;
}

async function loadProcessor(path: string): Promise<Processor> {
  const sp = new SentencePieceProcessor();
  await sp.load(path);
  const processor = sp as unknown as Processor;
  // The package does not surface Load's status: a file that is no model encodes nothing.
  if (processor.processor === undefined || processor.encodeIds('a b').length === 0) throw new Error(`${path} is not a SentencePiece model`);
  return processor;
}

function pieceToId(sp: Processor, piece: string): number {
  const view = new sp.sentencepiece.StringView(piece);
  const absl = view.getView();
  try {
    return sp.processor.PieceToId(absl);
  } finally {
    absl.delete();
    view.delete();
  }
}

export interface EncodedText {
  readonly ids: number[];
  /** Where a word starts (the piece begins with U+2581): preferred places to cut a long sentence. */
  readonly wordStarts: boolean[];
}

export class TranslationTokenizer {
  private constructor(
    private readonly spec: TranslationTokenizerSpec,
    private readonly source: Processor,
    private readonly target: Processor,
    private readonly vocab: Map<string, number> | null,
    private readonly pieces: Map<number, string> | null,
    private readonly unkId: number,
    private readonly sourceUnk: number,
  ) {}

  static async open(spec: TranslationTokenizerSpec, unkId: number): Promise<TranslationTokenizer> {
    if (spec.kind === 'shared') {
      const sp = await loadProcessor(spec.model);
      return new TranslationTokenizer(spec, sp, sp, null, null, unkId, pieceToId(sp, '<unk>'));
    }
    const [source, target] = await Promise.all([loadProcessor(spec.source), loadProcessor(spec.target)]);
    const raw = JSON.parse(readFileSync(spec.vocab, 'utf8')) as Record<string, number>;
    const vocab = new Map(Object.entries(raw));
    const pieces = new Map<number, string>();
    for (const [piece, id] of vocab) pieces.set(id, piece);
    return new TranslationTokenizer(spec, source, target, vocab, pieces, unkId, -1);
  }

  /** The model id of a language token (a piece or an id); throws when the vocabulary lacks it. */
  tokenId(token: LanguageToken): number {
    if (typeof token === 'number') return token;
    const added = this.spec.addedTokens[token];
    if (added !== undefined) return added;
    if (this.vocab !== null) {
      const id = this.vocab.get(token);
      if (id === undefined) throw new Error(`token ${token} is not in the vocabulary`);
      return id;
    }
    const id = pieceToId(this.source, token);
    if (id === this.sourceUnk && token !== '<unk>') throw new Error(`token ${token} is not in the SentencePiece model`);
    return this.spec.kind === 'shared' ? id + this.spec.idOffset : id;
  }

  encode(text: string): EncodedText {
    const pieces = this.source.encodePieces(text);
    const wordStarts = pieces.map((p) => p.startsWith('\u2581'));
    if (this.vocab !== null) return { ids: pieces.map((p) => this.vocab!.get(p) ?? this.unkId), wordStarts };
    const offset = this.spec.kind === 'shared' ? this.spec.idOffset : 0;
    const ids = this.source.encodeIds(text).map((id) => (id === this.sourceUnk ? this.unkId : id + offset));
    return { ids, wordStarts: ids.length === wordStarts.length ? wordStarts : ids.map(() => true) };
  }

  /**
   * The output text of every model id, indexed by id: the piece with U+2581 as a space; '' for
   * control, unknown and byte pieces, added tokens and ids outside the vocabulary. What the
   * decoding guards measure (letters, length) as a hypothesis grows.
   */
  pieceTexts(): string[] {
    const text = (piece: string): string => piece.replaceAll('\u2581', ' ');
    const out: string[] = [];
    const spec = this.spec;
    if (spec.kind === 'shared') {
      const pieces = readModelPieces(readFileSync(spec.model));
      pieces.forEach((p, id) => (out[id + spec.idOffset] = p.type === 'normal' || p.type === 'user_defined' ? text(p.piece) : ''));
    } else {
      const special = new Set(
        readModelPieces(readFileSync(spec.target))
          .filter((p) => p.type !== 'normal' && p.type !== 'user_defined')
          .map((p) => p.piece),
      );
      special.add('<pad>');
      for (const [id, piece] of this.pieces!) out[id] = special.has(piece) ? '' : text(piece);
    }
    for (const id of Object.values(spec.addedTokens)) out[id] = '';
    for (let id = 0; id < out.length; id++) out[id] ??= '';
    return out;
  }

  /** Model ids (special and language tokens already removed) to text. */
  decode(ids: readonly number[]): string {
    if (this.pieces !== null) {
      const spIds: number[] = [];
      for (const id of ids) {
        const piece = this.pieces.get(id);
        if (piece === undefined) continue;
        const spId = pieceToId(this.target, piece);
        spIds.push(spId);
      }
      return this.target.decodeIds(Int32Array.from(spIds)).trim();
    }
    const offset = this.spec.kind === 'shared' ? this.spec.idOffset : 0;
    const added = new Set(Object.values(this.spec.addedTokens));
    const spIds = ids.filter((id) => id >= offset && id !== this.unkId && !added.has(id)).map((id) => id - offset);
    return this.target.decodeIds(Int32Array.from(spIds)).trim();
  }
}
