import { describe, expect, it } from 'vitest';
import { redactText, runProcess, spawnStreaming, SubprocessError } from './subprocess.js';

// The child is this Node binary running a one-line script: no other tool needed.
const NODE = process.execPath;
const script = (code: string): string[] => ['-e', code];

describe('runProcess', () => {
  it('returns the exit code, stdout and stderr', async () => {
    const result = await runProcess(NODE, script("process.stdout.write('out'); process.stderr.write('err'); process.exit(3)"), { name: 'node' });
    expect(result).toEqual({ code: 3, stdout: 'out', stderr: 'err' });
  });

  it('keeps only the first bytes of long output and still waits for the end', async () => {
    const result = await runProcess(NODE, script("process.stdout.write('a'.repeat(100000)); process.stderr.write('b'.repeat(100000))"), {
      name: 'node',
      maxStdoutBytes: 1000,
      maxStderrBytes: 10,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.stderr).toBe('b'.repeat(10));
  });

  it('kills the process at its timeout', async () => {
    const started = Date.now();
    const error = await runProcess(NODE, script('setTimeout(() => {}, 60000)'), { name: 'slowtool', timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubprocessError);
    expect(error).toMatchObject({ kind: 'timeout', message: 'slowtool took longer than 200 ms' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('kills the process when the signal aborts and rejects with its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    const run = runProcess(NODE, script('setTimeout(() => {}, 60000)'), { name: 'node', signal: controller.signal });
    setTimeout(() => controller.abort(reason), 100);
    await expect(run).rejects.toBe(reason);
    await expect(runProcess(NODE, script(''), { name: 'node', signal: controller.signal })).rejects.toBe(reason);
  });

  it('names the tool, not its path, when it cannot start', async () => {
    const error = await runProcess('/opt/secret/place/ffprobe-missing', [], { name: 'ffprobe' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubprocessError);
    expect(error).toMatchObject({ kind: 'spawn', message: 'ffprobe could not be started (ENOENT)' });
    expect((error as Error).message).not.toContain('/opt/secret');
  });

  it('redacts server paths in stderr', async () => {
    const result = await runProcess(NODE, script("process.stderr.write('file:/data/files/x: Invalid data; /data/files/x again')"), {
      name: 'node',
      redact: { 'file:/data/files/x': 'the file', '/data/files/x': 'the file' },
    });
    expect(result.stderr).toBe('the file: Invalid data; the file again');
  });

  it('passes the environment it is given, and only that', async () => {
    const result = await runProcess(NODE, script("process.stdout.write(JSON.stringify(Object.keys(process.env).filter((k) => k.startsWith('SUBPROC_'))))"), {
      name: 'node',
      env: { SUBPROC_ONE: '1' },
    });
    expect(JSON.parse(result.stdout)).toEqual(['SUBPROC_ONE']);
  });
});

describe('spawnStreaming', () => {
  it('pipes stdin to the process and its stdout back', async () => {
    const child = spawnStreaming(NODE, script('process.stdin.pipe(process.stdout)'), { name: 'node', stdin: true });
    child.stdin!.end('hello through the pipe');
    const chunks: Buffer[] = [];
    for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello through the pipe');
    expect(await child.closed).toBe(0);
    expect(child.exited).toBe(true);
  });

  it('keeps the last whole lines of stderr, redacted', async () => {
    const child = spawnStreaming(NODE, script("process.stderr.write('x'.repeat(5000) + '\\nfirst\\n/srv/in.wav broken'); process.exit(1)"), {
      name: 'node',
      maxStderrBytes: 30,
      redact: { '/srv/in.wav': 'the file' },
    });
    child.stdout.resume();
    expect(await child.closed).toBe(1);
    expect(child.stderrTail()).toBe('first\nthe file broken');
  });

  it('is killed by the signal', async () => {
    const controller = new AbortController();
    const child = spawnStreaming(NODE, script('setInterval(() => process.stdout.write("."), 10)'), { name: 'node', signal: controller.signal });
    child.stdout.resume();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    expect(await child.closed).toBeNull();
  });

  it('is killed at once by a signal that fired before the start (no later abort event comes)', async () => {
    const controller = new AbortController();
    controller.abort(new Error('left already'));
    const child = spawnStreaming(NODE, script('setInterval(() => process.stdout.write("."), 10)'), { name: 'node', signal: controller.signal });
    child.stdout.resume();
    expect(await child.closed).toBeNull();
  });

  it('rejects `closed` without the path when the tool cannot start', async () => {
    const child = spawnStreaming('/opt/secret/ffmpeg-missing', [], { name: 'ffmpeg' });
    child.stdout.resume();
    await expect(child.closed).rejects.toMatchObject({ kind: 'spawn', message: 'ffmpeg could not be started (ENOENT)' });
  });
});

describe('redactText', () => {
  it('replaces every occurrence, in the given order', () => {
    expect(redactText('a/b/c and a/b', { 'a/b/c': 'X', 'a/b': 'Y' })).toBe('X and Y');
    expect(redactText('unchanged', undefined)).toBe('unchanged');
  });
});
