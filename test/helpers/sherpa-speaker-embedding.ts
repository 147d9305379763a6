// sherpa-onnx-node's speaker embedding extractor as the reference for a speaker-embedding ONNX
// (test/diarization/speaker-embedding-*.test.ts). It runs in a child process: sherpa-onnx loads its
// own onnxruntime library, which must not meet onnxruntime-node's in the test's process.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// The extractor on float samples read from a JSON file, one embedding per array.
const SHERPA = `
const sherpa = require('sherpa-onnx-node');
const fs = require('fs');
const [model, input] = process.argv.slice(1);
const extractor = new sherpa.SpeakerEmbeddingExtractor({ model, numThreads: 1, debug: 0 });
const out = JSON.parse(fs.readFileSync(input, 'utf8')).map((samples) => {
  const stream = extractor.createStream();
  stream.acceptWaveform({ samples: Float32Array.from(samples), sampleRate: 16000 });
  stream.inputFinished();
  return Array.from(extractor.compute(stream));
});
process.stdout.write(JSON.stringify({ dim: extractor.dim, out }));
`;

/**
 * The embeddings sherpa-onnx gives `model` for each of `inputs` (16 kHz samples in [-1, 1]), and the
 * dimension it reads from the model; `scratchFile` is where the samples are written for the child.
 */
export async function sherpaSpeakerEmbeddings(
  model: string,
  inputs: readonly ArrayLike<number>[],
  scratchFile: string,
): Promise<{ dim: number; out: number[][] }> {
  await writeFile(scratchFile, JSON.stringify(inputs.map((x) => Array.from(x))));
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', SHERPA, model, scratchFile], { cwd: ROOT, maxBuffer: 1 << 26 });
  return JSON.parse(stdout) as { dim: number; out: number[][] };
}
