/**
 * Text corpora for the LMs (under /work/shared/data, or DATA_DIR) and the rule that keeps the
 * acoustic validation data out of them.
 *
 * Hold-out rules, so that no evaluation text of the acoustic models is in an LM:
 * - ALFFA (am): no transcript of an utterance that has audio in alffa-am-train/ (the 1,000 ids in
 *   alffa-am-train/text). The training pipeline takes its validation split `alffa_val` from
 *   those 1,000 (the 100 highest ids); excluding all of them keeps any id-range split clean.
 * - HornMT (am, om, ti): only lines 0..1899 (0-based) are used; lines 1900..2029 are the text of
 *   the training pipeline's synthetic held-out sets (`synth_<lang>_test_*`).
 * - Any line of any corpus whose scoring form (homophones merged for am, no punctuation, no
 *   spaces) equals a held-out sentence is dropped too (ALFFA repeats sentences across ids).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { alffaScoringForm } from '../../text/alffa-scoring.js';
import { forScoring } from '../../text/text-normalizer.js';

/** HornMT lines from this index on are held out (synthetic test sets of the training pipeline). */
export const HORNMT_HELD_OUT_FROM = 1900;

/** The form two sentences are compared in for the hold-out rule. */
export function heldOutForm(text: string, language: string): string {
  return language === 'am' ? alffaScoringForm(text) : forScoring(text, language).replace(/\s+/gu, '');
}

export interface CorpusSource {
  readonly path: string;
  readonly name: string;
  readonly licence: string;
  /** Kaldi-style lines `<utt-id> <text>`. */
  readonly kaldi: boolean;
}

const HORNMT = 'HornMT (Lesan AI), CC BY 4.0';
const AFRISENTI = 'AfriSenti SemEval-2023, CC BY 4.0';
const ALFFA = 'ALFFA_PUBLIC Amharic (getalp), MIT';

const FILE_CODE: Record<string, string> = { am: 'amh', om: 'orm', ti: 'tir' };

export function corpusSources(dataDir: string, language: string): CorpusSource[] {
  const code = FILE_CODE[language];
  if (!code) throw new RangeError(`no text corpora for language ${language} (am, om, ti)`);
  const sources: CorpusSource[] = [
    { path: join(dataDir, 'text/hornmt', `${code}.txt`), name: 'hornmt', licence: HORNMT, kaldi: false },
    { path: join(dataDir, 'text/afrisenti', `${code}.txt`), name: 'afrisenti', licence: AFRISENTI, kaldi: false },
  ];
  if (language === 'am') sources.push({ path: join(dataDir, 'alffa-am-train/all-train-transcripts.txt'), name: 'alffa-am-train', licence: ALFFA, kaldi: true });
  return sources;
}

/** `<id> <text>` lines into a map (text trimmed). */
export function parseKaldiText(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const space = trimmed.search(/\s/);
    if (space < 0) out.set(trimmed, '');
    else out.set(trimmed.slice(0, space), trimmed.slice(space + 1).trim());
  }
  return out;
}

export interface HeldOut {
  readonly ids: ReadonlySet<string>;
  readonly forms: ReadonlySet<string>;
}

/** Held-out ALFFA ids (am) and the held-out sentence forms (ALFFA with audio, HornMT lines 1900..). */
export async function heldOutUtterances(dataDir: string, language: string): Promise<HeldOut> {
  const forms = new Set<string>();
  const horn = corpusSources(dataDir, language).find((s) => s.name === 'hornmt')!;
  for (const line of (await readFile(horn.path, 'utf8')).split('\n').slice(HORNMT_HELD_OUT_FROM)) if (line.trim()) forms.add(heldOutForm(line, language));
  if (language !== 'am') return { ids: new Set(), forms };
  const held = parseKaldiText(await readFile(join(dataDir, 'alffa-am-train/text'), 'utf8'));
  for (const text of held.values()) forms.add(heldOutForm(text, language));
  return { ids: new Set(held.keys()), forms };
}

export interface CorpusLine {
  readonly source: string;
  readonly text: string;
}

/** Raw lines of every source with the hold-out rule applied; returns counts of what was excluded. */
export async function readCorpus(
  dataDir: string,
  language: string,
): Promise<{ lines: CorpusLine[]; sources: CorpusSource[]; excluded: number; heldOutIds: number }> {
  const sources = corpusSources(dataDir, language);
  const held = await heldOutUtterances(dataDir, language);
  const lines: CorpusLine[] = [];
  let excluded = 0;
  for (const source of sources) {
    const raw = await readFile(source.path, 'utf8');
    let texts = source.kaldi ? [...parseKaldiText(raw)].filter(([id]) => !held.ids.has(id) || (excluded++, false)).map(([, t]) => t) : raw.split('\n');
    if (source.name === 'hornmt') {
      excluded += texts.slice(HORNMT_HELD_OUT_FROM).filter((t) => t.trim()).length;
      texts = texts.slice(0, HORNMT_HELD_OUT_FROM);
    }
    for (const text of texts) {
      if (!text.trim()) continue;
      if (held.forms.has(heldOutForm(text, language))) {
        excluded++;
        continue;
      }
      lines.push({ source: source.name, text });
    }
  }
  return { lines, sources, excluded, heldOutIds: held.ids.size };
}
