// `npm run models -- <args>` as tests run it: from the TypeScript source (the npm script runs the
// compiled copy), in the repository root, a failing run answered with its exit code and output
// rather than thrown. Plus the copy of a published model folder an operator downloads.
import { execFile } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './fixtures.js';

export const MODELS_CLI = join(REPO_ROOT, 'src/app/cli/models-cli.ts');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the models CLI with `args` (`timeout` in ms, none by default; `env` over this process's environment). */
export async function runModelsCli(args: readonly string[], options: { timeout?: number; env?: Record<string, string> } = {}): Promise<CliRun> {
  const { env, ...rest } = options;
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', MODELS_CLI, ...args], {
      cwd: REPO_ROOT,
      ...rest,
      ...(env ? { env: { ...process.env, ...env } } : {}),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as CliRun;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A copy of the published folder `fixture` as `modelsDir/name`, as an operator downloads it; gives its path. */
export async function downloadModel(fixture: string, modelsDir: string, name: string): Promise<string> {
  const dir = join(modelsDir, name);
  await cp(fixture, dir, { recursive: true });
  return dir;
}
