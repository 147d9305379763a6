import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// Runs the same dependency-cruiser CLI and configuration as `npm run lint:layers`, first on the
// real tree, then on a crafted tree in a temporary folder whose wrong imports must all be caught.

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const CONFIG = join(REPO_ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(REPO_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const run = promisify(execFile);

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

async function cruise(cwd: string, paths: string[]): Promise<string[]> {
  // The json reporter exits 0 whatever it finds; the violations are in the summary.
  const { stdout } = await run(process.execPath, [DEPCRUISE, ...paths, '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  });
  const result = JSON.parse(stdout) as { summary: { violations: Violation[] } };
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('layer rule (dependency-cruiser)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the source tree has no violations', async () => {
    expect(await cruise(REPO_ROOT, ['src', 'test', 'bench', 'scripts'])).toEqual([]);
  });

  it('catches upward and sideways imports, cycles and test-helper misuse, and lets downward imports pass', async () => {
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
      'src/main.ts': "import { gateway } from './app/gateway.js';\nexport const main = gateway;\n",
      'src/app/gateway.ts': [
        "import { routes } from '../api/routes.js';",
        "import { socket } from '../streaming/socket.js';",
        "import { lib } from '../media/lib.js';",
        "import { hook } from '../webhooks/hook.js';",
        'export const gateway = [routes, socket, lib, hook];',
        '',
      ].join('\n'),
      'src/api/routes.ts':
        "import { engine } from '../engines/engine.js';\nimport { socket } from '../streaming/socket.js';\nexport const routes = [engine, socket];\n",
      'src/api/transcriptions/transcription-schemas.ts': 'export const segment = 1;\n',
      'src/streaming/socket.ts':
        "import { segment } from '../api/transcriptions/transcription-schemas.js';\nimport { engine } from '../engines/engine.js';\nexport const socket = [segment, engine];\n",
      'src/streaming/reaches-api.ts': "import { routes } from '../api/routes.js';\nexport const reaches = routes;\n",
      'src/jobs/runner.ts':
        "import { engine } from '../engines/engine.js';\nimport { hook } from '../webhooks/hook.js';\nexport const runner = [engine, hook];\n",
      'src/media/lib.ts': "import { runner } from '../jobs/runner.js';\nexport const lib = runner;\n",
      'src/webhooks/hook.ts': "import { low } from '../platform/low.js';\nexport const hook = low;\n",
      'src/webhooks/starts-app.ts': "import { gateway } from '../app/gateway.js';\nexport const starts = gateway;\n",
      'src/engines/engine.ts': "import { low } from '../platform/low.js';\nexport const engine = low;\n",
      'src/engines/cycle-a.ts': "import { b } from './cycle-b.js';\nexport const a = () => b;\n",
      'src/engines/cycle-b.ts': "import { a } from './cycle-a.js';\nexport const b = () => a;\n",
      'src/platform/low.ts': 'export const low = 1;\n',
      'src/platform/upward.ts': "import { routes } from '../api/routes.js';\nexport const upward = routes;\n",
      'test/helpers/test-gateway.ts': "import { gateway } from '../../src/app/gateway.js';\nexport const start = gateway;\n",
      'test/helpers/server.ts': "import { gateway } from '../../src/app/gateway.js';\nexport const server = gateway;\n",
      'test/helpers/unused.ts': 'export const unused = 1;\n',
      'test/app.test.ts':
        "import { start } from './helpers/test-gateway.js';\nimport { server } from './helpers/server.js';\nexport const t = [start, server];\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    expect(await cruise(dir, ['src', 'test'])).toEqual(
      [
        'api-imports-upward-or-sideways: src/api/routes.ts -> src/streaming/socket.ts',
        'app-is-composition-root: src/webhooks/starts-app.ts -> src/app/gateway.ts',
        'jobs-imports-upward-or-sideways: src/jobs/runner.ts -> src/webhooks/hook.ts',
        'no-cycles: src/engines/cycle-a.ts -> src/engines/cycle-b.ts', // one violation per cycle
        'orphan-test-helper: test/helpers/unused.ts -> test/helpers/unused.ts',
        'platform-imports-upward: src/platform/upward.ts -> src/api/routes.ts',
        'streaming-imports-upward-or-sideways: src/streaming/reaches-api.ts -> src/api/routes.ts',
        'test-helper-imports-app: test/helpers/server.ts -> src/app/gateway.ts',
        'webhooks-imports-upward-or-sideways: src/webhooks/starts-app.ts -> src/app/gateway.ts',
      ].sort(),
    );
  });

  it('fails the npm script (non-zero exit) on a wrong import', async () => {
    await expect(run(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'err'], { cwd: dir })).rejects.toMatchObject({
      code: expect.any(Number),
      stdout: expect.stringContaining('platform-imports-upward'),
    });
  });
});
