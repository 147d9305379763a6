import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('native handles without close()', () => {
  it('are freed once garbage-collected (FinalizationRegistry, the external finalizer as backstop)', () => {
    // A child process with --expose-gc: 30 rounds of 10 front ends holding ~16 MiB of touched
    // buffer each, dropped unclosed (4.7 GiB in all). The child stops early once RSS passes
    // 1.5 GiB, so a broken finalizer fails the test without exhausting the machine.
    const script = `
      import { StreamFrontEnd } from './src/engines/signal/live/stream-front-end.ts';
      const chunk = new Uint8Array(2 * 16000 * 500); // 500 s of pcm_s16le
      let peak = 0;
      for (let round = 0; round < 30 && peak < 1536 * 1048576; round++) {
        for (let i = 0; i < 10; i++) {
          const fe = new StreamFrontEnd({ format: 'pcm_s16le', energyVad: false, initialBufferSeconds: 1 });
          fe.push(chunk); // storage doubles from 1 s to 2^23 samples (16 MiB)
        }
        globalThis.gc();
        await new Promise((r) => setTimeout(r, 10));
        peak = Math.max(peak, process.memoryUsage().rss);
      }
      console.log(JSON.stringify({ peakMiB: Math.round(peak / 1048576) }));
    `;
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const { peakMiB } = JSON.parse(out.trim().split('\n').at(-1)!) as { peakMiB: number };
    expect(peakMiB).toBeLessThan(1024);
  });
});
