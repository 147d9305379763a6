// Replays the images' builds without a container engine (`npm run lint:docker`, so CI runs it):
// for Dockerfile and Dockerfile.gpu, the build context exactly as Docker sends it (the work tree
// filtered by .dockerignore with @balena/dockerignore, a port of Docker's own matcher), then the
// build stage's steps in a copy of it, then (CPU image) the runtime stage's files started as the
// image starts them, answering its HEALTHCHECK.
//
//   npx tsx scripts/docker-context-check.ts [--keep] [Dockerfile ...]
//   DOCKER_CHECK_NATIVE=compile   also compile the addon in the copy (minutes) instead of
//                                 configuring it (seconds; the copy then runs the work tree's addon)
//
// How each step of `RUN` is replayed (scripts/dockerfile-plan.ts reads the Dockerfile; a step
// this script does not know fails the check, so a changed Dockerfile changes this script too):
// - `npm ci`: the registry cannot be reached from CI, and the native compile takes minutes, so
//   node_modules is the work tree's, hard-linked (after checking that it is what package-lock.json
//   installs; the hidden lockfile, which npm rewrites in place, is copied), and the lifecycle
//   scripts npm ci runs are run in the copy: the root's (`install` as `cmake-js configure`, which
//   fails on a native source the context lacks, `prepare`: the TypeScript build) and
//   onnxruntime-node's postinstall, run the way npm 10 (Node 20's) runs it, with the stage's ENV
//   and every download refused: it must exit without fetching the CUDA libraries. npm 11 does not
//   run it at all (package.json `allowScripts`), which is checked too.
// - `npm run onnxruntime:cuda` (GPU image): a download from NuGet; checked that its flag names a
//   manifest onnxruntime-node has for linux/x64, not run.
// - `npm prune --omit=dev`, `rm -rf ...`: run as written.
// RUN lines before `COPY . .` install system packages; the tools they bring (cmake, a C++
// compiler, python3) must be on this machine.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { parseDockerfile, type DockerfilePlan, type RunInstruction } from './dockerfile-plan.js';

// A CommonJS module whose types declare an ES default export: required, so both agree.
const ignore = createRequire(import.meta.url)('@balena/dockerignore') as typeof import('@balena/dockerignore').default;
const ROOT = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const keep = args.includes('--keep');
const dockerfiles = args.filter((arg) => !arg.startsWith('--'));
const compileNative = process.env['DOCKER_CHECK_NATIVE'] === 'compile';
const started = performance.now();

class CheckFailure extends Error {}

function fail(message: string): never {
  throw new CheckFailure(message);
}

function log(message: string): void {
  process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${message}\n`);
}

/** Runs a command, failing the check with its output when it fails. */
function run(
  command: string,
  argv: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; what: string; timeoutMs?: number },
): SpawnSyncReturns<string> {
  const result = spawnSync(command, argv, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: options.timeoutMs ?? 600_000,
  });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    fail(`${options.what} failed (${result.error?.message ?? `exit ${result.status}`}):\n${output}`);
  }
  return result;
}

/** The build context: every path of the work tree .dockerignore keeps, as Docker walks it. */
function contextFiles(): string[] {
  const patterns = existsSync(join(ROOT, '.dockerignore')) ? readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n') : [];
  const ig = ignore().add(patterns);
  // With an exception (`!path`), an excluded folder may hold kept files: walk everything then.
  const exceptions = patterns.some((line) => line.trim().startsWith('!'));
  const kept: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      const ignored = ig.ignores(path);
      if (entry.isDirectory()) {
        if (!ignored || exceptions) walk(path);
      } else if (!ignored) {
        kept.push(path);
      }
    }
  };
  walk('');
  return kept;
}

/** Copies the context (real copies: build steps may rewrite package.json or the lockfile in place). */
function copyContext(files: readonly string[], into: string): void {
  for (const path of files) {
    const target = join(into, path);
    mkdirSync(dirname(target), { recursive: true });
    const source = join(ROOT, path);
    if (lstatSync(source).isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else copyFileSync(source, target);
  }
}

type LockPackages = Record<string, { version?: string; optional?: boolean; dev?: boolean }>;

/** The work tree's node_modules is what `npm ci` installs from package-lock.json (same packages, same versions). */
function checkNodeModulesMatchLock(): void {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: LockPackages };
  const hiddenPath = join(ROOT, 'node_modules', '.package-lock.json');
  if (!existsSync(hiddenPath)) fail('node_modules has no .package-lock.json: run `npm ci` first');
  const hidden = (JSON.parse(readFileSync(hiddenPath, 'utf8')) as { packages: LockPackages }).packages;
  const differing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || !path.startsWith('node_modules/')) continue;
    const installed = hidden[path];
    if (installed === undefined) {
      // Optional packages of other platforms are not installed.
      if (!entry.optional) differing.push(`${path} missing`);
    } else if (installed.version !== entry.version) {
      differing.push(`${path} ${installed.version} (lock: ${entry.version})`);
    }
  }
  for (const path of Object.keys(hidden)) if (!(path in lock.packages)) differing.push(`${path} not in package-lock.json`);
  if (differing.length > 0) fail(`node_modules is not what \`npm ci\` installs from package-lock.json (run \`npm ci\`): ${differing.slice(0, 10).join('; ')}`);
}

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Files npm may rewrite in place (prune): each tree gets copies of its own, never shared inodes. */
const REWRITTEN = ['node_modules/.package-lock.json', 'package.json', 'package-lock.json'];

/** A hard-linked copy of `from` (folders new, files shared) with its own copies of the files npm rewrites. */
function cloneTree(from: string, to: string, what: string): void {
  run('cp', ['-al', from, to], { cwd: ROOT, what });
  const base = from.endsWith('node_modules') ? 'node_modules/' : '';
  for (const path of REWRITTEN) {
    if (!path.startsWith(base)) continue;
    const inside = path.slice(base.length);
    if (!existsSync(join(from, inside))) continue;
    rmSync(join(to, inside));
    copyFileSync(join(from, inside), join(to, inside));
  }
}

/** node_modules as npm ci would leave it, hard-linked from the work tree. */
function linkNodeModules(ctx: string): void {
  cloneTree(join(ROOT, 'node_modules'), join(ctx, 'node_modules'), 'linking node_modules');
}

const ONNX_PROVIDERS = ['libonnxruntime_providers_cuda.so', 'libonnxruntime_providers_shared.so', 'libonnxruntime_providers_tensorrt.so'];

/**
 * onnxruntime-node's postinstall as npm 10 runs it (npm 10 ignores `allowScripts`): in the
 * package's folder, npm's lifecycle variables set, the stage's ENV, downloads refused by an
 * unreachable proxy. Returns its exit status and whether it tried to fetch.
 */
function onnxPostinstall(ctx: string, env: Readonly<Record<string, string>>): { status: number | null; fetched: boolean; output: string } {
  const pkg = join(ctx, 'node_modules', 'onnxruntime-node');
  const bin = join(pkg, 'bin', 'napi-v6', 'linux', 'x64');
  const before = new Set(existsSync(bin) ? readdirSync(bin) : []);
  const refused = 'http://127.0.0.1:9';
  const result = spawnSync(process.execPath, ['./script/install'], {
    cwd: pkg,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? ctx,
      ...env,
      npm_lifecycle_event: 'postinstall',
      npm_package_name: 'onnxruntime-node',
      npm_package_json: join(pkg, 'package.json'),
      npm_config_local_prefix: ctx,
      GLOBAL_AGENT_HTTP_PROXY: refused,
      GLOBAL_AGENT_HTTPS_PROXY: refused,
      HTTP_PROXY: refused,
      HTTPS_PROXY: refused,
      http_proxy: refused,
      https_proxy: refused,
    },
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  const added = existsSync(bin) ? readdirSync(bin).filter((name) => !before.has(name)) : [];
  return { status: result.status, fetched: added.length > 0 || /download|nuget|ECONNREFUSED|fetch/i.test(output), output };
}

function checkOnnxRuntime(ctx: string, env: Readonly<Record<string, string>>, dockerfile: string): void {
  const allow = (JSON.parse(readFileSync(join(ctx, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
  if (allow['onnxruntime-node'] !== false) fail('package.json allowScripts must keep onnxruntime-node false (npm 11 then never runs its CUDA download)');
  const withImageEnv = onnxPostinstall(ctx, env);
  if (withImageEnv.status !== 0 || withImageEnv.fetched) {
    fail(
      `${dockerfile}: onnxruntime-node's postinstall, run as npm 10 runs it with the build stage's ENV, tries to download (exit ${withImageEnv.status}); ` +
        `set ENV ONNXRUNTIME_NODE_INSTALL=skip in the build stage:\n${withImageEnv.output.slice(-800)}`,
    );
  }
  for (const name of ONNX_PROVIDERS)
    if (existsSync(join(ctx, 'node_modules/onnxruntime-node/bin/napi-v6/linux/x64', name))) fail(`${name} is in the CPU image`);
  log(
    `${dockerfile}: onnxruntime-node postinstall as npm 10 runs it (ONNXRUNTIME_NODE_INSTALL=${env['ONNXRUNTIME_NODE_INSTALL'] ?? '(unset)'}): exits without downloading; npm 11 skips it (allowScripts)`,
  );
}

/** Without the setting, the same run tries the CUDA download: the check above can fail. */
function checkOnnxControl(ctx: string): void {
  const control = onnxPostinstall(ctx, {});
  log(
    `control: onnxruntime-node postinstall without ONNXRUNTIME_NODE_INSTALL ${control.fetched || control.status !== 0 ? 'tries the CUDA download (refused here)' : 'did not try to download'}`,
  );
  if (!control.fetched && control.status === 0) {
    log('note: this onnxruntime-node no longer downloads by default; ONNXRUNTIME_NODE_INSTALL=skip is then belt and braces');
  }
}

/** The cuda12 flag of `npm run onnxruntime:cuda` names a manifest onnxruntime-node has for linux/x64. */
function checkCudaScript(ctx: string, step: string): void {
  const scripts = (JSON.parse(readFileSync(join(ctx, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const name = step.replace(/^npm run\s+/, '');
  const script = scripts[name] ?? fail(`${step}: no such script`);
  const flag = /ONNXRUNTIME_NODE_INSTALL=(\S+)/.exec(script)?.[1] ?? fail(`${step}: ${script} sets no ONNXRUNTIME_NODE_INSTALL`);
  const probe = run(
    process.execPath,
    ['-e', `const m=require('./script/install-metadata.js');process.stdout.write(JSON.stringify(m.requirements['linux/x64']))`],
    {
      cwd: join(ctx, 'node_modules', 'onnxruntime-node'),
      what: 'reading onnxruntime-node install metadata',
    },
  );
  const manifests = JSON.parse(probe.stdout) as string[];
  if (!manifests.includes(flag))
    fail(`${step}: ONNXRUNTIME_NODE_INSTALL=${flag} is not one of onnxruntime-node's linux/x64 manifests (${manifests.join(', ')})`);
  log(`${step}: downloads ${flag} from NuGet in the image (not reachable here); its flag is a linux/x64 manifest`);
}

const npmEnv = (env: Readonly<Record<string, string>>): NodeJS.ProcessEnv => ({
  ...process.env,
  ...env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_offline: 'true',
});

/** `npm ci` in the copy: node_modules linked, then the lifecycle scripts npm ci runs. */
function replayNpmCi(ctx: string, instruction: RunInstruction, dockerfile: string): void {
  linkNodeModules(ctx);
  checkOnnxRuntime(ctx, instruction.env, dockerfile);
  const scripts = (JSON.parse(readFileSync(join(ctx, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  for (const event of ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare']) {
    const script = scripts[event];
    if (script === undefined) continue;
    const t0 = performance.now();
    if (event === 'install' && /^cmake-js compile\b/.test(script) && !compileNative) {
      run('npx', ['--no-install', 'cmake-js', 'configure', ...script.split(/\s+/).slice(2)], {
        cwd: ctx,
        env: npmEnv(instruction.env),
        what: `${dockerfile}: npm ci's install script (cmake-js configure)`,
      });
      log(`${dockerfile}: install (${script}) configured: every native source is in the context (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    } else {
      run('npm', ['run', event], { cwd: ctx, env: npmEnv(instruction.env), what: `${dockerfile}: npm ci's ${event} script (${script})` });
      log(`${dockerfile}: ${event} (${script}) passed (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
  }
}

/** The tree after `npm ci`, by the ENV it ran with: a second image with the same context and ENV starts from it. */
const afterNpmCi = new Map<string, string>();

function replayBuild(plan: DockerfilePlan, ctx: string, dockerfile: string): void {
  for (const instruction of plan.build.runs) {
    if (!instruction.withContext) {
      for (const tool of ['cmake', 'c++', 'python3'])
        if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) fail(`${tool} (from the image's system packages) is not on this machine`);
      continue;
    }
    for (const step of instruction.steps) {
      if (step === 'npm ci') {
        const key = JSON.stringify(instruction.env);
        const done = afterNpmCi.get(key);
        if (done !== undefined) {
          rmSync(ctx, { recursive: true, force: true });
          cloneTree(done, ctx, 'reusing the npm ci replay');
          checkOnnxRuntime(ctx, instruction.env, dockerfile);
          log(`${dockerfile}: npm ci: the same context and ENV as before, its replay reused`);
        } else {
          replayNpmCi(ctx, instruction, dockerfile);
          const snapshot = mkdtempSync(join(tmpdir(), 'docker-npm-ci-'));
          rmSync(snapshot, { recursive: true });
          cloneTree(ctx, snapshot, 'keeping the npm ci replay');
          afterNpmCi.set(key, snapshot);
        }
      } else if (/^npm run onnxruntime:cuda$/.test(step)) checkCudaScript(ctx, step);
      else if (/^npm prune\b/.test(step) || /^rm -rf\b/.test(step)) {
        run('sh', ['-c', step], { cwd: ctx, env: npmEnv(instruction.env), what: `${dockerfile}: ${step}` });
        log(`${dockerfile}: ${step}`);
      } else fail(`${dockerfile}: RUN step \`${step}\` is not one this check knows how to replay (scripts/docker-context-check.ts)`);
    }
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The runtime stage's files, laid out as its COPY lines say; the CPU image is started and must answer its HEALTHCHECK. */
async function replayRuntime(plan: DockerfilePlan, ctx: string, dockerfile: string, start: boolean): Promise<void> {
  const image = mkdtempSync(join(tmpdir(), 'docker-runtime-'));
  try {
    const workdir = plan.runtime.workdir;
    for (const copy of plan.runtime.copiesFrom) {
      if (!copy.source.startsWith(`${plan.build.workdir}/`)) {
        // From the build stage's base image (Node's binary for the CUDA image), not from the build.
        log(`${dockerfile}: COPY --from=${copy.from} ${copy.source} comes from the base image ${plan.build.base}`);
        continue;
      }
      let source = join(ctx, relative(plan.build.workdir, copy.source));
      if (!existsSync(source) && !compileNative && copy.source.endsWith('.node')) {
        // The addon was configured, not compiled, in the copy: the work tree's build of the same sources.
        source = join(ROOT, relative(plan.build.workdir, copy.source));
      }
      if (!existsSync(source)) fail(`${dockerfile}: COPY --from=${copy.from} ${copy.source}: the build stage has no such path`);
      if (!copy.dest.startsWith(`${workdir}/`) && copy.dest !== workdir) fail(`${dockerfile}: COPY destination ${copy.dest} is outside WORKDIR ${workdir}`);
      const target = join(image, relative(workdir, copy.dest));
      mkdirSync(dirname(target), { recursive: true });
      run('cp', ['-al', source, target], { cwd: ctx, what: `${dockerfile}: laying out ${copy.dest}` });
    }
    log(`${dockerfile}: runtime stage's ${plan.runtime.copiesFrom.length} COPY --from paths exist`);
    if (!start) return;
    const cmd = plan.runtime.cmd ?? fail(`${dockerfile}: no CMD`);
    const healthcheck = plan.runtime.healthcheck ?? fail(`${dockerfile}: no HEALTHCHECK`);
    const port = await freePort();
    const data = mkdtempSync(join(tmpdir(), 'docker-data-'));
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: image,
      ...plan.runtime.env,
      // Loopback and free ports here; the image listens on 0.0.0.0:8080 and 9464.
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      DATA_DIR: data,
    };
    const exe = cmd[0] === 'node' ? process.execPath : cmd[0]!;
    const child = spawn(exe, cmd.slice(1), { cwd: image, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const probe = spawnSync(healthcheck[0] === 'node' ? process.execPath : healthcheck[0]!, healthcheck.slice(1), { env, cwd: image, timeout: 5_000 });
        if (probe.status === 0) break;
        if (child.exitCode !== null) fail(`${dockerfile}: \`${cmd.join(' ')}\` exited (${child.exitCode}) before answering its HEALTHCHECK:\n${stderr}`);
        if (Date.now() > deadline) fail(`${dockerfile}: no healthy answer within 120 s:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      log(`${dockerfile}: the runtime stage starts (\`${cmd.join(' ')}\`, production node_modules) and its HEALTHCHECK passes`);
    } finally {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      rmSync(data, { recursive: true, force: true });
    }
  } finally {
    rmSync(image, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const files = contextFiles();
  log(`build context: ${files.length} files (.dockerignore applied with @balena/dockerignore)`);
  checkNodeModulesMatchLock();
  const hiddenLock = join(ROOT, 'node_modules', '.package-lock.json');
  const hiddenBefore = sha256(hiddenLock);
  const targets = dockerfiles.length > 0 ? dockerfiles : ['Dockerfile', 'Dockerfile.gpu'];
  let controlled = false;
  try {
    await checkImages(targets, files, () => {
      const first = !controlled;
      controlled = true;
      return first;
    });
  } finally {
    for (const snapshot of afterNpmCi.values()) rmSync(snapshot, { recursive: true, force: true });
  }
  if (sha256(hiddenLock) !== hiddenBefore) fail('the work tree node_modules/.package-lock.json changed during the check');
  log(`docker context check: ${targets.join(', ')} build from their context (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

async function checkImages(targets: readonly string[], files: readonly string[], firstControl: () => boolean): Promise<void> {
  for (const dockerfile of targets) {
    const plan = parseDockerfile(readFileSync(join(ROOT, dockerfile), 'utf8'));
    const ctx = mkdtempSync(join(tmpdir(), 'docker-context-'));
    try {
      copyContext(files, ctx);
      replayBuild(plan, ctx, dockerfile);
      // The GPU image runs on CUDA, which this machine lacks: its files are checked, not started.
      await replayRuntime(plan, ctx, dockerfile, !plan.runtime.base.startsWith('nvidia/'));
      if (firstControl()) checkOnnxControl(ctx);
    } finally {
      if (keep) log(`kept ${ctx}`);
      else rmSync(ctx, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`docker context check failed: ${error instanceof CheckFailure ? error.message : (error as Error).stack}\n`);
  process.exitCode = 1;
});
