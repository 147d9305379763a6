/**
 * npm run models -- check <dir>   validate one model folder (manifest, files, ONNX inputs and
 *                                 outputs, a batch-2 test decode, and with an `lm` the LM file:
 *                                 load, order, alphabet coverage, a beam + LM decode); prints
 *                                 JSON, exit 1 on failure
 * npm run models -- list [dir]    the models a registry finds in dir (default $MODELS_DIR or models/), defaults as DEFAULT_MODELS sets them
 * npm run models -- import <export-dir> --name NAME --lang L [--models-dir DIR | --in-place] [--variant fp32|q8|fp16|int8|uint8|q4|q4f16|bnb4]
 *                                 [--target-lang amh] [--frame-stride N] [--description TEXT]
 * npm run models -- import-translation <export-dir> --name NAME [--variant fp32|q8|...]
 *                                 write manifest.json into a downloaded NLLB/M2M100 or Marian folder (transformers.js layout)
 *                                 a wav2vec2-style CTC export (model.onnx, vocab.json, preprocessor_config.json)
 *                                 into DIR/NAME (default $MODELS_DIR or models/), then `check`; removed if it fails
 */
import { rm } from 'node:fs/promises';
import * as ort from 'onnxruntime-node';
import { CharNgramLm, CtcBeamDecoder, CtcGreedyDecoder, InputPreparer, loadModelFolder, ModelRegistry, UNK, type LoadedModel } from '../../engines/asr/asr.js';
import { CONFIG_TABLE } from '../../platform/config/config-table.js';
import { parseFlags, runCommand } from './cli-flags.js';
import { importCtcExport, importTranslationExport } from './models-import.js';

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  /** A check with `required: false` only warns: it does not fail the run. */
  readonly required?: false;
}

const round1 = (v: number): number => Math.round(v * 10) / 10;

const USAGE =
  'usage: npm run models -- check <model-dir> | list [models-dir] | import <export-dir> --name NAME --lang L [--models-dir DIR | --in-place] [--variant fp32|q8|fp16|int8|uint8|q4|q4f16|bnb4] [--target-lang amh] [--frame-stride N] [--description TEXT] | import-translation <export-dir> --name NAME [--variant fp32|q8|...]';

/** Deterministic test audio: 1 s of a voiced-like buzz with noise, and 0.6 s of noise. */
function testAudio(): [Float32Array, Float32Array] {
  let seed = 12345;
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff - 0.5;
  };
  const speechLike = new Float32Array(16000);
  for (let i = 0; i < speechLike.length; i++) {
    const t = i / 16000;
    const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t);
    let v = 0;
    for (let h = 1; h <= 8; h++) v += Math.sin(2 * Math.PI * 120 * h * t) / h;
    speechLike[i] = 0.2 * envelope * v + 0.02 * rand();
  }
  const noise = new Float32Array(9600);
  for (let i = 0; i < noise.length; i++) noise[i] = 0.1 * rand();
  return [speechLike, noise];
}

function shapeOf(session: ort.InferenceSession, name: string, inputs: boolean): readonly (number | string)[] | null {
  const list = inputs ? session.inputMetadata : session.outputMetadata;
  const meta = list.find((m) => m.name === name);
  return meta && meta.isTensor ? meta.shape : null;
}

function typeOf(session: ort.InferenceSession, name: string, inputs: boolean): string | null {
  const list = inputs ? session.inputMetadata : session.outputMetadata;
  const meta = list.find((m) => m.name === name);
  return meta && meta.isTensor ? meta.type : null;
}

async function runBatch(
  session: ort.InferenceSession,
  model: LoadedModel,
  rows: readonly Float32Array[],
): Promise<{ logits: ort.Tensor; outLengths: number[] | null; inputLengths: number[] }> {
  const preparer = new InputPreparer(model.manifest.input);
  const prepared = rows.map((r) => preparer.prepare(r));
  const width = Math.max(1, preparer.featureDim);
  const longest = Math.max(...prepared.map((p) => p.length));
  const data = new Float32Array(rows.length * longest * width);
  prepared.forEach((p, i) => data.set(p.data, i * longest * width));
  const dims = preparer.featureDim > 0 ? [rows.length, longest, preparer.featureDim] : [rows.length, longest];
  const io = model.manifest.io;
  const feeds: Record<string, ort.Tensor> = { [io.audio]: new ort.Tensor('float32', data, dims) };
  if (io.lengths !== null) feeds[io.lengths] = new ort.Tensor('int64', BigInt64Array.from(prepared.map((p) => BigInt(p.length))), [rows.length]);
  const outLengthsName = model.kind === 'ctc' ? model.manifest.io.outLengths : null;
  const results = await session.run(feeds);
  const logits = results[io.logits]!;
  const outLengths = outLengthsName ? Array.from(results[outLengthsName]!.data as BigInt64Array, Number) : null;
  return { logits, outLengths, inputLengths: prepared.map((p) => p.length) };
}

async function check(dir: string): Promise<{ ok: boolean; report: Record<string, unknown> }> {
  const checks: Check[] = [];
  const add = (name: string, ok: boolean, detail: string, required = true): boolean => {
    checks.push({ name, ok, detail, ...(required ? {} : { required: false as const }) });
    return ok;
  };
  let model: LoadedModel;
  try {
    model = await loadModelFolder(dir);
    add('folder', true, 'manifest, ONNX file and vocabulary are present and consistent');
  } catch (error) {
    add('folder', false, (error as Error).message);
    return { ok: false, report: { dir, checks } };
  }
  const report: Record<string, unknown> = { dir: model.dir, name: model.name, kind: model.kind };
  if (model.kind === 'ctc') {
    report.language = model.language;
    report.vocab_size = model.vocabulary.tokens.length;
    report.description = model.manifest.description;
  } else report.labels = model.manifest.labels;

  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(model.onnxPath, { intraOpNumThreads: 1, logSeverityLevel: 3 });
    add('onnx_load', true, `inputs ${session.inputNames.join(', ')}; outputs ${session.outputNames.join(', ')}`);
  } catch (error) {
    add('onnx_load', false, (error as Error).message);
    return { ok: false, report: { ...report, checks } };
  }
  try {
    const io = model.manifest.io;
    const featureDim = model.manifest.input.kind === 'log_mel' ? model.manifest.input.nMels : 0;
    const audioShape = shapeOf(session, io.audio, true);
    const wantRank = featureDim > 0 ? 3 : 2;
    add(
      'input_audio',
      audioShape !== null &&
        audioShape.length === wantRank &&
        typeOf(session, io.audio, true) === 'float32' &&
        (featureDim === 0 || typeof audioShape[2] !== 'number' || audioShape[2] === featureDim),
      `${io.audio}: ${typeOf(session, io.audio, true)} [${audioShape?.join(', ') ?? 'missing'}], expected float32 rank ${wantRank}${featureDim ? ` with ${featureDim} features` : ''}`,
    );
    if (io.lengths !== null) {
      const shape = shapeOf(session, io.lengths, true);
      add(
        'input_lengths',
        shape !== null && shape.length === 1 && typeOf(session, io.lengths, true) === 'int64',
        `${io.lengths}: ${typeOf(session, io.lengths, true)} [${shape?.join(', ') ?? 'missing'}], expected int64 rank 1`,
      );
    }
    const logitsShape = shapeOf(session, io.logits, false);
    const classes = model.kind === 'ctc' ? model.vocabulary.tokens.length : model.manifest.labels.length;
    const wantOutRank = model.kind === 'ctc' ? 3 : 2;
    const last = logitsShape?.[logitsShape.length - 1];
    add(
      'output_logits',
      logitsShape !== null && logitsShape.length === wantOutRank && (typeof last !== 'number' || last === classes),
      `${io.logits}: [${logitsShape?.join(', ') ?? 'missing'}], expected rank ${wantOutRank} ending in ${classes}`,
    );
    if (model.kind === 'ctc' && model.manifest.io.outLengths !== null) {
      const name = model.manifest.io.outLengths;
      const shape = shapeOf(session, name, false);
      add(
        'output_lengths',
        shape !== null && shape.length === 1 && typeOf(session, name, false) === 'int64',
        `${name}: ${typeOf(session, name, false)} [${shape?.join(', ') ?? 'missing'}], expected int64 rank 1`,
      );
    }
    if (checks.some((c) => !c.ok)) return { ok: false, report: { ...report, checks } };

    const rows = testAudio();
    const batch = await runBatch(session, model, rows);
    const dims = batch.logits.dims;
    const values = batch.logits.data as Float32Array;
    add(
      'run_batch_2',
      dims.length === wantOutRank && dims[0] === 2 && dims[dims.length - 1] === classes,
      `logits [${dims.join(', ')}] for a batch of 1.0 s and 0.6 s`,
    );
    add('finite_output', values.every(Number.isFinite), 'every logit is finite');

    if (model.kind === 'ctc') {
      const stride = model.manifest.frameStrideSamples;
      const frames = dims[1]!;
      const expected = Math.ceil(16000 / stride);
      add(
        'frame_stride',
        Math.abs(frames - expected) <= Math.max(2, expected * 0.1),
        `${frames} frames for 1 s; frame_stride_samples ${stride} predicts ${expected}`,
      );
      if (batch.outLengths) {
        add(
          'out_lengths',
          batch.outLengths[0] === frames && batch.outLengths[1]! < frames,
          `out_lengths [${batch.outLengths.join(', ')}] for padded frames ${frames}`,
        );
      }
      const decoder = new CtcGreedyDecoder(model.vocabulary);
      const vocab = classes;
      const decodes = rows.map((_, i) => {
        const valid = batch.outLengths?.[i] ?? Math.ceil(rows[i]!.length / stride);
        const row = values.subarray(i * frames * vocab, i * frames * vocab + Math.min(valid, frames) * vocab);
        const hyp = decoder.decode({ data: row, frames: Math.min(valid, frames), vocabSize: vocab });
        return { seconds: rows[i]!.length / 16000, frames: Math.min(valid, frames), text: hyp.text, confidence: Math.round(hyp.confidence * 1e4) / 1e4 };
      });
      report.test_decode = decodes;
      add('test_decode', true, 'greedy decode of both rows (synthetic audio: the text carries no meaning)');
      if (model.manifest.lm && model.lmPath) {
        try {
          const started = performance.now();
          const lm = await CharNgramLm.load(model.lmPath);
          const loadMs = performance.now() - started;
          report.lm = {
            file: model.manifest.lm.file,
            order: lm.order,
            symbols: lm.symbols,
            counts: lm.counts(),
            bytes: lm.byteLength,
            load_ms: round1(loadMs),
          };
          add('lm_load', true, `${model.manifest.lm.file}: ${lm.order}-gram, ${lm.symbols} symbols, ${lm.byteLength} bytes, loaded in ${round1(loadMs)} ms`);
          add('lm_order', lm.order === model.manifest.lm.order, `header order ${lm.order}, manifest lm.order ${model.manifest.lm.order}`);
          const covered = model.vocabulary.tokens.filter(
            (t, id) => id !== model.manifest.blankId && t !== model.manifest.wordDelimiter && [...t].every((ch) => lm.symbol(ch) !== UNK),
          ).length;
          const total = model.vocabulary.tokens.length - 1 - (model.manifest.wordDelimiter !== null ? 1 : 0);
          add(
            'lm_vocabulary',
            covered > 0,
            `${covered} of ${total} output tokens are in the LM's alphabet (the rest cost <unk>)`,
            covered === total ? true : false,
          );
          const beam = new CtcBeamDecoder(model.vocabulary, {
            beamWidth: model.manifest.decoding.beamWidth,
            lm: { model: lm, alpha: model.manifest.lm.alpha, beta: model.manifest.lm.beta },
          });
          report.beam_decode = rows.map((_, i) => {
            const valid = Math.min(batch.outLengths?.[i] ?? Math.ceil(rows[i]!.length / stride), frames);
            const row = values.subarray(i * frames * vocab, i * frames * vocab + valid * vocab);
            const t0 = performance.now();
            const hyp = beam.decode({ data: row, frames: valid, vocabSize: vocab });
            return {
              seconds: rows[i]!.length / 16000,
              text: hyp.text,
              confidence: Math.round(hyp.confidence * 1e4) / 1e4,
              decode_ms: round1(performance.now() - t0),
            };
          });
          add(
            'beam_lm_decode',
            true,
            `beam ${model.manifest.decoding.beamWidth} + LM decode of both rows (decoding.default ${model.manifest.decoding.default})`,
          );
        } catch (error) {
          add('lm_load', false, (error as Error).message);
        }
      }
      // Padding invariance: row 1 alone must match its padded copy in the batch.
      const single = await runBatch(session, model, [rows[1]!]);
      const singleValues = single.logits.data as Float32Array;
      const validFrames = Math.min(single.logits.dims[1]!, batch.outLengths?.[1] ?? Math.ceil(rows[1]!.length / stride));
      let worst = 0;
      for (let t = 0; t < validFrames; t++) {
        for (let v = 0; v < vocab; v++) worst = Math.max(worst, Math.abs(singleValues[t * vocab + v]! - values[(frames + t) * vocab + v]!));
      }
      add(
        'padding_invariance',
        worst < 1e-3,
        worst < 1e-3
          ? `a padded row gives the same logits as alone (max difference ${worst.toExponential(2)})`
          : `padding changes a row's logits by up to ${worst.toFixed(4)}: batches of unequal lengths will not match single runs (set pool maxBatchSize 1 for exact results)`,
        false,
      );
    }
  } finally {
    await session.release();
  }
  const ok = checks.every((c) => c.ok || c.required === false);
  return { ok, report: { ...report, checks } };
}

/** The defaults the gateway would serve: DEFAULT_MODELS from the environment, parsed as the gateway parses it. */
function environmentDefaults(): ReadonlyMap<string, string> {
  const problems: string[] = [];
  const choices = CONFIG_TABLE.DEFAULT_MODELS.parse('DEFAULT_MODELS', process.env.DEFAULT_MODELS?.trim() || undefined, { problems, cwd: process.cwd() });
  if (problems.length > 0) throw new Error(problems.join('; '));
  return choices;
}

async function list(dir: string): Promise<Record<string, unknown>> {
  const registry = await ModelRegistry.scan(dir);
  registry.chooseDefaults(environmentDefaults());
  const models = registry.all().map((m) => ({
    name: m.name,
    kind: m.kind,
    language: m.kind === 'ctc' ? m.language : null,
    default: registry.isDefault(m),
    dir: m.dir,
    description: m.manifest.description,
  }));
  return {
    dir: registry.dir,
    languages: registry
      .languages()
      .map((language) => ({ language, default: registry.defaultModel(language)!.name, models: registry.modelsFor(language).map((m) => m.name) })),
    language_id: registry.languageIdModel()?.name ?? null,
    models,
    problems: registry.problems(),
  };
}

async function main(argv: string[]): Promise<number> {
  const [command, target] = argv;
  if (command === 'check' && target) {
    const { ok, report } = await check(target);
    process.stdout.write(`${JSON.stringify({ ok, ...report }, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  if (command === 'import' && target) {
    const rest = argv.slice(2);
    const o = parseFlags(rest.filter((a) => a !== '--in-place'));
    const name = o.get('name');
    const language = o.get('lang');
    if (!name || !language) throw new Error(USAGE);
    const stride = o.get('frame-stride');
    const { dir, notes, created } = await importCtcExport({
      source: target,
      name,
      language,
      modelsDir: o.get('models-dir') ?? process.env.MODELS_DIR ?? 'models',
      frameStrideSamples: stride ? Number(stride) : undefined,
      description: o.get('description'),
      variant: o.get('variant'),
      targetLanguage: o.get('target-lang'),
      inPlace: rest.includes('--in-place'),
    });
    const { ok, report } = await check(dir);
    if (!ok) for (const path of created) await rm(path, { recursive: true, force: true });
    process.stdout.write(`${JSON.stringify({ ok, imported: ok ? dir : null, notes, ...report }, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  if (command === 'import-translation' && target) {
    const o = parseFlags(argv.slice(2));
    const name = o.get('name');
    if (!name) throw new Error(USAGE);
    const result = await importTranslationExport({ source: target, name, variant: o.get('variant') });
    process.stdout.write(`${JSON.stringify({ ok: true, ...result }, null, 2)}\n`);
    return 0;
  }
  if (command === 'list') {
    const result = await list(target ?? process.env.MODELS_DIR ?? 'models');
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

runCommand(main, true);
