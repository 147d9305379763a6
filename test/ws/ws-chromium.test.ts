// A real browser as the client: headless Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH)
// driven by playwright-core, its fake microphone playing a WAV file; the page's MediaRecorder
// (audio/webm;codecs=opus, 250 ms timeslice) streams chunks to GET /v1/ws/transcribe,
// authenticated with a session token from POST /v1/ws/tokens (browsers cannot set headers).
// Without Chromium the test is skipped with a message, unless CI is set: then it fails.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerMessageSchema } from '../../src/streaming/ws-messages.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { twoTurns } from './ws-audio.js';
import { wavOf } from '../helpers/fixtures.js';
import { sleep } from './ws-client.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);

if (!available && !process.env['CI']) {
  console.warn(`ws-chromium.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
}

describe('Chromium installed (required when CI is set)', () => {
  it.runIf(Boolean(process.env['CI']))('finds Chromium', () => {
    expect(available, `Chromium is required in CI: ${CHROMIUM} not found (apt-get install -y chromium)`).toBe(true);
  });
});

// The page: records the fake microphone and streams MediaRecorder chunks in order.
const PAGE = `<!doctype html><meta charset="utf-8"><title>ws test</title><script>
window.messages = [];
window.wsClosed = null;
window.stream = async (url, recordMs) => {
  const media = await navigator.mediaDevices.getUserMedia({ audio: true });
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  socket.onmessage = (e) => window.messages.push(JSON.parse(e.data));
  socket.onclose = (e) => { window.wsClosed = { code: e.code, reason: e.reason }; };
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
  const recorder = new MediaRecorder(media, { mimeType: 'audio/webm;codecs=opus' });
  let queue = Promise.resolve();
  let chunks = 0;
  recorder.ondataavailable = (e) => {
    if (e.data.size === 0) return;
    chunks++;
    queue = queue.then(async () => socket.send(await e.data.arrayBuffer()));
  };
  const stopped = new Promise((resolve) => { recorder.onstop = resolve; });
  recorder.start(250);
  await new Promise((resolve) => setTimeout(resolve, recordMs));
  recorder.stop();
  await stopped;
  await queue;
  socket.send('END');
  media.getTracks().forEach((t) => t.stop());
  return { chunks, mimeType: recorder.mimeType };
};
</script>`;

describe.runIf(available)('Chromium MediaRecorder client', () => {
  let gw: TestGateway;
  let key: string;
  let browser: Browser;
  let dir: string;
  let pages: Server;
  // The page is served from loopback like the gateway (Chromium's local network access checks
  // block a public page from opening a loopback WebSocket).
  let PAGE_ORIGIN = '';

  beforeAll(async () => {
    gw = await startTestGateway();
    pages = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/empty.html' ? '<!doctype html><title>x</title>' : PAGE);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    PAGE_ORIGIN = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    key = await gw.key({ scopes: ['write'], originAllowlist: [PAGE_ORIGIN] });
    dir = mkdtempSync(join(tmpdir(), 'ws-chromium-'));
    const wav = join(dir, 'mic.wav');
    writeFileSync(wav, wavOf(twoTurns(1_500).pcm));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${wav}`,
        '--autoplay-policy=no-user-gesture-required',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('streams webm_opus chunks with a session token and gets turns, a final transcription and a job record', async () => {
    const minted = await fetch(`${gw.url}/v1/ws/tokens`, { method: 'POST', headers: bearer(key) });
    expect(minted.status).toBe(201);
    const { token } = (await minted.json()) as { token: string };
    const page = await browser.newPage();
    await page.goto(`${PAGE_ORIGIN}/index.html`);
    const url = `ws://127.0.0.1:${gw.gateway.port}/v1/ws/transcribe?token=${token}&format=webm_opus&turn_detection=server_vad`;
    const recorded = await page.evaluate(
      ([u, ms]) => (globalThis as unknown as { stream: (u: string, ms: number) => Promise<{ chunks: number; mimeType: string }> }).stream(u, ms),
      [url, 9_500] as const,
    );
    expect(recorded.mimeType).toContain('webm');
    expect(recorded.chunks).toBeGreaterThanOrEqual(30);

    let closed: { code: number; reason: string } | null = null;
    for (let i = 0; i < 100 && closed === null; i++) {
      await sleep(100);
      closed = await page.evaluate(() => (globalThis as unknown as { wsClosed: { code: number; reason: string } | null }).wsClosed);
    }
    const messages = await page.evaluate(() => (globalThis as unknown as { messages: Record<string, unknown>[] }).messages);
    expect(closed?.code).toBe(1000);
    for (const m of messages)
      expect(
        [...Value.Errors(ServerMessageSchema, m)].map((e) => e.message),
        JSON.stringify(m).slice(0, 200),
      ).toEqual([]);
    const types = messages.map((m) => m['type']);
    expect(types[0]).toBe('ready');
    expect(messages[0]).toMatchObject({ format: 'webm_opus', sample_rate: 48000, turn_detection: 'server_vad' });
    expect(types).toContain('chunk_received');
    expect(messages.filter((m) => m['type'] === 'error')).toEqual([]);
    const acked = messages.filter((m) => m['type'] === 'chunk_received').reduce((n, m) => n + (m['messages'] as number), 0);
    expect(acked).toBe(recorded.chunks);
    // The fake microphone loops two turns with 1.5 s pauses: at least two turns in 9.5 s.
    const turns = messages.filter((m) => m['type'] === 'turn_detected');
    expect(turns.length).toBeGreaterThanOrEqual(2);
    for (const turn of turns) {
      expect(turn['end_ms'] as number).toBeGreaterThan(turn['start_ms'] as number);
      expect(typeof turn['text']).toBe('string');
    }
    const final = messages.find((m) => m['type'] === 'transcription' && m['is_final'] === true);
    expect(final).toBeDefined();
    const stream = messages.filter((m) => m['type'] === 'chunk_received').at(-1)!;
    expect(stream['stream_ms'] as number).toBeGreaterThan(8_000);

    const jobId = messages[0]!['job_id'] as string;
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) {
      job = (await (await fetch(`${gw.url}/v1/transcriptions/${jobId}`, { headers: bearer(key) })).json()) as Record<string, unknown>;
      if (job['status'] === 'completed') break;
      await sleep(100);
    }
    expect(job).toMatchObject({ status: 'completed', text: final!['full_text'] });
    expect((job['segments'] as unknown[]).length).toBe(turns.flatMap((t) => t['segments'] as unknown[]).length);
    const list = (await (await fetch(`${gw.url}/v1/transcriptions?source=websocket`, { headers: bearer(key) })).json()) as { data: { id: string }[] };
    expect(list.data.map((j) => j.id)).toContain(jobId);
    await page.close();
  }, 60_000);

  it('a page whose origin the key does not allow is refused with 4003', async () => {
    const other = await gw.key({ scopes: ['write'], originAllowlist: ['https://app.example.com'] });
    const { token } = (await (await fetch(`${gw.url}/v1/ws/tokens`, { method: 'POST', headers: bearer(other) })).json()) as { token: string };
    const page = await browser.newPage();
    await page.goto(`${PAGE_ORIGIN}/empty.html`);
    const result = await page.evaluate(
      (u) =>
        new Promise<{ code: number; messages: string[] }>((resolve) => {
          const messages: string[] = [];
          const socket = new WebSocket(u);
          socket.onmessage = (e) => messages.push(String(e.data));
          socket.onclose = (e) => resolve({ code: e.code, messages });
        }),
      `ws://127.0.0.1:${gw.gateway.port}/v1/ws/transcribe?token=${token}`,
    );
    expect(result.code).toBe(4003);
    expect(JSON.parse(result.messages[0]!)).toMatchObject({ type: 'error', error: { code: 'origin_not_allowed' } });
    await page.close();
  }, 30_000);
});
