import { tmpdir } from 'node:os';
import { resolve, sep } from 'node:path';

/**
 * The last guard against server paths in client-facing text (error messages, job errors):
 * any path under a registered server folder (the working directory, the temp folder, the
 * storage root, ...) becomes "<server file>". Messages should not carry paths in the first
 * place; this catches what a tool or library slipped in.
 */
const roots = new Set<string>([resolve(process.cwd()), resolve(tmpdir())]);
let pattern: RegExp | null = null;

/** Adds a folder whose paths never reach a client. Call at start, before serving. */
export function registerServerPath(path: string): void {
  const root = resolve(path);
  if (root === sep || roots.has(root)) return;
  roots.add(root);
  pattern = null;
}

export function redactServerPaths(text: string): string {
  if (!text.includes(sep)) return text;
  pattern ??= new RegExp(
    [...roots]
      .sort((a, b) => b.length - a.length)
      // A path runs to whitespace, a quote or bracket, or a colon that ends it ("<path>: error").
      .map((root) => `${escapeRegExp(root)}(?:${escapeRegExp(sep)}(?:[^\\s'"\`,;)\\]:]|:(?!\\s|$))*)?`)
      .join('|'),
    'g',
  );
  return text.replace(pattern, '<server file>');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
