// The compiled gateway (dist/) as tests run it in child processes: its CLIs and server processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './fixtures.js';

export { REPO_ROOT };

/** Path of a compiled entry point; `npm test` builds dist/ first (pretest). */
export function distEntry(relative: string): string {
  const path = join(REPO_ROOT, 'dist', relative);
  if (!existsSync(path)) throw new Error(`${path} is missing: run "npm run build" (npm test does it first)`);
  return path;
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runNode(entry: string, args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], { env: { ...process.env, ...env }, cwd: REPO_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${entry} ${args.join(' ')}\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** Everything it has written to stdout and stderr so far. */
  readonly output: () => string;
}

/** Starts the compiled server and resolves once it logs "gateway listening" with its port. */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [distEntry('src/main.js')], {
      // (the host CPU guard off, as in test-gateway.ts: the suite shares the cores)
      env: { ...process.env, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', OVERLOAD_HOST_CPU_FULL_AT: '0', ...env },
      cwd: REPO_ROOT,
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /"port":(\d+).*"msg":"gateway listening"/.exec(output);
      if (match) {
        clearTimeout(timer);
        const port = Number(match[1]);
        resolve({ child, port, url: `http://127.0.0.1:${port}`, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

/** Sends `signal` to a server process and resolves with its exit code once it has exited (at once when it had already). */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}

/** Creates an API key of `account` in the store `env` selects, with the compiled keys CLI (`keys create`, then `args`); throws with its errors when it fails. */
export async function createKeyWithCli(account: string, env: Record<string, string>, args: readonly string[] = [], timeoutMs = 60_000): Promise<string> {
  const created = await runNode(distEntry('src/app/cli/keys-cli.js'), ['create', '--account', account, ...args], env, timeoutMs);
  if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { key: string }).key;
}
