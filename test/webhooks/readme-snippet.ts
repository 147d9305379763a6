import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/spawn-dist.js';

/** The ```js block of a Markdown text that defines verifyWebhook. */
export function nodeSnippet(markdown: string): string {
  const block = [...markdown.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.includes('function verifyWebhook'));
  if (block === undefined) throw new Error('no verifyWebhook snippet found');
  return block;
}

export type VerifyWebhook = (rawBody: Buffer, header: string, secret: string, toleranceSeconds?: number) => boolean;

/** Loads the README's Node verification snippet as a module, exactly as a reader would paste it. */
export async function readmeVerifier(): Promise<VerifyWebhook> {
  const code = nodeSnippet(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
  const file = join(mkdtempSync(join(tmpdir(), 'snippet-')), 'verify.mjs');
  writeFileSync(file, code);
  const module = (await import(pathToFileURL(file).href)) as { verifyWebhook: VerifyWebhook };
  return module.verifyWebhook;
}
