// The repository root: the nearest folder above this file that holds package.json. Found by walking
// up, so the same code works from the source tree (vitest, tsx) and from dist/ (compiled benchmarks).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function packageRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

export const REPO_ROOT = packageRoot(import.meta.dirname);
