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
    expect(await cruise(REPO_ROOT, ['src', 'test', 'bench', 'scripts', 'training'])).toEqual([]);
  });

  it('catches upward and sideways imports, reaching past an engine façade, engine order, training and scoring misuse, cycles and test-helper misuse, and lets allowed imports pass', async () => {
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
        "import { engine } from '../engines/engines.js';\nimport { socket } from '../streaming/socket.js';\nexport const routes = [engine, socket];\n",
      'src/api/transcriptions/transcription-schemas.ts': 'export const segment = 1;\n',
      'src/streaming/socket.ts':
        "import { segment } from '../api/transcriptions/transcription-schemas.js';\nimport { engine } from '../engines/engines.js';\nexport const socket = [segment, engine];\n",
      'src/streaming/reaches-api.ts': "import { routes } from '../api/routes.js';\nexport const reaches = routes;\n",
      'src/jobs/runner.ts':
        "import { engine } from '../engines/engines.js';\nimport { hook } from '../webhooks/hook.js';\nexport const runner = [engine, hook];\n",
      'src/media/lib.ts': "import { runner } from '../jobs/runner.js';\nexport const lib = runner;\n",
      'src/webhooks/hook.ts': "import { low } from '../platform/low.js';\nexport const hook = low;\n",
      'src/webhooks/starts-app.ts': "import { gateway } from '../app/gateway.js';\nexport const starts = gateway;\n",
      'src/engines/engines.ts': "import { asr } from './asr/asr.js';\nimport { low } from '../platform/low.js';\nexport const engine = [asr, low];\n",
      'src/engines/asr/asr.ts':
        "import { diarization } from '../diarization/diarization.js';\nimport { inner } from './inner.js';\nexport const asr = [diarization, inner];\n",
      'src/engines/asr/inner.ts': "import { frontEnd } from '../signal/front-end.js';\nexport const inner = frontEnd;\n",
      'src/engines/asr/reaches-diarization-core.ts': "import { core } from '../diarization/core.js';\nexport const reaches = core;\n",
      'src/engines/diarization/diarization.ts': "import { core } from './core.js';\nexport const diarization = core;\n",
      'src/engines/diarization/core.ts': "import { frontEnd } from '../signal/front-end.js';\nexport const core = frontEnd;\n",
      'src/engines/diarization/uses-asr.ts': "import { asr } from '../asr/asr.js';\nexport const uses = asr;\n",
      'src/engines/signal/front-end.ts': "import { handle } from '../runtime/handle.js';\nexport const frontEnd = handle;\n",
      'src/engines/signal/reaches-asr.ts': "import { asr } from '../asr/asr.js';\nexport const reaches = asr;\n",
      'src/engines/runtime/handle.ts': 'export const handle = 1;\n',
      'src/engines/scoring/scoring.ts': "import { asr } from '../asr/asr.js';\nexport const score = asr;\n",
      'src/engines/training.ts': "import { inner } from './asr/inner.js';\nexport const training = inner;\n",
      'src/api/reaches-inside.ts': "import { inner } from '../engines/asr/inner.js';\nexport const reaches = inner;\n",
      'src/jobs/scores.ts': "import { score } from '../engines/scoring/scoring.js';\nexport const scores = score;\n",
      'training/asr/train.ts':
        "import { asr } from '../../src/engines/asr/asr.js';\nimport { training } from '../../src/engines/training.js';\nimport { inner } from '../../src/engines/asr/inner.js';\nimport { start } from '../../test/helpers/test-gateway.js';\nexport const train = [asr, training, inner, start];\n",
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
    expect(await cruise(dir, ['src', 'test', 'training'])).toEqual(
      [
        'api-imports-upward-or-sideways: src/api/routes.ts -> src/streaming/socket.ts',
        'engines-through-facades: src/api/reaches-inside.ts -> src/engines/asr/inner.ts',
        'engines-through-facades: src/jobs/scores.ts -> src/engines/scoring/scoring.ts',
        'shipped-code-imports-scoring-or-training: src/jobs/scores.ts -> src/engines/scoring/scoring.ts',
        'engines-inner-order: src/engines/signal/reaches-asr.ts -> src/engines/asr/asr.ts',
        'engines-reach-each-other-through-facades: src/engines/asr/reaches-diarization-core.ts -> src/engines/diarization/core.ts',
        'engines-order: src/engines/diarization/uses-asr.ts -> src/engines/asr/asr.ts',
        'training-through-facades: training/asr/train.ts -> src/engines/asr/inner.ts',
        'training-imports-tests-or-bench: training/asr/train.ts -> test/helpers/test-gateway.ts',
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
