/**
 * Inference worker thread: owns onnxruntime sessions (one per model, opened on first use or
 * on `load`) and runs batches the pool sends: input preparation (log-mel features) from the PCM
 * rows, the model run, and for CTC models the decoding of every row (greedy or beam search with
 * the character LM). onnxruntime-node's `run` blocks the thread it runs on, and preparation and
 * decoding are milliseconds per row, which is why all three live here and not on the event loop.
 *
 * Buffers: a batch's input arrives transferred (this thread owns it until the run ends and
 * drops it afterwards); the output Float32Array onnxruntime returns is transferred back, so
 * neither direction copies.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { createDecoder, type RowDecoding } from '../decoding/decoding-plan.js';
import type { CtcDecoder } from '../decoding/ctc-types.js';
import { CharNgramLm } from '../decoding/lm/char-ngram-lm.js';
import { LiveStreams } from './live-streams.js';
import { InputPreparer } from './model-input.js';
import { StreamingEncoder } from './streaming-encoder.js';
import type { DecodedRow, ExecutionDevice, FromWorker, LoadReport, PoolModelSpec, ToWorker, WorkerSettings } from './inference-protocol.js';
import { cpuSessionOptions } from '../../runtime/onnx-session-options.js';

const settings = workerData as WorkerSettings;
const port = parentPort!;

interface OpenSession {
  readonly session: ort.InferenceSession;
  readonly report: LoadReport;
}

const sessions = new Map<string, Promise<OpenSession>>();
/** Specs of the models the pool registered here, by name. */
const specs = new Map<string, PoolModelSpec>();
/** One preparer per model (it holds the FFT tables and filterbank); used by this thread only. */
const preparers = new Map<string, InputPreparer>();
/** One decoder per model, built on its first run; LMs are read once per path. */
const decoders = new Map<string, Promise<CtcDecoder>>();
const languageModels = new Map<string, Promise<CharNgramLm>>();
/** Decoders with keyterms, by model and terms, the most recently used last (a live session reuses its own). */
const keytermDecoders = new Map<string, CtcDecoder>();
const KEYTERM_DECODERS_KEPT = 64;
/** Live streams per model (the step graph opened on the first step; live-streams.ts). */
const liveStreams = new Map<string, Promise<LiveStreams>>();

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
function prepareBatch(model: PoolModelSpec, message: RunRequest): Feed {
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

function decoderFor(spec: PoolModelSpec, decode: RowDecoding): Promise<CtcDecoder> {
  let decoder = decoders.get(spec.name);
  if (!decoder) {
    decoder = buildDecoder(spec.name, decode);
    decoders.set(spec.name, decoder);
  }
  return decoder;
}

/** The model's LM as this worker reads it (once per path); null when the plan has none or it does not load. */
async function languageModel(model: string, decode: RowDecoding): Promise<CharNgramLm | null> {
  const { plan } = decode;
  if (plan.kind !== 'beam' || plan.lm === null) return null;
  let lm = languageModels.get(plan.lm.path);
  if (!lm) {
    lm = CharNgramLm.load(plan.lm.path);
    languageModels.set(plan.lm.path, lm);
  }
  try {
    return await lm;
  } catch (error) {
    // The pool checked this file at startup; if it no longer reads, decode greedily and say so.
    post({ type: 'warning', model, message: `language model not loaded in the inference worker, decoding greedily: ${(error as Error).message}` });
    return null;
  }
}

async function buildDecoder(model: string, decode: RowDecoding): Promise<CtcDecoder> {
  return createDecoder(decode.vocabulary, decode.plan, await languageModel(model, decode));
}

/** A decoder boosting a request's keyterms (decoding-plan.ts createDecoder), kept for the next rows with the same terms. */
async function keytermDecoderFor(spec: PoolModelSpec, decode: RowDecoding, keyterms: readonly string[]): Promise<CtcDecoder> {
  const key = `${spec.name}\u0000${keyterms.join('\u0001')}`;
  let decoder = keytermDecoders.get(key);
  if (decoder) keytermDecoders.delete(key);
  else {
    // The LM load is shared with the model's plain decoder (and its warning said once there).
    await decoderFor(spec, decode);
    const lm = decode.plan.kind === 'beam' && decode.plan.lm !== null ? await languageModels.get(decode.plan.lm.path)!.catch(() => null) : null;
    decoder = createDecoder(decode.vocabulary, decode.plan, lm, keyterms);
    if (keytermDecoders.size >= KEYTERM_DECODERS_KEPT) keytermDecoders.delete(keytermDecoders.keys().next().value!);
  }
  keytermDecoders.set(key, decoder);
  return decoder;
}

/**
 * Decodes every row of a CTC batch output [rows, frames, vocab] over its valid frames: the
 * model's output length when it reports one, else ceil(valid samples / frame stride).
 */
function decodeRows(
  decoderOf: (row: number) => CtcDecoder,
  decode: RowDecoding,
  logits: Float32Array,
  dims: readonly number[],
  outLengths: readonly number[] | null,
  sampleLengths: readonly number[],
): DecodedRow[] {
  const vocabSize = decode.vocabulary.tokens.length;
  const [rows, outFrames, classes] = dims;
  if (dims.length !== 3 || classes !== vocabSize) {
    throw new Error(`logits have shape [${dims.slice(1).join(', ')}] per row; expected [frames, ${vocabSize}]`);
  }
  const decoded: DecodedRow[] = [];
  for (let row = 0; row < rows!; row++) {
    const expected = outLengths?.[row] ?? Math.ceil(sampleLengths[row]! / decode.frameStrideSamples);
    const frames = Math.max(0, Math.min(outFrames!, expected));
    const offset = row * outFrames! * vocabSize;
    const hypothesis = decoderOf(row).decode({ data: logits.subarray(offset, offset + frames * vocabSize), frames, vocabSize });
    decoded.push({ hypothesis, frames });
  }
  return decoded;
}

async function createSession(spec: PoolModelSpec): Promise<OpenSession> {
  const started = performance.now();
  const base = cpuSessionOptions({ intraOpThreads: settings.intraOpThreads });
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
    throw new Error(
      `the ONNX graph has no input/output named ${missing.join(', ')} (inputs: ${session.inputNames.join(', ')}; outputs: ${session.outputNames.join(', ')})`,
    );
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

type RunRequest = Pick<Extract<ToWorker, { type: 'run' }>, 'input' | 'dims' | 'lengths' | 'keyterms'>;

interface Executed {
  readonly output: Float32Array;
  readonly outputDims: number[];
  readonly outLengths: number[] | null;
  readonly decoded: DecodedRow[] | null;
  readonly runMs: number;
  readonly prepareMs: number;
  readonly decodeMs: number;
}

/** Prepares the batch's input, runs the model and decodes the rows (CTC models with `decode`). */
async function execute(model: PoolModelSpec, session: ort.InferenceSession, request: RunRequest): Promise<Executed> {
  const decoder = model.decode ? await decoderFor(model, model.decode) : null;
  const rowDecoders: (CtcDecoder | null)[] = [];
  if (model.decode && request.keyterms) {
    for (const terms of request.keyterms) rowDecoders.push(terms && terms.length > 0 ? await keytermDecoderFor(model, model.decode, terms) : null);
  }
  const prepareStarted = performance.now();
  const feed = prepareBatch(model, request);
  const feeds: Record<string, ort.Tensor> = { [model.inputName]: new ort.Tensor('float32', feed.input, [...feed.dims]) };
  if (model.lengthsName !== null && feed.lengths !== null) {
    feeds[model.lengthsName] = new ort.Tensor('int64', feed.lengths, [feed.lengths.length]);
  }
  const fetches = model.outLengthsName !== null ? [model.outputName, model.outLengthsName] : [model.outputName];
  const started = performance.now();
  const prepareMs = started - prepareStarted;
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
  const decodeStarted = performance.now();
  let decoded: DecodedRow[] | null = null;
  if (decoder && model.decode) {
    const [rows, longest] = request.dims;
    const sampleLengths = Array.from({ length: rows }, (_, row) => (request.lengths ? Number(request.lengths[row]) : longest));
    decoded = decodeRows((row) => rowDecoders[row] ?? decoder, model.decode, output, logits.dims, outLengths, sampleLengths);
  }
  return { output, outputDims: [...logits.dims], outLengths, decoded, runMs, prepareMs, decodeMs: performance.now() - decodeStarted };
}

async function run(message: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const { batchId } = message;
  let load: LoadReport | null = null;
  try {
    const model = specs.get(message.model);
    if (!model) throw new Error(`model ${message.model} was not registered with this worker`);
    const { opened, fresh } = open(model);
    const { session, report } = await opened;
    if (fresh) load = report;
    const executed = await execute(model, session, message);
    const reply: FromWorker = { type: 'result', batchId, ...executed, load };
    try {
      post(reply, [executed.output.buffer as ArrayBuffer]);
    } catch {
      // A buffer the runtime does not let go of (external memory): send a copy instead.
      const copy = executed.output.slice();
      post({ ...reply, output: copy }, [copy.buffer as ArrayBuffer]);
    }
  } catch (error) {
    post({ type: 'failed', batchId, message: (error as Error).message, load });
  }
}

/** Opens the model's step graph and stream registry once; a failed open is forgotten so a later step retries. */
function liveStreamsFor(spec: PoolModelSpec): Promise<LiveStreams> {
  let streams = liveStreams.get(spec.name);
  if (!streams) {
    const { streaming, decode, prepare } = spec;
    if (streaming === null || decode === null || prepare.kind !== 'log_mel') {
      return Promise.reject(new Error(`model ${spec.name} has no streaming step graph`));
    }
    streams = StreamingEncoder.open(streaming.onnxPath, settings.intraOpThreads).then(
      (encoder) =>
        new LiveStreams({
          encoder,
          input: prepare,
          statistics: streaming.statistics,
          vocabulary: decode.vocabulary,
          decoderFor: async (keyterms) => (keyterms && keyterms.length > 0 ? keytermDecoderFor(spec, decode, keyterms) : decoderFor(spec, decode)),
        }),
    );
    liveStreams.set(spec.name, streams);
    streams.catch(() => liveStreams.delete(spec.name));
  }
  return streams;
}

async function runStreamSteps(message: Extract<ToWorker, { type: 'stream-steps' }>): Promise<void> {
  const { batchId } = message;
  try {
    const spec = specs.get(message.model);
    if (!spec) throw new Error(`model ${message.model} was not registered with this worker`);
    const streams = await liveStreamsFor(spec);
    const started = performance.now();
    const times = { featuresMs: 0, modelMs: 0, decodeMs: 0 };
    const results = await streams.step(message.steps, times);
    post({ type: 'stream-result', batchId, results, workerMs: performance.now() - started, times, load: null });
  } catch (error) {
    post({ type: 'failed', batchId, message: (error as Error).message, load: null });
  }
}

async function closeStreams(model: string, streamIds: readonly number[]): Promise<void> {
  const streams = liveStreams.get(model);
  if (streams) (await streams.catch(() => null))?.close(streamIds);
}

/** Warm-up input: two seconds of quiet deterministic noise, run until the hot code is compiled (about 10 runs). */
const WARM_UP_SAMPLES = 32_000;
const WARM_UP_RUNS = 10;

function warmUpNoise(): Float32Array {
  const pcm = new Float32Array(WARM_UP_SAMPLES);
  let state = 12345;
  for (let i = 0; i < pcm.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    pcm[i] = (state / 2 ** 32 - 0.5) * 0.1;
  }
  return pcm;
}

/**
 * Opens the model and runs noise through preparation, model and decoder (noise, unlike silence,
 * makes the beam search try tokens and query the LM), so that the first real requests run
 * compiled code instead of paying tens of ms for it, and a model that cannot run fails at load
 * time, not on a user's audio.
 */
async function load(spec: PoolModelSpec): Promise<LoadReport> {
  const { session, report } = await open(spec).opened;
  try {
    const noise = warmUpNoise();
    const lengths = spec.lengthsName !== null ? BigInt64Array.of(BigInt(WARM_UP_SAMPLES)) : null;
    for (let i = 0; i < WARM_UP_RUNS; i++) await execute(spec, session, { input: noise, dims: [1, WARM_UP_SAMPLES], lengths });
  } catch (error) {
    throw new Error(`warm-up run failed: ${(error as Error).message}`);
  }
  return report;
}

async function close(): Promise<void> {
  const open = [...sessions.values()];
  sessions.clear();
  const streaming = [...liveStreams.values()];
  liveStreams.clear();
  for (const pending of streaming) await (await pending.catch(() => null))?.release();
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
    case 'register':
      specs.set(message.model.name, message.model);
      break;
    case 'load':
      specs.set(message.model.name, message.model);
      load(message.model).then(
        (report) => post({ type: 'loaded', ...report }),
        (error: Error) => post({ type: 'load-failed', model: message.model.name, message: error.message }),
      );
      break;
    case 'run':
      void run(message);
      break;
    case 'stream-steps':
      void runStreamSteps(message);
      break;
    case 'stream-close':
      void closeStreams(message.model, message.streamIds);
      break;
    case 'close':
      void close();
      break;
  }
});

// The thread's priority was lowered before this module loaded (runtime/worker-host.ts).
post({ type: 'ready' });
