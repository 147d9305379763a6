/**
 * Inference worker thread: owns onnxruntime sessions (one per model, opened on first use or
 * on `load`) and runs batches the pool sends. onnxruntime-node's `run` blocks the thread it
 * runs on, which is why it lives here and not on the event loop.
 *
 * Buffers: a batch's input arrives transferred (this thread owns it until the run ends and
 * drops it afterwards); the output Float32Array onnxruntime returns is transferred back, so
 * neither direction copies.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { InputPreparer } from '../models/model-input.js';
import type { ExecutionDevice, FromWorker, LoadReport, PoolModelSpec, ToWorker, WorkerSettings } from './inference-protocol.js';

const settings = workerData as WorkerSettings;
const port = parentPort!;

interface OpenSession {
  readonly session: ort.InferenceSession;
  readonly report: LoadReport;
}

const sessions = new Map<string, Promise<OpenSession>>();
/** One preparer per model (it holds the FFT tables and filterbank); used by this thread only. */
const preparers = new Map<string, InputPreparer>();

interface Feed {
  readonly input: Float32Array;
  readonly dims: readonly number[];
  readonly lengths: BigInt64Array | null;
}

/**
 * Turns the batch's PCM rows ([rows, samples], valid lengths in `lengths`) into the model's
 * input ([rows, frames(, n)]), each row prepared on its own valid samples and zero-padded to
 * the longest row. A plain waveform input is the PCM batch itself and goes through as sent.
 */
function prepareBatch(model: PoolModelSpec, message: Extract<ToWorker, { type: 'run' }>): Feed {
  let preparer = preparers.get(model.name);
  if (!preparer) {
    preparer = new InputPreparer(model.prepare);
    preparers.set(model.name, preparer);
  }
  if (model.prepare.kind === 'waveform' && model.prepare.normalize === 'none') return message;
  const [rows, longest] = message.dims;
  const prepared = [];
  for (let row = 0; row < rows; row++) {
    const valid = message.lengths ? Number(message.lengths[row]) : longest;
    prepared.push(preparer.prepare(message.input.subarray(row * longest, row * longest + valid)));
  }
  const width = Math.max(1, preparer.featureDim);
  const steps = Math.max(...prepared.map((p) => p.length));
  const input = new Float32Array(rows * steps * width);
  const lengths = message.lengths ? new BigInt64Array(rows) : null;
  prepared.forEach((p, row) => {
    input.set(p.data.subarray(0, p.length * width), row * steps * width);
    if (lengths) lengths[row] = BigInt(p.length);
  });
  return { input, dims: preparer.featureDim > 0 ? [rows, steps, preparer.featureDim] : [rows, steps], lengths };
}

const post = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

async function createSession(spec: PoolModelSpec): Promise<OpenSession> {
  const started = performance.now();
  const base: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  };
  let fallback: string | null = null;
  let session: ort.InferenceSession | null = null;
  let provider: ExecutionDevice = 'cpu';
  if (settings.device === 'cuda') {
    try {
      session = await ort.InferenceSession.create(spec.onnxPath, {
        ...base,
        executionProviders: [{ name: 'cuda', deviceId: settings.cudaDeviceId }],
      });
      provider = 'cuda';
    } catch (error) {
      fallback = `CUDA execution provider unavailable: ${(error as Error).message.split('\n')[0]}`;
    }
  }
  session ??= await ort.InferenceSession.create(spec.onnxPath, { ...base, executionProviders: ['cpu'] });
  const missing = [spec.inputName, spec.lengthsName].filter((n): n is string => n !== null && !session.inputNames.includes(n));
  missing.push(...[spec.outputName, spec.outLengthsName].filter((n): n is string => n !== null && !session.outputNames.includes(n)));
  if (missing.length > 0) {
    await session.release();
    throw new Error(`the ONNX graph has no input/output named ${missing.join(', ')} (inputs: ${session.inputNames.join(', ')}; outputs: ${session.outputNames.join(', ')})`);
  }
  return { session, report: { model: spec.name, provider, fallback, loadMs: performance.now() - started } };
}

/** Opens the model once; a failed open is forgotten so a later request retries. */
function open(spec: PoolModelSpec): { opened: Promise<OpenSession>; fresh: boolean } {
  const existing = sessions.get(spec.name);
  if (existing) return { opened: existing, fresh: false };
  const opened = createSession(spec);
  sessions.set(spec.name, opened);
  opened.catch(() => sessions.delete(spec.name));
  return { opened, fresh: true };
}

async function run(message: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const { batchId, model } = message;
  let load: LoadReport | null = null;
  try {
    const { opened, fresh } = open(model);
    const { session, report } = await opened;
    if (fresh) load = report;
    const feed = prepareBatch(model, message);
    const feeds: Record<string, ort.Tensor> = { [model.inputName]: new ort.Tensor('float32', feed.input, [...feed.dims]) };
    if (model.lengthsName !== null && feed.lengths !== null) {
      feeds[model.lengthsName] = new ort.Tensor('int64', feed.lengths, [feed.lengths.length]);
    }
    const fetches = model.outLengthsName !== null ? [model.outputName, model.outLengthsName] : [model.outputName];
    const started = performance.now();
    const results = await session.run(feeds, fetches);
    const runMs = performance.now() - started;
    const logits = results[model.outputName]!;
    if (logits.type !== 'float32') throw new Error(`output ${model.outputName} is ${logits.type}, expected float32`);
    let output = logits.data as Float32Array;
    // Transfer needs a buffer of its own; copy only if onnxruntime handed out a view.
    if (output.byteOffset !== 0 || output.byteLength !== output.buffer.byteLength) output = output.slice();
    let outLengths: number[] | null = null;
    if (model.outLengthsName !== null) {
      const lengths = results[model.outLengthsName]!;
      outLengths = Array.from(lengths.data as BigInt64Array, (v) => Number(v));
    }
    const reply: FromWorker = { type: 'result', batchId, output, outputDims: [...logits.dims], outLengths, runMs, load };
    try {
      post(reply, [output.buffer as ArrayBuffer]);
    } catch {
      // A buffer the runtime does not let go of (external memory): send a copy instead.
      const copy = output.slice();
      post({ ...reply, output: copy }, [copy.buffer as ArrayBuffer]);
    }
  } catch (error) {
    post({ type: 'failed', batchId, message: (error as Error).message, load });
  }
}

async function close(): Promise<void> {
  const open = [...sessions.values()];
  sessions.clear();
  for (const pending of open) {
    try {
      await (await pending).session.release();
    } catch {
      // a session that failed to open has nothing to release
    }
  }
  post({ type: 'closed' });
  port.close();
}

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'load':
      open(message.model).opened.then(
        ({ report }) => post({ type: 'loaded', ...report }),
        (error: Error) => post({ type: 'load-failed', model: message.model.name, message: error.message }),
      );
      break;
    case 'run':
      void run(message);
      break;
    case 'close':
      void close();
      break;
  }
});

post({ type: 'ready' });
