import { isAbsolute, resolve } from 'node:path';
import { cidrProblem } from '../net/ip-allowlist.js';

/**
 * The kinds of configuration entry: how a variable is parsed and checked, and how its default
 * and allowed values read in the README. A bad value is reported (all of them together, by
 * the caller) and the default is used in its place.
 */

export type ConfigSection = 'server' | 'speech' | 'backends' | 'metrics' | 'limits' | 'streaming' | 'overload';

export interface ParseContext {
  readonly problems: string[];
  /** Relative paths resolve against it. */
  readonly cwd: string;
}

export interface ConfigEntry<T> {
  readonly section: ConfigSection;
  readonly description: string;
  /** The README's default column. */
  readonly defaultText: string;
  /** The README's allowed-values column. */
  readonly valuesText: string;
  /** `raw` is undefined when the variable is unset or blank. */
  parse(name: string, raw: string | undefined, ctx: ParseContext): T;
}

/** An entry as its kind makes it; `inSection` places it in a README section. */
export type SectionlessEntry<T> = Omit<ConfigEntry<T>, 'section'>;

/** What an entry means (the README's meaning column), or that and texts shown in place of generated ones. */
export type EntryDoc =
  | string
  | {
      readonly description: string;
      /** Shown instead of the default value (e.g. where the default is derived). */
      readonly defaultText?: string;
      /** Shown instead of the generated allowed values. */
      readonly valuesText?: string;
    };

/** The entries of one README section, in the order the README lists them. */
export function inSection<const E extends Record<string, SectionlessEntry<unknown>>>(
  section: ConfigSection,
  entries: E,
): { readonly [K in keyof E]: E[K] & { readonly section: ConfigSection } } {
  return Object.fromEntries(Object.entries(entries).map(([name, entry]) => [name, { ...entry, section }])) as {
    readonly [K in keyof E]: E[K] & { readonly section: ConfigSection };
  };
}

const code = (text: string): string => `\`${text}\``;

/** Byte sizes accept a plain number or a suffix: 500MB, 1MiB, 64kb. */
const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1e3, kib: 1024, mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 };

/** A byte count in the largest unit that divides it, as the parser reads it back. */
export function formatBytes(value: number): string {
  for (const [unit, size] of [
    ['GB', 1e9],
    ['GiB', 1024 ** 3],
    ['MB', 1e6],
    ['MiB', 1024 ** 2],
    ['kB', 1e3],
    ['KiB', 1024],
  ] as const) {
    if (value >= size && value % size === 0) return `${value / size}${unit}`;
  }
  return String(value);
}

function entry<T>(doc: EntryDoc, defaultText: string, valuesText: string, parse: ConfigEntry<T>['parse']): SectionlessEntry<T> {
  const { description, ...shown } = typeof doc === 'string' ? { description: doc } : doc;
  return { description, defaultText: shown.defaultText ?? defaultText, valuesText: shown.valuesText ?? valuesText, parse };
}

export function integer(fallback: number, min: number, max: number, doc: EntryDoc): SectionlessEntry<number> {
  return entry(doc, code(String(fallback)), `integer ${min} to ${max}`, (name, raw, { problems }) => {
    if (raw === undefined) return fallback;
    if (!/^-?\d+$/.test(raw)) {
      problems.push(`${name} must be an integer, got "${raw}"`);
      return fallback;
    }
    const value = Number(raw);
    if (value < min || value > max) {
      problems.push(`${name} must be between ${min} and ${max}, got ${value}`);
      return fallback;
    }
    return value;
  });
}

/** An integer, or `off` (null). */
export function integerOrOff(fallback: number | null, min: number, max: number, doc: EntryDoc): SectionlessEntry<number | null> {
  const numeric = integer(fallback ?? min, min, max, doc);
  return entry(doc, code(fallback === null ? 'off' : String(fallback)), `integer ${min} to ${max}, or ${code('off')}`, (name, raw, ctx) => {
    if (raw === undefined) return fallback;
    return raw === 'off' ? null : numeric.parse(name, raw, ctx);
  });
}

export function decimal(fallback: number, min: number, max: number, doc: EntryDoc): SectionlessEntry<number> {
  return entry(doc, code(String(fallback)), `number ${min} to ${max}`, (name, raw, { problems }) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value)) {
      problems.push(`${name} must be a number, got "${raw}"`);
      return fallback;
    }
    if (value < min || value > max) {
      problems.push(`${name} must be between ${min} and ${max}, got ${value}`);
      return fallback;
    }
    return value;
  });
}

export function bytes(fallback: number, min: number, max: number, doc: EntryDoc): SectionlessEntry<number> {
  return entry(doc, code(formatBytes(fallback)), `size ${formatBytes(min)} to ${formatBytes(max)}`, (name, raw, { problems }) => {
    if (raw === undefined) return fallback;
    const match = /^(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib)?$/i.exec(raw);
    if (!match) {
      problems.push(`${name} must be a byte size such as 500MB, got "${raw}"`);
      return fallback;
    }
    const value = Math.round(Number(match[1]) * BYTE_UNITS[(match[2] ?? 'b').toLowerCase()]!);
    if (value < min || value > max) {
      problems.push(`${name} must be between ${min} and ${max} bytes, got ${value}`);
      return fallback;
    }
    return value;
  });
}

export function boolean(fallback: boolean, doc: EntryDoc): SectionlessEntry<boolean> {
  return entry(doc, code(String(fallback)), `${code('true')} or ${code('false')}`, (name, raw, { problems }) => {
    if (raw === undefined) return fallback;
    const lower = raw.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
    if (['0', 'false', 'no', 'off'].includes(lower)) return false;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  });
}

export function oneOf<const T extends string>(fallback: T, allowed: readonly T[], doc: EntryDoc): SectionlessEntry<T> {
  return entry(doc, code(fallback), allowed.map(code).join(', '), (name, raw, { problems }) => {
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  });
}

/** Free text; `check` returns a problem (reported) for a value it refuses, the default included. */
export function text(fallback: string, doc: EntryDoc, check?: (value: string, name: string) => string | null): SectionlessEntry<string> {
  return entry(doc, code(fallback), 'text', (name, raw, { problems }) => {
    const value = raw ?? fallback;
    const problem = check?.(value, name) ?? null;
    if (problem !== null) problems.push(problem);
    return value;
  });
}

/** Free text with no default (null when unset). */
export function optionalText(doc: EntryDoc, check?: (value: string, name: string) => string | null): SectionlessEntry<string | null> {
  return entry(doc, '(none)', 'text', (name, raw, { problems }) => {
    if (raw === undefined) return null;
    const problem = check?.(raw, name) ?? null;
    if (problem !== null) problems.push(problem);
    return raw;
  });
}

/** A folder; a relative one resolves against the working directory. */
export function path(fallback: string, doc: EntryDoc): SectionlessEntry<string> {
  return entry(doc, code(`./${fallback}`), 'path', (_name, raw, { cwd }) => {
    const value = raw ?? fallback;
    return isAbsolute(value) ? value : resolve(cwd, value);
  });
}

/** A file path as `path` reads it, or `off` (null). */
export function pathOrOff(fallback: string, doc: EntryDoc): SectionlessEntry<string | null> {
  const file = path(fallback, doc);
  return entry(doc, code(`./${fallback}`), `path, or ${code('off')}`, (name, raw, ctx) => (raw === 'off' ? null : file.parse(name, raw, ctx)));
}

/** A file path as `path` reads it, or none (null: unset or empty). */
export function optionalPath(doc: EntryDoc): SectionlessEntry<string | null> {
  return entry(doc, '(none)', 'path', (_name, raw, { cwd }) => (raw === undefined ? null : isAbsolute(raw) ? raw : resolve(cwd, raw)));
}

/** An http(s) URL with trailing slashes removed, or null when unset. */
export function optionalUrl(doc: EntryDoc): SectionlessEntry<string | null> {
  return entry(doc, '(none)', 'http(s) URL', (name, raw, { problems }) => {
    if (raw === undefined) return null;
    try {
      const url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an http(s) URL, got "${raw}"`);
      return 'http://localhost';
    }
  });
}

/** Comma-separated text; empty items dropped. */
export function textList(fallback: string, doc: EntryDoc): SectionlessEntry<readonly string[]> {
  return entry(doc, code(fallback), 'comma-separated list', (_name, raw) =>
    (raw ?? fallback)
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );
}

/**
 * Pairs `key=value,key=value` (names, trimmed) as a map; unset or empty: none. A pair without `=`,
 * an empty side, a key given twice or a key equal to its value is a problem.
 */
export function namePairs(doc: EntryDoc): SectionlessEntry<ReadonlyMap<string, string>> {
  return entry(doc, '(none)', 'comma-separated `name=name` pairs', (name, raw, { problems }) => {
    const pairs = new Map<string, string>();
    for (const item of (raw ?? '').split(',').map((part) => part.trim())) {
      if (item.length === 0) continue;
      const [key, value, ...rest] = item.split('=').map((side) => side.trim());
      if (key === undefined || value === undefined || key.length === 0 || value.length === 0 || rest.length > 0) {
        problems.push(`${name} must be comma-separated name=name pairs, got "${item}"`);
      } else if (pairs.has(key)) {
        problems.push(`${name} names ${key} twice`);
      } else if (key === value) {
        problems.push(`${name} pairs ${key} with itself`);
      } else pairs.set(key, value);
    }
    return pairs;
  });
}

export function integerList(fallback: readonly number[], min: number, max: number, doc: EntryDoc): SectionlessEntry<readonly number[]> {
  return entry(doc, code(fallback.join(',')), `comma-separated integers ${min} to ${max}`, (name, raw, { problems }) => {
    if (raw === undefined) return fallback;
    const parts = raw.split(',').map((p) => p.trim());
    const values = parts.map(Number);
    if (parts.length === 0 || values.some((v) => !Number.isInteger(v) || v < min || v > max)) {
      problems.push(`${name} must be a comma-separated list of integers between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    return values;
  });
}

/** Comma-separated CIDR ranges, each checked. */
export function cidrList(doc: EntryDoc): SectionlessEntry<readonly string[]> {
  return entry(doc, '(none)', 'comma-separated CIDR ranges', (name, raw, { problems }) => {
    if (raw === undefined) return [];
    const entries = raw
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '');
    for (const item of entries) {
      const problem = cidrProblem(item);
      if (problem !== null) problems.push(`${name}: ${problem}`);
    }
    return entries;
  });
}

/**
 * A key prefix inside a bucket: path segments of `[A-Za-z0-9._-]` joined by `/`; leading and
 * trailing slashes are dropped. Empty (no prefix) when unset.
 */
export function keyPrefix(doc: EntryDoc): SectionlessEntry<string> {
  return entry(doc, '(none)', `path segments of ${code('A-Z a-z 0-9 . _ -')}`, (name, raw, { problems }) => {
    const value = (raw ?? '').replace(/^\/+|\/+$/g, '');
    if (value !== '' && !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(value)) {
      problems.push(`${name} must be path segments of A-Z a-z 0-9 . _ -, got "${value}"`);
      return '';
    }
    return value;
  });
}
