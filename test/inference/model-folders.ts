import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TINY_CTC } from './fixtures.js';

/**
 * Writes a model folder under `root` from a fixture model (default the tiny CTC model) with
 * manifest fields replaced; used to build registries with the spec's model names. The models
 * stay the UNTRAINED fixture networks whatever they are named.
 */
export async function makeModelFolder(root: string, folder: string, overrides: Record<string, unknown>, from = TINY_CTC): Promise<string> {
  const dir = join(root, folder);
  await mkdir(dir, { recursive: true });
  const manifest = JSON.parse(await readFile(join(from, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...manifest, ...overrides };
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete merged[key];
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(merged, null, 2));
  await copyFile(join(from, 'model.onnx'), join(dir, 'model.onnx'));
  if (typeof manifest.vocabulary === 'string') await copyFile(join(from, manifest.vocabulary), join(dir, manifest.vocabulary));
  return dir;
}
