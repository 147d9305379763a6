/**
 * A speaker-embedding ONNX model of the WeSpeaker / 3D-Speaker kind, as published for sherpa-onnx
 * (test/fixtures/speaker-embedding/tiny-wespeaker.onnx: input `feats` [N, T, 80], output `embs`
 * [N, 16], the metadata sherpa-onnx reads; random weights, made by
 * training/speakers/export_tiny_wespeaker_style.py), embedded by the gateway (its Kaldi fbank,
 * src/engines/signal/features/kaldi-fbank.ts, and onnxruntime-node) and by sherpa-onnx-node 1.13.8
 * (kaldi-native-fbank and its own onnxruntime; test/helpers/sherpa-speaker-embedding.ts) on the same
 * audio. Asserted: the same embedding within 1e-4 absolute
 * (float32 fbank against our float64 one; measured about 2e-7), and a model without the metadata is
 * refused naming the file.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SpeakerEmbeddingModel } from '../../src/engines/diarization/speaker-embedding-model.js';
import { sherpaSpeakerEmbeddings } from '../helpers/sherpa-speaker-embedding.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { readPcm16Wav } from '../native/audio-helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL = join(ROOT, 'test/fixtures/speaker-embedding/tiny-wespeaker.onnx');
const CLIPS = ['alffa_spk_heldout-tr_10778_tr02101.wav', 'alffa_spk_heldout-tr_10827_tr09101.wav'].map((c) => join(ROOT, 'test/fixtures/heldout', c));

const scratch = useScratchDir('spk-emb-');

describe('speaker embedding ONNX (WeSpeaker / 3D-Speaker kind)', () => {
  it('gives the embedding sherpa-onnx gives for the same audio', async () => {
    const clips = await Promise.all(CLIPS.map(async (c) => readPcm16Wav(await readFile(c)).samples));
    // A short stretch too (one second: 100 frames), and a clip's end that is not a whole frame.
    const inputs = [...clips, clips[0]!.subarray(0, 16000), clips[1]!.subarray(0, 12345)];
    const reference = await sherpaSpeakerEmbeddings(MODEL, inputs, scratch('audio.json'));
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
    const bare = scratch('bare.onnx');
    const bytes = await readFile(MODEL);
    // The fixture's metadata entries are appended at its end; cut them off.
    const cut = bytes.indexOf(Buffer.from('framework'));
    await writeFile(bare, bytes.subarray(0, cut - 4));
    await expect(SpeakerEmbeddingModel.open(bare)).rejects.toThrow(`speaker embedding model ${bare}: metadata framework null is not wespeaker or 3d-speaker`);
    await expect(SpeakerEmbeddingModel.open(scratch('none.onnx'))).rejects.toThrow(/none.onnx: the file is missing/);
    const copy = scratch('copy.onnx');
    await copyFile(MODEL, copy);
    await expect(SpeakerEmbeddingModel.open(copy)).resolves.toBeInstanceOf(SpeakerEmbeddingModel);
  });
});
