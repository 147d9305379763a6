import { describe, expect, it } from 'vitest';
import { CtcImportError, planCtcImport, type OnnxTensorInfo } from './ctc-import.js';
import { parseManifest } from './model-manifest.js';

const vocab = { '<pad>': 0, '<s>': 1, '</s>': 2, '<unk>': 3, '|': 4, ሰ: 5, ላ: 6, ም: 7 };
const inputs: OnnxTensorInfo[] = [{ name: 'input_values', type: 'float32', rank: 2 }];
const outputs: OnnxTensorInfo[] = [{ name: 'logits', type: 'float32', rank: 3 }];
const options = { name: 'w2v-am', language: 'am' };

describe('planCtcImport', () => {
  it('maps a Hugging Face wav2vec2 CTC export to a manifest the gateway parses', () => {
    const plan = planCtcImport(vocab, { do_normalize: true, sampling_rate: 16000 }, inputs, outputs, options);
    expect(plan.vocabText).toBe('<pad>\n<s>\n</s>\n<unk>\n|\nሰ\nላ\nም\n');
    const manifest = parseManifest(plan.manifest);
    expect(manifest).toMatchObject({
      kind: 'ctc',
      name: 'w2v-am',
      language: 'am',
      input: { kind: 'waveform', normalize: 'zero_mean_unit_var' },
      io: { audio: 'input_values', lengths: null, logits: 'logits', outLengths: null },
      frameStrideSamples: 320,
      blankId: 0,
      wordDelimiter: '|',
      output: { script: 'ethiopic', casing: 'none', punctuation: false },
      decoding: { default: 'greedy' },
      maxBatchSize: 1,
    });
  });

  it('keeps batching for an export with a lengths input, and reads casing and punctuation', () => {
    const latin = { '[PAD]': 3, a: 0, B: 1, "'": 2, ' ': 4, '.': 5 };
    const plan = planCtcImport(
      latin,
      null,
      [...inputs, { name: 'lengths', type: 'int64', rank: 1 }],
      [...outputs, { name: 'out_lengths', type: 'int64', rank: 1 }],
      { ...options, frameStrideSamples: 640 },
    );
    const manifest = parseManifest(plan.manifest);
    expect(manifest).toMatchObject({
      io: { lengths: 'lengths', outLengths: 'out_lengths' },
      blankId: 3,
      wordDelimiter: '|',
      frameStrideSamples: 640,
      maxBatchSize: null,
      input: { normalize: 'none' },
    });
    expect(manifest.kind === 'ctc' && manifest.output).toEqual({ script: 'latin', casing: 'true_case', punctuation: true });
    expect(plan.vocabText.split('\n')[4]).toBe('|'); // the space token renamed
  });

  it('refuses what the gateway cannot feed or decode', () => {
    const refuse = (v: unknown, i: OnnxTensorInfo[], p: unknown = null): string => {
      try {
        planCtcImport(v, p, i, outputs, options);
      } catch (error) {
        expect(error).toBeInstanceOf(CtcImportError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refuse(vocab, [...inputs, { name: 'attention_mask', type: 'int64', rank: 2 }])).toMatch(/attention mask/);
    expect(refuse({ a: 0, b: 2 }, inputs)).toMatch(/id 2 of "b" is not in 0..1/);
    expect(refuse({ a: 0, b: 1 }, inputs)).toMatch(/no CTC blank/);
    expect(refuse(vocab, inputs, { sampling_rate: 8000 })).toMatch(/16 kHz/);
    expect(refuse(vocab, [{ name: 'x', type: 'float32', rank: 3 }])).toMatch(/one float32 \[batch, samples\] input/);
    expect(refuse({ '<pad>': 0, 'a b': 1 }, inputs)).toMatch(/whitespace/);
    expect(() => planCtcImport(vocab, null, inputs, outputs, { name: '../x', language: 'am' })).toThrow(CtcImportError);
  });
});
