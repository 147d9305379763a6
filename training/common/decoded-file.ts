/**
 * A whole audio file as 16 kHz mono samples, decoded by the gateway's own ffmpeg decoder (for the
 * offline data builders: the file is held in memory at once).
 */
import { concatSamples, decodeToPcm, resolveMediaTools } from '../../src/engines/training.js';

/** `ffmpegPath`: the ffmpeg to run (default: the bundled one). */
export async function decodeFile(path: string, ffmpegPath = resolveMediaTools().ffmpeg): Promise<Float32Array> {
  const chunks: Float32Array[] = [];
  for await (const chunk of decodeToPcm(path, { ffmpegPath })) chunks.push(chunk);
  return concatSamples(chunks, Float32Array);
}
