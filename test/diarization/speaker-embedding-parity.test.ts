/**
 * A speaker-embedding ONNX model of the WeSpeaker / 3D-Speaker kind, as published for sherpa-onnx
 * (test/fixtures/speaker-embedding/tiny-wespeaker.onnx: input `feats` [N, T, 80], output `embs`
 * [N, 16], the metadata sherpa-onnx reads; random weights, made by
 * training/speakers/export_tiny_wespeaker_style.py), embedded by the gateway (its Kaldi fbank,
 * src/engines/signal/features/kaldi-fbank.ts, and onnxruntime-node) and by sherpa-onnx-node 1.13.8
 * (kaldi-native-fbank and its own onnxruntime) on the same audio. sherpa-onnx runs in a child
 * process: it loads its own onnxruntime library. Asserted: the same embedding within 1e-4 absolute
 * (float32 fbank against our float64 one; measured about 2e-7), and a model without the metadata is
 * refused naming the file.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpeakerEmbeddingModel } from '../../src/engines/diarization/speaker-embedding-model.js';
import { readPcm16Wav } from '../native/audio-helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL = join(ROOT, 'test/fixtures/speaker-embedding/tiny-wespeaker.onnx');
const CLIPS = ['alffa_spk_heldout-tr_10778_tr02101.wav', 'alffa_spk_heldout-tr_10827_tr09101.wav'].map((c) => join(ROOT, 'test/fixtures/heldout', c));

// sherpa-onnx's speaker embedding extractor on float samples read from a JSON file.
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

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spk-emb-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('speaker embedding ONNX (WeSpeaker / 3D-Speaker kind)', () => {
  it('gives the embedding sherpa-onnx gives for the same audio', async () => {
    const clips = await Promise.all(CLIPS.map(async (c) => readPcm16Wav(await readFile(c)).samples));
    // A short stretch too (one second: 100 frames), and a clip's end that is not a whole frame.
    const inputs = [...clips, clips[0]!.subarray(0, 16000), clips[1]!.subarray(0, 12345)];
    const input = join(dir, 'audio.json');
    await writeFile(input, JSON.stringify(inputs.map((x) => Array.from(x))));
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', SHERPA, MODEL, input], { cwd: ROOT, maxBuffer: 1 << 24 });
    const reference = JSON.parse(stdout) as { dim: number; out: number[][] };
    expect(reference.dim).toBe(16);

    const model = await SpeakerEmbeddingModel.open(MODEL);
    try {
      expect(model.contract).toEqual({ framework: 'wespeaker', normalizeSamples: false, globalMean: true, dim: 16 });
      for (const [i, pcm] of inputs.entries()) {
        const ours = await model.embed(pcm);
        expect(ours.length).toBe(16);
        const diff = Math.max(...Array.from(ours, (v, k) => Math.abs(v - reference.out[i]![k]!)));
        expect(diff, `input ${i}`).toBeLessThan(1e-4);
      }
      // Different audio, different embeddings (the comparison is not between constants).
      const a = await model.embed(inputs[0]!);
      const b = await model.embed(inputs[1]!);
      expect(Math.max(...Array.from(a, (v, k) => Math.abs(v - b[k]!)))).toBeGreaterThan(1e-2);
    } finally {
      await model.release();
    }
  }, 60_000);

  it('refuses a model without the metadata, or a missing file, naming the file', async () => {
    const bare = join(dir, 'bare.onnx');
    const bytes = await readFile(MODEL);
    // The fixture's metadata entries are appended at its end; cut them off.
    const cut = bytes.indexOf(Buffer.from('framework'));
    await writeFile(bare, bytes.subarray(0, cut - 4));
    await expect(SpeakerEmbeddingModel.open(bare)).rejects.toThrow(`speaker embedding model ${bare}: metadata framework null is not wespeaker or 3d-speaker`);
    await expect(SpeakerEmbeddingModel.open(join(dir, 'none.onnx'))).rejects.toThrow(/none.onnx: the file is missing/);
    const copy = join(dir, 'copy.onnx');
    await copyFile(MODEL, copy);
    await expect(SpeakerEmbeddingModel.open(copy)).resolves.toBeInstanceOf(SpeakerEmbeddingModel);
  });
});
