import type { TranslationUnitErrorCode } from '../platform/db/translation-records.js';

/** A unit's failure with its per-unit code (`outputs[].error`). */
export class UnitFailure extends Error {
  constructor(
    readonly code: TranslationUnitErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What a source file holds: plain text (lines) or a transcript JSON document (segments). */
export type SourceDocument =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'transcript'; readonly document: Record<string, unknown>; readonly segments: readonly Record<string, unknown>[] };

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text: valid UTF-8 (a BOM dropped) without NUL characters, else UNSUPPORTED_FORMAT. */
export function decodeText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new UnitFailure('UNSUPPORTED_FORMAT', 'The source is not valid UTF-8 text.');
  }
  if (text.includes('\u0000')) throw new UnitFailure('UNSUPPORTED_FORMAT', 'The source is binary (it contains NUL characters), not text.');
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A transcript JSON document (an object whose `segments` is an array of objects with a string
 * `text`) or plain text. A `.json` source that is not such a document is UNSUPPORTED_FORMAT;
 * other text that merely looks like JSON is translated as text.
 */
export function parseSource(name: string, text: string): SourceDocument {
  const json = /\.json$/i.test(name);
  const trimmed = text.trim();
  if (json || trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      if (json) throw new UnitFailure('UNSUPPORTED_FORMAT', 'The source is named .json but is not valid JSON.');
      return { kind: 'text', text };
    }
    if (isRecord(parsed) && Array.isArray(parsed['segments']) && parsed['segments'].every((s) => isRecord(s) && typeof s['text'] === 'string')) {
      return { kind: 'transcript', document: parsed, segments: parsed['segments'] as Record<string, unknown>[] };
    }
    if (json) throw new UnitFailure('UNSUPPORTED_FORMAT', 'The JSON source is not a transcript: it needs a "segments" array of objects with a "text" string.');
  }
  return { kind: 'text', text };
}

/** Characters (code points) of source text a document carries to the engine. */
export function sourceCharacters(doc: SourceDocument): number {
  const count = (s: string): number => [...s].length;
  return doc.kind === 'text' ? count(doc.text) : doc.segments.reduce((sum, s) => sum + count(s['text'] as string), 0);
}

/** The texts the engine translates, in order: non-blank lines of text, or the non-blank segment texts. */
export function textsToTranslate(doc: SourceDocument): string[] {
  if (doc.kind === 'text')
    return doc.text
      .split(/\r?\n/)
      .filter((line) => line.trim().length > 0)
      .map((line) => line.trim());
  return doc.segments.map((s) => (s['text'] as string).trim()).filter((t) => t.length > 0);
}

/**
 * The output document from the translations of `textsToTranslate(doc)` (same order). Text keeps
 * its lines (blank lines and each line's surrounding whitespace); a transcript keeps its shape,
 * timestamps, speakers, types and duration, with each segment's text translated (its source
 * `words` dropped), `text` rebuilt from the segments when present, and `language` set to the target.
 */
export function renderOutput(doc: SourceDocument, translated: readonly string[], target: string): { body: string; contentType: string } {
  let next = 0;
  const take = (): string => {
    const value = translated[next++];
    if (value === undefined) throw new Error('fewer translations than texts');
    return value;
  };
  if (doc.kind === 'text') {
    const newline = doc.text.includes('\r\n') ? '\r\n' : '\n';
    const lines = doc.text.split(/\r?\n/).map((line) => {
      if (line.trim().length === 0) return line;
      const lead = /^\s*/.exec(line)![0];
      const tail = /\s*$/.exec(line)![0];
      return `${lead}${take()}${tail}`;
    });
    return { body: lines.join(newline), contentType: 'text/plain; charset=utf-8' };
  }
  // A translated segment loses its `words`: they time the source language's words, not the translation's.
  const segments = doc.segments.map((s) => {
    if ((s['text'] as string).trim().length === 0) return { ...s };
    const { words: _words, ...rest } = s;
    return { ...rest, text: take() };
  });
  const out: Record<string, unknown> = { ...doc.document, language: target, segments };
  if (typeof doc.document['text'] === 'string') {
    out['text'] = segments
      .map((s) => (s['text'] as string).trim())
      .filter((t) => t.length > 0)
      .join(' ');
  }
  return { body: `${JSON.stringify(out, null, 2)}\n`, contentType: 'application/json; charset=utf-8' };
}

/** The last path segment of a source URI, percent-decoded; '' when there is none. */
export function sourceFileName(uri: string): string {
  let path: string;
  try {
    path = new URL(uri).pathname;
  } catch {
    path = uri;
  }
  const last =
    path
      .split('/')
      .filter((s) => s.length > 0)
      .pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * Output file names for the sources × targets of one job, in unit order: the source's base
 * name made safe for storage keys (`[A-Za-z0-9._-]`), the target language before the
 * extension (`report.txt` → `report.ti.txt`; transcripts keep `.json`, other names get `.txt`),
 * and `-2`, `-3`... on base names that repeat within the job.
 */
export function outputNames(sourceUris: readonly string[], targets: readonly string[]): string[][] {
  const used = new Map<string, number>();
  return sourceUris.map((uri, index) => {
    const name = sourceFileName(uri);
    const match = /^(.*?)(\.[A-Za-z0-9]{1,8})?$/.exec(name)!;
    let stem = (match[1] ?? '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+|[._]+$/g, '');
    if (stem.length === 0) stem = `file-${index + 1}`;
    stem = stem.slice(0, 120);
    const ext = (match[2] ?? '').toLowerCase() === '.json' ? '.json' : '.txt';
    const seen = used.get(stem) ?? 0;
    used.set(stem, seen + 1);
    const unique = seen === 0 ? stem : `${stem}-${seen + 1}`;
    return targets.map((target) => `${unique}.${target}${ext}`);
  });
}
