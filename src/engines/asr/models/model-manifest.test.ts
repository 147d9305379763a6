import { describe, expect, it } from 'vitest';
import { ManifestError, parseManifest } from './model-manifest.js';

const documented = {
  schema_version: 1,
  name: 'small-am-v1',
  language: 'am',
  description: 'Compact conv + GRU CTC model for Amharic',
  onnx: 'model.onnx',
  input: { kind: 'waveform', sample_rate: 16000, normalize: 'none' },
  io: { audio: 'audio', lengths: 'lengths', logits: 'logits', out_lengths: 'out_lengths' },
  frame_stride_samples: 320,
  vocabulary: 'vocab.txt',
  blank_id: 0,
  word_delimiter: '|',
  output: { script: 'ethiopic', casing: 'none', punctuation: true },
  lm: { file: '../lm/am-char-4gram.bin', unit: 'char', order: 4, alpha: 0.6, beta: 0.5 },
  decoding: { default: 'beam', beam_width: 8 },
};

const problemsOf = (json: unknown): readonly string[] => {
  try {
    parseManifest(json);
  } catch (error) {
    if (error instanceof ManifestError) return error.problems;
    throw error;
  }
  return [];
};

describe('parseManifest', () => {
  it('reads the example of docs/model-format.md', () => {
    const m = parseManifest(documented);
    expect(m.kind).toBe('ctc');
    if (m.kind !== 'ctc') return;
    expect(m).toMatchObject({
      name: 'small-am-v1',
      language: 'am',
      frameStrideSamples: 320,
      blankId: 0,
      wordDelimiter: '|',
      io: { audio: 'audio', lengths: 'lengths', logits: 'logits', outLengths: 'out_lengths' },
      lm: { file: '../lm/am-char-4gram.bin', unit: 'char', order: 4, alpha: 0.6, beta: 0.5 },
      decoding: { default: 'beam', beamWidth: 8 },
      output: { casing: 'none', punctuation: true },
      isDefault: null,
      maxBatchSize: null,
    });
    expect(parseManifest({ ...documented, max_batch_size: 1, default: true })).toMatchObject({ maxBatchSize: 1, isDefault: true });
    expect(problemsOf({ ...documented, max_batch_size: 0 })).toEqual(['max_batch_size must be >= 1']);
    expect(m.input).toEqual({ kind: 'waveform', sampleRate: 16000, normalize: 'none' });
  });

  it('reads an optional confidence calibration file in the model folder', () => {
    const m = parseManifest({ ...documented, confidence_calibration: 'confidence-calibration.json' });
    expect(m).toMatchObject({ confidenceCalibration: 'confidence-calibration.json' });
    expect(parseManifest(documented)).toMatchObject({ confidenceCalibration: null });
    expect(problemsOf({ ...documented, confidence_calibration: '../x.json' })).toEqual(['confidence_calibration must be a file name inside the model folder']);
    expect(problemsOf({ ...documented, confidence_calibration: 3 })).toEqual(['confidence_calibration must be a non-empty string or null']);
  });

  it('reads an optional telephone model by name (the registry checks it against the others)', () => {
    expect(parseManifest({ ...documented, telephone_model: 'small-am-v1-telephone' })).toMatchObject({ telephoneModel: 'small-am-v1-telephone' });
    expect(parseManifest(documented)).toMatchObject({ telephoneModel: null });
    expect(problemsOf({ ...documented, telephone_model: '' })).toEqual(['telephone_model must be a non-empty string or null']);
    expect(problemsOf({ ...documented, telephone_model: ['a'] })).toEqual(['telephone_model must be a non-empty string or null']);
  });

  it('accepts an LM in the model folder or in a sibling folder, nothing further out', () => {
    const lm = (file: string) => ({ ...documented, lm: { ...documented.lm, file } });
    expect(problemsOf(lm('lm.bin'))).toEqual([]);
    expect(problemsOf(lm('../lm/am.bin'))).toEqual([]);
    for (const bad of ['../../lm.bin', '/etc/lm.bin', 'sub/lm.bin', '../lm/../../x.bin', '..', '../lm/', '..\\lm\\x.bin']) {
      expect(problemsOf(lm(bad))).toEqual(['lm.file must be a file name in the model folder or ../<folder>/<file> inside the models directory']);
    }
  });

  it('reads log-mel parameters with torchaudio defaults for the optional ones', () => {
    const m = parseManifest({
      ...documented,
      input: { kind: 'log_mel', sample_rate: 16000, n_fft: 400, hop_length: 160, n_mels: 80, mel_scale: 'slaney', normalize: 'per_utterance' },
    });
    expect(m.input).toEqual({
      kind: 'log_mel',
      sampleRate: 16000,
      nFft: 400,
      winLength: 400,
      hopLength: 160,
      nMels: 80,
      fMin: 0,
      fMax: 8000,
      window: 'hann',
      melScale: 'slaney',
      melNorm: 'none',
      center: true,
      power: 2,
      logFloor: 1e-10,
      normalize: 'per_utterance',
    });
  });

  it('lists every problem at once', () => {
    const problems = problemsOf({
      ...documented,
      schema_version: 2,
      name: 'Bad Name',
      language: 'amharic',
      input: { kind: 'log_mel', sample_rate: 8000, hop_length: 160, n_mels: 80 },
      io: { audio: 'audio', logits: 'logits' },
      frame_stride_samples: 0,
      onnx: '../elsewhere.onnx',
      output: { casing: 'upper', punctuation: 'yes' },
      lm: undefined,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'schema_version must be 1',
        expect.stringContaining('name must be'),
        'language must be a 2-3 letter code',
        expect.stringContaining('input.sample_rate must be 16000'),
        'input.n_fft must be a number',
        'io.lengths must be a non-empty string (log_mel input takes frame lengths)',
        'frame_stride_samples must be >= 1',
        'onnx must be a file name inside the model folder',
        'output.casing must be one of none, lower, true_case',
        'output.punctuation must be true or false',
      ]),
    );
  });

  it('lets a waveform CTC model go without a lengths input (one row per batch)', () => {
    const m = parseManifest({ ...documented, io: { audio: 'audio', logits: 'logits' } });
    expect(m.kind === 'ctc' && m.io.lengths).toBeNull();
  });

  it('requires the CTC frame stride to be a whole number of feature hops', () => {
    expect(problemsOf({ ...documented, input: { kind: 'log_mel', n_fft: 400, hop_length: 160, n_mels: 80 }, frame_stride_samples: 400 })).toEqual([
      'frame_stride_samples must be a multiple of input.hop_length',
    ]);
  });

  it('reads a language-id manifest (no vocabulary, labels in output order, lengths optional)', () => {
    const m = parseManifest({
      schema_version: 1,
      kind: 'language_id',
      name: 'lid-v1',
      onnx: 'model.onnx',
      input: { kind: 'waveform', sample_rate: 16000 },
      io: { audio: 'audio', logits: 'logits' },
      labels: ['am', 'om', 'ti'],
    });
    expect(m).toMatchObject({ kind: 'language_id', name: 'lid-v1', labels: ['am', 'om', 'ti'], io: { lengths: null } });
    expect(
      problemsOf({ schema_version: 1, kind: 'language_id', name: 'x', input: { kind: 'waveform' }, io: { audio: 'a', logits: 'l' }, labels: ['am', 'am'] }),
    ).toEqual(['labels must be distinct']);
  });

  it('rejects non-objects and unknown kinds', () => {
    expect(problemsOf([])).toEqual(['manifest must be a JSON object']);
    expect(problemsOf({ ...documented, kind: 'seq2seq' })).toContain('kind must be one of ctc, language_id');
  });
});
