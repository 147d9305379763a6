/**
 * `npm run models -- import <export-dir> --name NAME --lang L [--models-dir DIR] [--frame-stride N]
 *  [--description TEXT]`: copies a wav2vec2-style CTC export (model.onnx, vocab.json, optional
 * preprocessor_config.json) into DIR/NAME as a model folder (rules: src/engines/asr/models/ctc-import.ts).
 * The caller then runs the `check` of models-cli on it; a folder that fails is removed.
 */
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { CtcImportError, planCtcImport, type OnnxTensorInfo } from '../../engines/asr/asr.js';

export interface ImportRequest {
  readonly source: string;
  readonly name: string;
  readonly language: string;
  readonly modelsDir: string;
  readonly frameStrideSamples?: number;
  readonly description?: string;
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
export async function importCtcExport(request: ImportRequest): Promise<{ dir: string; notes: string[] }> {
  const onnxPath = join(request.source, 'model.onnx');
  const vocab = await readJson(join(request.source, 'vocab.json'), true);
  const preprocessor = await readJson(join(request.source, 'preprocessor_config.json'), false);
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(onnxPath, { intraOpNumThreads: 1, logSeverityLevel: 3 });
  } catch (error) {
    throw new CtcImportError(`model.onnx does not load: ${(error as Error).message}`);
  }
  const inputs = tensorInfo(session.inputMetadata);
  const outputs = tensorInfo(session.outputMetadata);
  await session.release();
  const plan = planCtcImport(vocab, preprocessor, inputs, outputs, {
    name: request.name,
    language: request.language,
    description: request.description,
    frameStrideSamples: request.frameStrideSamples,
  });
  const dir = join(request.modelsDir, request.name);
  if (
    await stat(dir).then(
      () => true,
      () => false,
    )
  )
    throw new CtcImportError(`${dir} exists already`);
  await mkdir(dir, { recursive: true });
  try {
    // model.onnx plus any external-data files that large exports write beside it (model.onnx_data ...).
    for (const file of await readdir(request.source)) if (file.startsWith('model.onnx')) await copyFile(join(request.source, file), join(dir, file));
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
  return { dir, notes: plan.notes };
}
