/**
 * `npm run models -- import <export-dir> --name NAME --lang L [--models-dir DIR | --in-place]
 *  [--variant fp32|q8|fp16|...] [--target-lang amh] [--frame-stride N] [--description TEXT]`:
 * a wav2vec2-style CTC export as transformers.js / Optimum publish it (onnx/model.onnx or
 * model.onnx and its variants, vocab.json, preprocessor_config.json, config.json; rules:
 * src/engines/asr/models/ctc-import.ts) becomes a model folder: copied into DIR/NAME, or with
 * `--in-place` our manifest.json and vocab.txt are written beside the downloaded files, which stay
 * as published (put the folder inside the models directory). The caller then runs the `check` of
 * models-cli on it; on failure what the import wrote is removed.
 */
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { CtcImportError, pickCtcOnnxFile, planCtcImport, type OnnxTensorInfo } from '../../engines/asr/asr.js';
import { OnnxTranslationEngine, planTranslationImport, TranslationImportError } from '../../engines/translation/translation.js';

export interface ImportRequest {
  readonly source: string;
  readonly name: string;
  readonly language: string;
  readonly modelsDir: string;
  readonly frameStrideSamples?: number;
  readonly description?: string;
  /** ONNX variant (transformers.js dtype name): fp32 (default), q8 (model_quantized.onnx), fp16 ... */
  readonly variant?: string;
  /** Language key of an MMS per-language vocab.json (default: target_lang of tokenizer_config.json). */
  readonly targetLanguage?: string;
  /** Write the manifest into the export folder instead of copying it. */
  readonly inPlace?: boolean;
}

/** What an import wrote: the model folder, and the files to remove if its check fails. */
export interface ImportResult {
  readonly dir: string;
  readonly notes: string[];
  /** Paths the import created (the whole folder when copied; manifest.json and vocab.txt in place). */
  readonly created: readonly string[];
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Files of the folder and of its onnx/ subfolder, as relative paths. */
async function exportFiles(source: string): Promise<string[]> {
  let top: string[];
  try {
    top = await readdir(source);
  } catch {
    throw new CtcImportError(`${source} is not a readable folder`);
  }
  const nested = top.includes('onnx') ? (await readdir(join(source, 'onnx')).catch(() => [] as string[])).map((f) => `onnx/${f}`) : [];
  return [...top, ...nested];
}

async function readJson(path: string, required: boolean): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    if (required) throw new CtcImportError(`${path} is missing`);
    return null;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CtcImportError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

function tensorInfo(meta: readonly ort.InferenceSession.ValueMetadata[]): OnnxTensorInfo[] {
  return meta.map((m) => (m.isTensor ? { name: m.name, type: m.type, rank: m.shape.length } : { name: m.name, type: 'non-tensor', rank: -1 }));
}

/** Writes the model folder; returns its path and the planner's notes. */
export async function importCtcExport(request: ImportRequest): Promise<ImportResult> {
  const files = await exportFiles(request.source);
  const onnxFile = pickCtcOnnxFile(files, request.variant ?? 'fp32');
  const onnxPath = join(request.source, onnxFile);
  const vocab = await readJson(join(request.source, 'vocab.json'), true);
  const preprocessor = await readJson(join(request.source, 'preprocessor_config.json'), false);
  const config = await readJson(join(request.source, 'config.json'), false);
  const tokenizerConfig = (await readJson(join(request.source, 'tokenizer_config.json'), false)) as Record<string, unknown> | null;
  const tokenizerTarget = typeof tokenizerConfig?.target_lang === 'string' ? tokenizerConfig.target_lang : undefined;
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(onnxPath, { intraOpNumThreads: 1, logSeverityLevel: 3 });
  } catch (error) {
    throw new CtcImportError(`${onnxFile} does not load: ${(error as Error).message}`);
  }
  const inputs = tensorInfo(session.inputMetadata);
  const outputs = tensorInfo(session.outputMetadata);
  await session.release();
  const plan = planCtcImport(vocab, preprocessor, inputs, outputs, {
    name: request.name,
    language: request.language,
    description: request.description,
    frameStrideSamples: request.frameStrideSamples,
    config,
    targetLanguage: request.targetLanguage ?? tokenizerTarget,
    onnxFile: request.inPlace ? onnxFile : basename(onnxFile),
  });
  if (request.inPlace) {
    const dir = request.source;
    const manifestPath = join(dir, 'manifest.json');
    const vocabPath = join(dir, 'vocab.txt');
    for (const path of [manifestPath, vocabPath]) if (await exists(path)) throw new CtcImportError(`${path} exists already`);
    await writeFile(vocabPath, plan.vocabText);
    await writeFile(manifestPath, `${JSON.stringify(plan.manifest, null, 2)}\n`);
    return { dir, notes: plan.notes, created: [manifestPath, vocabPath] };
  }
  const dir = join(request.modelsDir, request.name);
  if (await exists(dir)) throw new CtcImportError(`${dir} exists already`);
  await mkdir(dir, { recursive: true });
  try {
    // The ONNX file plus any external-data files that large exports write beside it (model.onnx_data ...).
    const onnxDir = dirname(onnxPath);
    const onnxName = basename(onnxFile);
    for (const file of await readdir(onnxDir))
      if (file === onnxName || file.startsWith(`${onnxName}_data`)) await copyFile(join(onnxDir, file), join(dir, file));
    await writeFile(join(dir, 'vocab.txt'), plan.vocabText);
    await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(plan.manifest, null, 2)}\n`);
    await writeFile(
      join(dir, 'README.md'),
      `# ${request.name}\n\nImported with \`npm run models -- import\` from a wav2vec2-style CTC export (${plan.manifest.description as string}).\n\n` +
        `Fill in: the checkpoint's source, licence and attribution, the data it was trained on, and its measured accuracy on your speech.\n\n` +
        (plan.notes.length ? `Import notes:\n${plan.notes.map((n) => `- ${n}`).join('\n')}\n` : ''),
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, notes: plan.notes, created: [dir] };
}

/**
 * `npm run models -- import-translation <folder> --name NAME [--variant q8]`: writes our
 * manifest.json into a translation model folder downloaded in the transformers.js / Optimum layout
 * (rules: src/engines/translation/translation-import.ts), then opens it with the gateway's engine
 * and translates one sentence per direction; on failure the manifest is removed again. The
 * folder goes under MODELS_DIR and TRANSLATION_MODEL names it.
 */
export async function importTranslationExport(request: {
  readonly source: string;
  readonly name: string;
  readonly variant?: string;
}): Promise<{ dir: string; notes: string[]; manifest: Record<string, unknown>; checks: Array<{ direction: string; output: string }> }> {
  const files = await exportFiles(request.source);
  const read = async (file: string): Promise<unknown> => {
    try {
      return await readJson(join(request.source, file), false);
    } catch (error) {
      throw new TranslationImportError((error as Error).message);
    }
  };
  const plan = planTranslationImport(
    {
      files,
      config: await read('config.json'),
      generationConfig: await read('generation_config.json'),
      tokenizerJson: await read('tokenizer.json'),
      vocab: files.includes('vocab.json') ? await read('vocab.json') : null,
    },
    { name: request.name, variant: request.variant },
  );
  const manifestPath = join(request.source, 'manifest.json');
  if (await exists(manifestPath)) throw new TranslationImportError(`${manifestPath} exists already`);
  await writeFile(manifestPath, `${JSON.stringify(plan.manifest, null, 2)}\n`);
  const checks: Array<{ direction: string; output: string }> = [];
  try {
    const engine = await OnnxTranslationEngine.open(request.source, { intraOpThreads: 1, workerNice: null });
    try {
      const [first, second] = engine.languages;
      for (const [from, to] of [
        [first!, second!],
        [second!, first!],
      ] as const)
        checks.push({ direction: `${from}-${to}`, output: await engine.translate(from === 'en' ? 'Good morning.' : 'ሰላም ነው።', from, to) });
    } finally {
      await engine.close();
    }
  } catch (error) {
    await rm(manifestPath, { force: true });
    throw new TranslationImportError(`the folder does not load with the manifest planned for it: ${(error as Error).message}`);
  }
  return { dir: request.source, notes: plan.notes, manifest: plan.manifest, checks };
}
