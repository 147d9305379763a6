// Worker thread that owns the Silero onnxruntime session and every stream's recurrent state
// (2 x 128 floats) and 64-sample context, so the main thread only sends new windows.
// Messages run one at a time, in order; `close` releases the session after the batch in
// flight and ends the thread (a terminate() under a running batch aborts the whole process).
import { parentPort } from 'node:worker_threads';
import { SILERO_CONTEXT, SILERO_INPUT, SILERO_STATE, SILERO_WINDOW } from './silero-model.js';
import type { SileroRequest, SileroResponse } from './silero-protocol.js';
import { SileroSession } from './silero-session.js';

const port = parentPort;
if (!port) throw new Error('silero-worker must run in a worker thread');

// Per stream: [h (128) | c (128) | context (64)].
const STREAM_FLOATS = 2 * SILERO_STATE + SILERO_CONTEXT;
const streams = new Map<number, Float32Array>();
let session: SileroSession | undefined;
let input = new Float32Array(0);
let state = new Float32Array(0);

function post(message: SileroResponse): void {
  port!.postMessage(message);
}

/** A message's steps in order (a stream's state carries from one step to the next), one result for all. */
async function runBatch(id: number, ids: Int32Array, windows: Float32Array, steps: Int32Array): Promise<void> {
  const probabilities = new Float32Array(ids.length);
  let runMs = 0;
  let offset = 0;
  for (const count of steps) {
    const rows = ids.subarray(offset, offset + count);
    const step = await runStep(rows, windows.subarray(offset * SILERO_WINDOW, (offset + count) * SILERO_WINDOW));
    probabilities.set(step.probabilities, offset);
    runMs += step.runMs;
    offset += count;
  }
  post({ type: 'result', id, streams: ids, probabilities, steps: steps.length, runMs });
}

/** One onnxruntime call over one window of each stream in `ids`. */
async function runStep(ids: Int32Array, windows: Float32Array): Promise<{ probabilities: Float32Array; runMs: number }> {
  const batch = ids.length;
  if (input.length < batch * SILERO_INPUT) {
    input = new Float32Array(batch * SILERO_INPUT);
    state = new Float32Array(2 * batch * SILERO_STATE);
  }
  // Gather: each row is the stream's context followed by its new window; state is
  // [2, batch, 128] with h rows first, then c rows.
  const rows: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    let s = streams.get(ids[b]!);
    if (!s) {
      s = new Float32Array(STREAM_FLOATS);
      streams.set(ids[b]!, s);
    }
    rows.push(s);
    input.set(s.subarray(2 * SILERO_STATE), b * SILERO_INPUT);
    input.set(windows.subarray(b * SILERO_WINDOW, (b + 1) * SILERO_WINDOW), b * SILERO_INPUT + SILERO_CONTEXT);
    state.set(s.subarray(0, SILERO_STATE), b * SILERO_STATE);
    state.set(s.subarray(SILERO_STATE, 2 * SILERO_STATE), (batch + b) * SILERO_STATE);
  }
  const start = performance.now();
  const probs = await session!.run(batch, input, state);
  const runMs = performance.now() - start;
  // Scatter the new state and context.
  for (let b = 0; b < batch; b++) {
    const s = rows[b]!;
    s.set(state.subarray(b * SILERO_STATE, (b + 1) * SILERO_STATE), 0);
    s.set(state.subarray((batch + b) * SILERO_STATE, (batch + b + 1) * SILERO_STATE), SILERO_STATE);
    s.set(windows.subarray((b + 1) * SILERO_WINDOW - SILERO_CONTEXT, (b + 1) * SILERO_WINDOW), 2 * SILERO_STATE);
  }
  return { probabilities: Float32Array.from(probs.subarray(0, batch)), runMs };
}

// Batches are processed one at a time, in order.
let chain: Promise<void> = Promise.resolve();

port.on('message', (message: SileroRequest) => {
  if (message.type === 'init') {
    chain = chain.then(async () => {
      try {
        session = await SileroSession.create({ modelPath: message.modelPath, threads: message.threads });
        input = new Float32Array(message.maxBatch * SILERO_INPUT);
        state = new Float32Array(2 * message.maxBatch * SILERO_STATE);
        post({ type: 'ready', inputNames: [...session.inputNames], outputNames: [...session.outputNames] });
      } catch (err) {
        post({ type: 'error', message: `cannot load the Silero model: ${(err as Error).message}` });
      }
    });
  } else if (message.type === 'batch') {
    chain = chain.then(() =>
      runBatch(message.id, message.streams, message.windows, message.steps).catch((err: Error) => {
        post({ type: 'error', message: `Silero inference failed: ${err.message}` });
      }),
    );
  } else if (message.type === 'forget') {
    chain = chain.then(() => {
      streams.delete(message.stream);
    });
  } else {
    // After the batch running now (never under it: freeing onnxruntime mid-run aborts the process).
    chain = chain.then(async () => {
      await session?.release().catch(() => undefined);
      session = undefined;
      port.close();
    });
  }
});
