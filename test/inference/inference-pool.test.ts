import * as ort from 'onnxruntime-node';
import { Registry } from 'prom-client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InferenceBusyError, InferenceClosedError, ModelRunError } from '../../src/engines/asr/inference/inference-errors.js';
import { createInferenceMetrics } from '../../src/engines/asr/inference/inference-metrics.js';
import { InferencePool, type InferenceResult, type PoolModelSpec } from '../../src/engines/asr/inference/inference-pool.js';
import { CtcGreedyDecoder } from '../../src/engines/asr/decoding/ctc-greedy-decoder.js';
import { createDecoder, GREEDY } from '../../src/engines/asr/decoding/decoding-plan.js';
import { poolSpecFor } from '../../src/engines/asr/inference/model-specs.js';
import { InputPreparer } from '../../src/engines/asr/inference/model-input.js';
import { loadModelFolder, type LoadedCtcModel, type LoadedModel } from '../../src/engines/asr/models/model-loader.js';
import { AUDIO, noise, TINY_CTC, TINY_CTC_MEL, TINY_LID } from './fixtures.js';

let ctc: LoadedModel;
let mel: LoadedModel;
let lid: LoadedModel;
const pools: InferencePool[] = [];

async function startPool(options: Parameters<typeof InferencePool.start>[0]): Promise<InferencePool> {
  const pool = await InferencePool.start({ intraOpThreads: 1, ...options });
  pools.push(pool);
  return pool;
}

beforeAll(async () => {
  [ctc, mel, lid] = await Promise.all([loadModelFolder(TINY_CTC), loadModelFolder(TINY_CTC_MEL), loadModelFolder(TINY_LID)]);
});

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** What the recognizers send the pool: the PCM itself (the worker prepares the model input). */
function inputFor(_model: LoadedModel, pcm: Float32Array): { data: Float32Array; length: number } {
  return { data: pcm, length: pcm.length };
}

/**
 * The same PCM prepared on this thread and run alone by onnxruntime: the reference a pooled,
 * batched run (prepared in the worker, padded with other rows) must match.
 */
async function runAlone(
  model: LoadedModel,
  input: { data: Float32Array; length: number },
): Promise<{ data: Float32Array; dims: readonly number[]; outLength: number | null }> {
  const spec = poolSpecFor(model);
  const preparer = new InputPreparer(model.manifest.input);
  const prepared = preparer.prepare(input.data.subarray(0, input.length));
  const session = await ort.InferenceSession.create(model.onnxPath, { intraOpNumThreads: 1 });
  try {
    const dims = preparer.featureDim > 0 ? [1, prepared.length, preparer.featureDim] : [1, prepared.length];
    const feeds: Record<string, ort.Tensor> = { [spec.inputName]: new ort.Tensor('float32', prepared.data.slice(), dims) };
    if (spec.lengthsName) feeds[spec.lengthsName] = new ort.Tensor('int64', BigInt64Array.from([BigInt(prepared.length)]), [1]);
    const out = await session.run(feeds);
    const logits = out[spec.outputName]!;
    const outLength = spec.outLengthsName ? Number((out[spec.outLengthsName]!.data as BigInt64Array)[0]) : null;
    return { data: logits.data as Float32Array, dims: logits.dims.slice(1), outLength };
  } finally {
    await session.release();
  }
}

/** Compares the valid frames of a pooled row with the row run alone. */
function expectSameRow(pooled: InferenceResult, alone: { data: Float32Array; dims: readonly number[]; outLength: number | null }): void {
  expect(pooled.outLength).toBe(alone.outLength);
  const width = alone.dims[alone.dims.length - 1]!;
  const frames = alone.dims.length === 2 ? (alone.outLength ?? alone.dims[0]!) : 1;
  let worst = 0;
  for (let i = 0; i < frames * width; i++) worst = Math.max(worst, Math.abs(pooled.output[i]! - alone.data[i]!));
  expect(worst).toBeLessThan(1e-4);
}

describe('InferencePool', () => {
  it('runs several models in several workers concurrently and matches single runs', async () => {
    const pool = await startPool({ workers: 3, maxBatchSize: 4, maxWaitMs: 5 });
    const reports = await Promise.all([ctc, mel, lid].map((m) => pool.load(poolSpecFor(m))));
    expect(reports.flat()).toHaveLength(9); // 3 models x 3 workers
    expect(pool.loadedModels().sort()).toEqual(['tiny-ctc', 'tiny-ctc-mel', 'tiny-lid']);

    const models = [ctc, mel, lid];
    const jobs = Array.from({ length: 36 }, (_, i) => {
      const model = models[i % 3]!;
      const input = inputFor(model, noise(4000 + ((i * 1777) % 20000), i + 1));
      return { model, input };
    });
    const results = await Promise.all(jobs.map((j) => pool.run(j.model.name, j.input)));
    for (let i = 0; i < jobs.length; i += 5) expectSameRow(results[i]!, await runAlone(jobs[i]!.model, jobs[i]!.input));
    const stats = pool.stats();
    expect(stats.completedRequests).toBe(36);
    expect(stats.failedRequests).toBe(0);
    expect(stats.queued).toBe(0);
  });

  it('batches concurrent requests, pads rows and hands out views of one output buffer', async () => {
    const pool = await startPool({ workers: 1, maxBatchSize: 8, maxWaitMs: 50 });
    pool.register(poolSpecFor(ctc));
    const inputs = Array.from({ length: 16 }, (_, i) => inputFor(ctc, noise(8000 + i * 500, 100 + i)));
    const results = await Promise.all(inputs.map((input) => pool.run('tiny-ctc', input)));
    expect(Math.max(...results.map((r) => r.batchSize))).toBeGreaterThan(1);
    expect(Object.keys(pool.stats().batchSizes).some((size) => Number(size) > 1)).toBe(true);
    const batched = results.filter((r) => r.batchSize > 1);
    expect(batched[0]!.output.buffer).toBe(batched[1]!.output.buffer); // rows share the transferred buffer, no copies
    // out lengths follow each row's own length, not the padded one
    const convOut = (samples: number): number =>
      [
        [10, 5],
        [8, 4],
        [4, 4],
        [4, 4],
      ].reduce((n, [kernel, stride]) => Math.floor((n - kernel!) / stride!) + 1, samples);
    results.forEach((r, i) => expect(r.outLength).toBe(convOut(inputs[i]!.length)));
    expectSameRow(batched[0]!, await runAlone(ctc, inputs[results.indexOf(batched[0]!)]!));
  });

  it('decodes rows in the worker when the spec carries a plan, and refuses a second plan for the same model', async () => {
    const pool = await startPool({ workers: 1, maxBatchSize: 8, maxWaitMs: 20 });
    pool.register(poolSpecFor(ctc, { kind: 'greedy' }));
    pool.register(poolSpecFor(ctc, { kind: 'greedy' })); // the same again is fine
    expect(() => pool.register(poolSpecFor(ctc, { kind: 'beam', beamWidth: 4, lm: null }))).toThrow('already registered with another decoding');
    const inputs = Array.from({ length: 4 }, (_, i) => inputFor(ctc, noise(8000 + i * 1000, 300 + i)));
    const results = await Promise.all(inputs.map((input) => pool.run('tiny-ctc', input)));
    const { vocabulary } = ctc as LoadedCtcModel;
    const vocabSize = vocabulary.tokens.length;
    for (const r of results) {
      const frames = Math.min(r.dims[0]!, r.outLength!);
      expect(r.decoded).toEqual({
        frames,
        hypothesis: new CtcGreedyDecoder(vocabulary).decode({ data: r.output.subarray(0, frames * vocabSize), frames, vocabSize }),
      });
    }
  });

  it("decodes each row with its own request's keyterms (a greedy model gets a beam for them), in one batch", async () => {
    const pool = await startPool({ workers: 1, maxBatchSize: 8, maxWaitMs: 50 });
    pool.register(poolSpecFor(ctc, GREEDY));
    const { vocabulary } = ctc as LoadedCtcModel;
    const vocabSize = vocabulary.tokens.length;
    const terms = [['ሀለ', 'መረ', 'ሰሸ', 'ቀበ', 'ተቸ', 'ነአ', 'ከወ', 'ዘየ', 'ደገ'], null, ['aei', 'ou'], null];
    const inputs = terms.map((_, i) => inputFor(ctc, noise(16_000 + i * 1000, 500 + i)));
    const results = await Promise.all(inputs.map((input, i) => pool.run('tiny-ctc', input, { keyterms: terms[i] })));
    expect(results.every((r) => r.batchSize === 4)).toBe(true);
    let changed = 0;
    results.forEach((r, i) => {
      const frames = Math.min(r.dims[0]!, r.outLength!);
      const scores = { data: r.output.subarray(0, frames * vocabSize), frames, vocabSize };
      const greedy = new CtcGreedyDecoder(vocabulary).decode(scores);
      const expected = createDecoder(vocabulary, GREEDY, null, terms[i]).decode(scores);
      expect(r.decoded!.hypothesis).toEqual(expected);
      if (terms[i] === null) expect(expected).toEqual(greedy);
      else if (expected.text !== greedy.text) changed++;
    });
    expect(changed).toBeGreaterThan(0);
  });

  it('keeps a model whose manifest sets max_batch_size 1 to one row per batch', async () => {
    const pool = await startPool({ workers: 1, maxBatchSize: 8, maxWaitMs: 50 });
    pool.register({ ...poolSpecFor(ctc), name: 'unbatched', maxBatchSize: 1 });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.run('unbatched', inputFor(ctc, noise(8000, i + 1)))));
    expect(results.every((r) => r.batchSize === 1)).toBe(true);
  });

  it('answers service_unavailable when its queue is full', async () => {
    const pool = await startPool({ workers: 1, maxBatchSize: 1, maxQueued: 4 });
    pool.register(poolSpecFor(ctc));
    const input = inputFor(ctc, noise(16000));
    const settled = await Promise.allSettled(Array.from({ length: 20 }, () => pool.run('tiny-ctc', input)));
    const rejected = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(rejected.length).toBe(16);
    for (const r of rejected) {
      expect(r.reason).toBeInstanceOf(InferenceBusyError);
      expect((r.reason as InferenceBusyError).engineError).toBe('unavailable');
    }
    expect(pool.stats().rejectedBusy).toBe(16);
    // once the queue drains, work is accepted again
    await expect(pool.run('tiny-ctc', input)).resolves.toMatchObject({ batchSize: 1 });
  });

  it('runs interactive requests before queued batch work', async () => {
    const pool = await startPool({ workers: 1, maxBatchSize: 1 });
    pool.register(poolSpecFor(ctc));
    const order: string[] = [];
    const long = inputFor(ctc, noise(16000 * 4));
    const batchWork = Array.from({ length: 6 }, (_, i) => pool.run('tiny-ctc', long, { priority: 'batch' }).then(() => order.push(`batch-${i}`)));
    await new Promise((r) => setTimeout(r, 5));
    const live = pool.run('tiny-ctc', inputFor(ctc, noise(3200)), { priority: 'interactive' }).then(() => order.push('live'));
    await Promise.all([...batchWork, live]);
    expect(order.indexOf('live')).toBeLessThanOrEqual(2);
  });

  it('drops a cancelled request from the queue', async () => {
    const pool = await startPool({ workers: 1, maxBatchSize: 1 });
    pool.register(poolSpecFor(ctc));
    const input = inputFor(ctc, noise(16000 * 2));
    const first = pool.run('tiny-ctc', input);
    const controller = new AbortController();
    const cancelled = pool.run('tiny-ctc', input, { signal: controller.signal });
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(cancelled).rejects.toBe(reason);
    await expect(first).resolves.toBeDefined();
    expect(pool.stats().completedRequests).toBe(1);
  });

  it('fails a model that cannot be opened with model_error and keeps serving others', async () => {
    const pool = await startPool({ workers: 2 });
    const broken: PoolModelSpec = { ...poolSpecFor(ctc), name: 'broken', onnxPath: AUDIO('not-audio.txt') };
    pool.register(broken);
    pool.register(poolSpecFor(ctc));
    const error = await pool.run('broken', inputFor(ctc, noise(8000))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRunError);
    expect((error as ModelRunError).engineError).toBe('model_failed');
    const wrongNames: PoolModelSpec = { ...poolSpecFor(ctc), name: 'wrong-io', inputName: 'waveform' };
    await expect(pool.load(wrongNames)).rejects.toThrow(/no input\/output named waveform/);
    await expect(pool.run('tiny-ctc', inputFor(ctc, noise(8000)))).resolves.toBeDefined();
    await expect(pool.run('unknown', inputFor(ctc, noise(8000)))).rejects.toBeInstanceOf(ModelRunError);
    await expect(pool.run('tiny-ctc', { data: new Float32Array(10), length: 11 })).rejects.toBeInstanceOf(RangeError);
  });

  it('fails the batch of a worker that dies and replaces the worker', async () => {
    const pool = await startPool({ workers: 1, maxBatchSize: 1 });
    pool.register(poolSpecFor(ctc));
    const input = inputFor(ctc, noise(16000 * 180));
    const inFlight = pool.run('tiny-ctc', input);
    while (pool.stats().running === 0) await new Promise((r) => setImmediate(r));
    // Reach into the pool to kill its only worker mid-batch, as a native crash would.
    const slots = (pool as unknown as { slots: Array<{ host: { thread: { terminate(): Promise<number> } } }> }).slots;
    await slots[0]!.host.thread.terminate();
    await expect(inFlight).rejects.toBeInstanceOf(ModelRunError);
    await expect(pool.run('tiny-ctc', inputFor(ctc, noise(8000)))).resolves.toBeDefined();
  });

  it('reports CUDA when it runs on it and falls back to the CPU cleanly when it cannot', async () => {
    const pool = await startPool({ workers: 1, device: 'cuda' });
    const [report] = await pool.load(poolSpecFor(ctc));
    const device = pool.deviceReport();
    expect(device.requested).toBe('cuda');
    if (report!.provider === 'cuda') {
      expect(device).toMatchObject({ active: 'cuda', fallback: null });
    } else {
      expect(device.active).toBe('cpu');
      expect(device.fallback).toMatch(/CUDA execution provider unavailable/);
    }
    const result = await pool.run('tiny-ctc', inputFor(ctc, noise(8000)));
    expect(result.provider).toBe(report!.provider);
  });

  it('feeds Prometheus metrics', async () => {
    const registry = new Registry();
    const pool = await startPool({ workers: 1, maxBatchSize: 4, maxWaitMs: 20, observer: createInferenceMetrics(registry) });
    pool.register(poolSpecFor(ctc));
    await Promise.all(Array.from({ length: 8 }, (_, i) => pool.run('tiny-ctc', inputFor(ctc, noise(8000, i + 1)))));
    const text = await registry.metrics();
    expect(text).toMatch(/inference_batch_size_sum\{model="tiny-ctc"\} 8/);
    expect(text).toMatch(/inference_requests_total\{model="tiny-ctc",outcome="ok"\} 8/);
    expect(text).toMatch(/inference_queue_wait_seconds_count\{model="tiny-ctc",priority="batch"\} 8/);
    expect(text).toMatch(/inference_run_seconds_count\{model="tiny-ctc",device="cpu"\} [1-8]/);
    expect(text).toMatch(/inference_model_loads_total\{model="tiny-ctc",device="cpu"\} 1/);
    expect(text).toMatch(/inference_queue_depth 0/);
  });

  it('close() finishes accepted work, then refuses new work and ends its workers', async () => {
    const pool = await startPool({ workers: 2, maxBatchSize: 2 });
    pool.register(poolSpecFor(ctc));
    const accepted = Array.from({ length: 10 }, (_, i) => pool.run('tiny-ctc', inputFor(ctc, noise(16000, i + 1))));
    const closing = pool.close();
    await expect(pool.run('tiny-ctc', inputFor(ctc, noise(8000)))).rejects.toBeInstanceOf(InferenceClosedError);
    const settled = await Promise.allSettled(accepted);
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);
    await closing;
    const slots = (pool as unknown as { slots: Array<{ host: { thread: { threadId: number } } }> }).slots;
    expect(slots.every((s) => s.host.thread.threadId === -1)).toBe(true); // threadId is -1 once a worker has exited
    await pool.close(); // idempotent
  });
});
