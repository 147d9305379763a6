import { describe, expect, it } from 'vitest';
import { CtcImportError, pickCtcOnnxFile, planCtcImport, type OnnxTensorInfo } from './ctc-import.js';
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

describe('the transformers.js / Optimum hub layout', () => {
  const hubFiles = ['config.json', 'vocab.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx', 'onnx/model_fp16.onnx', 'model.onnx'];

  it('picks the variant as transformers.js names its dtypes, onnx/ first', () => {
    expect(pickCtcOnnxFile(hubFiles)).toBe('onnx/model.onnx');
    expect(pickCtcOnnxFile(hubFiles, 'q8')).toBe('onnx/model_quantized.onnx');
    expect(pickCtcOnnxFile(hubFiles, 'fp16')).toBe('onnx/model_fp16.onnx');
    expect(pickCtcOnnxFile(['model.onnx', 'model_quantized.onnx'], 'q8')).toBe('model_quantized.onnx');
    expect(() => pickCtcOnnxFile(hubFiles, 'q4')).toThrow(
      /looked for onnx\/model_q4.onnx and model_q4.onnx; ONNX files there: onnx\/model.onnx, onnx\/model_quantized.onnx/,
    );
    expect(() => pickCtcOnnxFile(hubFiles, 'int3')).toThrow(/variant "int3" is not one of fp32, fp16, q8/);
    expect(() => pickCtcOnnxFile(['config.json'])).toThrow(/ONNX files there: none/);
  });

  it('takes the blank from pad_token_id and the frame stride from conv_stride, and checks vocab_size', () => {
    const config = { model_type: 'wav2vec2', vocab_size: 8, pad_token_id: 0, conv_stride: [5, 2, 2, 2, 2, 2, 2] };
    const plan = planCtcImport(vocab, null, inputs, outputs, { ...options, config, onnxFile: 'onnx/model.onnx' });
    expect(parseManifest(plan.manifest)).toMatchObject({ onnx: 'onnx/model.onnx', blankId: 0, frameStrideSamples: 320 });
    const halved = planCtcImport(vocab, null, inputs, outputs, { ...options, config: { ...config, conv_stride: [5, 2, 2, 2, 2, 2, 2, 2] } });
    expect(halved.manifest.frame_stride_samples).toBe(640);
    expect(() => planCtcImport(vocab, null, inputs, outputs, { ...options, config: { ...config, vocab_size: 9 } })).toThrow(
      /config.json vocab_size 9 differs from vocab.json's 8 tokens/,
    );
    expect(() => planCtcImport(vocab, null, inputs, outputs, { ...options, config: { ...config, pad_token_id: 8 } })).toThrow(/pad_token_id 8/);
    expect(() => planCtcImport(vocab, null, inputs, outputs, { ...options, config: { ...config, conv_stride: 'x' } })).toThrow(/conv_stride/);
    const other = planCtcImport(vocab, null, inputs, outputs, { ...options, config: { model_type: 'whisper' } });
    expect(other.notes.join(' ')).toMatch(/model_type whisper/);
  });

  it('reads one language of an MMS per-language vocab.json', () => {
    const mms = { amh: vocab, eng: { '<pad>': 0, '|': 1, a: 2 } };
    expect(() => planCtcImport(mms, null, inputs, outputs, options)).toThrow(/MMS per-language vocab.json \(2 languages\): give --target-lang \(amh, eng\)/);
    expect(() => planCtcImport(mms, null, inputs, outputs, { ...options, targetLanguage: 'tir' })).toThrow(/no vocabulary for target language "tir"/);
    const plan = planCtcImport(mms, null, inputs, outputs, { ...options, targetLanguage: 'amh' });
    expect(plan.vocabText).toBe('<pad>\n<s>\n</s>\n<unk>\n|\nሰ\nላ\nም\n');
  });
});
