// Closing the Silero VAD while its worker runs a batch (issue 34 item 6): the worker ends after
// the batch in flight, never terminated under a running onnxruntime call, which aborts the whole
// process ("terminate called after throwing an instance of 'Napi::Error'", exit 134). Run in a
// child process of the compiled engine, since the failure it guards against kills the process.
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { distEntry, runNode } from '../helpers/spawn-dist.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';

const scratch = useScratchDir('silero-close-');

describe('the Silero VAD at shutdown', () => {
  it('closes cleanly whenever close() lands, mid-batch included', async () => {
    const module = pathToFileURL(distEntry('src/engines/vad/silero-vad.js')).href;
    // 64 streams with 100 windows each keep the worker busy; close() lands 0-40 ms in, in and between batches.
    const script = `
      const { SileroVad } = await import(${JSON.stringify(module)});
      const audio = new Float32Array(512 * 100).map(() => Math.random() - 0.5);
      for (let delay = 0; delay <= 40; delay += 2) {
        const vad = await SileroVad.create({ maxBatch: 64, maxQueuedWindowsPerStream: 1000 });
        for (let i = 0; i < 64; i++) vad.openStream().feed(audio);
        await new Promise((resolve) => setTimeout(resolve, delay));
        await vad.close();
      }
      console.log('closed cleanly');`;
    // A module file, not `--input-type=module -e`: worker threads inherit execArgv.
    const entry = scratch('close-mid-batch.mjs');
    writeFileSync(entry, script);
    const result = await runNode(entry, [], {}, 60_000);
    expect(result.stderr).not.toContain('Napi::Error');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('closed cleanly');
  }, 90_000);
});
