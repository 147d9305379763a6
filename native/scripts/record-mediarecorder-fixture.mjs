// Records test/fixtures/native/mediarecorder-chromium.webm: the speech fixture played through
// Chromium's MediaRecorder (audio/webm;codecs=opus, 100 ms timeslice), exactly as a browser
// client would stream it. The chunk sizes the browser delivered are saved next to it
// (mediarecorder-chromium.chunks.json) so tests can replay the same message boundaries.
// Needs a Chromium binary (CHROMIUM=/usr/bin/chromium by default); used once to make the
// committed fixture, never by the product or by `npm test`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtures = join(root, 'test', 'fixtures', 'native');
const wav = readFileSync(join(fixtures, 'speech-16k.wav')).toString('base64');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--autoplay-policy=no-user-gesture-required', '--no-sandbox'],
});
try {
  const page = await browser.newPage();
  await page.setContent('<html><body>recorder</body></html>');
  const chunks = await page.evaluate(async (wavBase64) => {
    const bytes = Uint8Array.from(atob(wavBase64), (c) => c.charCodeAt(0));
    const ctx = new AudioContext({ sampleRate: 48000 });
    const buffer = await ctx.decodeAudioData(bytes.buffer);
    const source = ctx.createBufferSource();
    source.buffer = buffer;
    const dest = ctx.createMediaStreamDestination();
    source.connect(dest);
    const recorder = new MediaRecorder(dest.stream, { mimeType: 'audio/webm;codecs=opus' });
    const parts = [];
    recorder.ondataavailable = (e) => parts.push(e.data);
    const stopped = new Promise((resolve) => (recorder.onstop = resolve));
    recorder.start(100);
    source.start();
    await new Promise((resolve) => (source.onended = resolve));
    await new Promise((resolve) => setTimeout(resolve, 300));
    recorder.stop();
    await stopped;
    const out = [];
    for (const p of parts) {
      const b = new Uint8Array(await p.arrayBuffer());
      let s = '';
      for (const x of b) s += String.fromCharCode(x);
      out.push(btoa(s));
    }
    return out;
  }, wav);
  const buffers = chunks.map((c) => Buffer.from(c, 'base64')).filter((b) => b.length > 0);
  writeFileSync(join(fixtures, 'mediarecorder-chromium.webm'), Buffer.concat(buffers));
  writeFileSync(
    join(fixtures, 'mediarecorder-chromium.chunks.json'),
    `${JSON.stringify({ browser: browser.version(), timesliceMs: 100, chunkBytes: buffers.map((b) => b.length) })}\n`,
  );
  console.log(`recorded ${buffers.length} chunks, ${buffers.reduce((n, b) => n + b.length, 0)} bytes`);
} finally {
  await browser.close();
}
