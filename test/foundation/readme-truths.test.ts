import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { MEDIA_DIR } from '../helpers/tls-servers.js';
import { connect, wsUrl } from '../ws/ws-client.js';

/** What the README says, checked against a real gateway. */
const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);

const suite = useTestGateway({ DEFAULT_LANGUAGE: 'om', RATE_LIMIT_PER_MINUTE: '100000' }, { scopes: ['write'] });

describe('README', () => {
  it('the uploads snippet runs as written: $UPLOAD_URL comes from the signed-url answer', async () => {
    const block = /```sh\n(curl -s localhost:8080\/v1\/uploads [\s\S]*?)```/.exec(README)?.[1];
    expect(block).toBeDefined();
    expect(block).toContain('UPLOAD_URL=');
    const dir = mkdtempSync(join(tmpdir(), 'readme-'));
    try {
      copyFileSync(join(MEDIA_DIR, 'hello-am.mp3'), join(dir, 'talk.mp3'));
      const script = block!.replaceAll('localhost:8080', new URL(suite.gw.url).host);
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, env: { ...process.env, API_KEY: suite.key } });
      const answers = jsonObjects(stdout);
      expect(answers.at(-1)).toMatchObject({ status: 'ready' });
      expect(answers.at(-2)).toMatchObject({ status: 'uploaded' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('DEFAULT_LANGUAGE applies to WebSocket sessions and batches; POST /v1/transcriptions requires language', async () => {
    expect(README).toMatch(/`DEFAULT_LANGUAGE` \| `am` \| [^|]* \| language of a WebSocket session or a batch that names none/);
    const client = connect(wsUrl(suite.gw.url), bearer(suite.key));
    const ready = await client.waitFor('ready');
    expect(ready.language).toBe('om');
    client.close();
    const batch = await fetch(`${suite.gw.url}/v1/transcriptions/batch`, {
      method: 'POST',
      headers: bearer(suite.key, { 'content-type': 'application/json' }),
      body: JSON.stringify({ audio_urls: ['https://example.com/a.wav'] }),
    });
    expect(batch.status).toBe(202);
    expect(((await batch.json()) as { language: string }).language).toBe('om');
    const single = await fetch(`${suite.gw.url}/v1/transcriptions`, {
      method: 'POST',
      headers: bearer(suite.key, { 'content-type': 'application/json' }),
      body: JSON.stringify({ audio_url: 'https://example.com/a.wav' }),
    });
    expect(single.status).toBe(400);
    expect(((await single.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'missing_required_field', param: 'language' });
  });

  it("npm installs never run onnxruntime-node's CUDA download, with no project config npm warns about", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean>; scripts: Record<string, string> };
    expect(pkg.allowScripts['onnxruntime-node']).toBe(false);
    expect(pkg.scripts['onnxruntime:cuda']).toContain('ONNXRUNTIME_NODE_INSTALL=cuda12');
    const npmrc = join(ROOT, '.npmrc');
    if (existsSync(npmrc)) expect(readFileSync(npmrc, 'utf8')).not.toMatch(/^\s*onnxruntime/m);
    expect(README).toContain('npm run onnxruntime:cuda');
  });
});

/** curl prints its answers back to back without newlines: split them into objects. */
function jsonObjects(text: string): any[] {
  const out: any[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}
