/**
 * The ONNX graphs of an encoder-decoder translation model (Hugging Face Optimum's seq2seq
 * export layout), run by onnxruntime-node inside the translation worker:
 * - `encoder_model.onnx`: input_ids, attention_mask -> last_hidden_state;
 * - split decoders: `decoder_model.onnx` for the first step (no past) and
 *   `decoder_with_past_model.onnx` for every later step (one token, the self-attention past fed
 *   back; the cross-attention past of the first step is reused as it is);
 * - or `decoder_model_merged.onnx`: one graph with `use_cache_branch` [1] that always takes the
 *   past (zero-length on the first step).
 * Sessions are created from file paths so that external data (`weights.bin`) resolves next to
 * the graphs. Feeds are built from the names each graph declares, so an export that adds or
 * leaves out `encoder_hidden_states` in the with-past decoder loads as well.
 */
import * as ort from 'onnxruntime-node';
import { cpuSessionOptions } from '../runtime/onnx-session-options.js';
import type { TranslationManifest } from './translation-manifest.js';

export interface DecoderPast {
  /** Per layer: self-attention key and value [rows, heads, steps, headDim]. */
  readonly self: ort.Tensor[];
  /** Per layer: cross-attention key and value [rows, heads, sourceLength, headDim]. */
  readonly cross: ort.Tensor[];
}

export interface StepOutput {
  /** Last position's logits, [rows, vocab] row-major. */
  readonly logits: Float32Array;
  readonly vocab: number;
  readonly past: DecoderPast;
}

export interface EncodedBatch {
  readonly rows: number;
  readonly sourceLength: number;
  readonly hidden: ort.Tensor;
  readonly mask: ort.Tensor;
}

export interface SessionSettings {
  readonly intraOpThreads: number;
}

const selfName = (prefix: string, layer: number, kind: 'key' | 'value'): string => `${prefix}.${layer}.decoder.${kind}`;
const crossName = (prefix: string, layer: number, kind: 'key' | 'value'): string => `${prefix}.${layer}.encoder.${kind}`;

/** Rows of a tensor picked by index (beam reordering, beam expansion). */
export function gatherRows(tensor: ort.Tensor, indices: readonly number[]): ort.Tensor {
  const dims = tensor.dims;
  const rowSize = dims.slice(1).reduce((a, b) => a * b, 1);
  if (tensor.type === 'int64') {
    const data = tensor.data as BigInt64Array;
    const out = new BigInt64Array(indices.length * rowSize);
    indices.forEach((row, i) => out.set(data.subarray(row * rowSize, (row + 1) * rowSize), i * rowSize));
    return new ort.Tensor('int64', out, [indices.length, ...dims.slice(1)]);
  }
  const data = tensor.data as Float32Array;
  const out = new Float32Array(indices.length * rowSize);
  indices.forEach((row, i) => out.set(data.subarray(row * rowSize, (row + 1) * rowSize), i * rowSize));
  return new ort.Tensor('float32', out, [indices.length, ...dims.slice(1)]);
}

export class OnnxSeq2Seq {
  private constructor(
    private readonly manifest: TranslationManifest,
    private readonly encoder: ort.InferenceSession,
    private readonly first: ort.InferenceSession,
    private readonly withPast: ort.InferenceSession,
    private readonly merged: boolean,
    readonly layers: number,
  ) {}

  static async open(manifest: TranslationManifest, settings: SessionSettings): Promise<OnnxSeq2Seq> {
    const options: ort.InferenceSession.SessionOptions = { ...cpuSessionOptions(settings), executionProviders: ['cpu'] };
    const encoder = await ort.InferenceSession.create(manifest.onnx.encoder, options);
    const split = manifest.onnx.decoder !== null && manifest.onnx.decoderWithPast !== null;
    const first = await ort.InferenceSession.create(split ? manifest.onnx.decoder! : manifest.onnx.decoderMerged!, options);
    const withPast = split ? await ort.InferenceSession.create(manifest.onnx.decoderWithPast!, options) : first;
    const layers = first.outputNames.filter((n) => /^present\.\d+\.decoder\.key$/.test(n)).length;
    const need = (session: ort.InferenceSession, names: string[], what: string): void => {
      const missing = names.filter((n) => !session.inputNames.includes(n));
      if (missing.length > 0) throw new Error(`${what} has no input ${missing.join(', ')} (inputs: ${session.inputNames.join(', ')})`);
    };
    need(encoder, ['input_ids', 'attention_mask'], 'the encoder');
    need(first, ['input_ids', 'encoder_attention_mask'], 'the decoder');
    if (layers === 0) throw new Error(`the decoder has no present.N.decoder.key outputs (outputs: ${first.outputNames.join(', ')})`);
    if (!split) need(first, ['use_cache_branch'], 'the merged decoder');
    need(withPast, [selfName('past_key_values', 0, 'key')], 'the decoder with past');
    return new OnnxSeq2Seq(manifest, encoder, first, withPast, !split, layers);
  }

  async encode(ids: readonly (readonly number[])[]): Promise<EncodedBatch> {
    const rows = ids.length;
    const sourceLength = Math.max(1, ...ids.map((r) => r.length));
    const input = new BigInt64Array(rows * sourceLength).fill(BigInt(this.manifest.specialIds.pad));
    const mask = new BigInt64Array(rows * sourceLength);
    ids.forEach((row, r) =>
      row.forEach((id, i) => {
        input[r * sourceLength + i] = BigInt(id);
        mask[r * sourceLength + i] = 1n;
      }),
    );
    const maskTensor = new ort.Tensor('int64', mask, [rows, sourceLength]);
    const out = await this.encoder.run({ input_ids: new ort.Tensor('int64', input, [rows, sourceLength]), attention_mask: maskTensor });
    const hidden = out['last_hidden_state'] ?? out[this.encoder.outputNames[0]!]!;
    return { rows, sourceLength, hidden, mask: maskTensor };
  }

  /** The first decoder step over `prefix` ([rows, T]: decoder start, and a forced language token when the model wants one). */
  async start(encoded: EncodedBatch, prefix: readonly (readonly number[])[]): Promise<StepOutput> {
    const rows = prefix.length;
    const steps = prefix[0]!.length;
    const ids = new BigInt64Array(rows * steps);
    prefix.forEach((row, r) => row.forEach((id, i) => (ids[r * steps + i] = BigInt(id))));
    const feeds: Record<string, ort.Tensor> = { input_ids: new ort.Tensor('int64', ids, [rows, steps]) };
    this.addEncoderFeeds(this.first, feeds, encoded);
    if (this.merged) {
      feeds['use_cache_branch'] = new ort.Tensor('bool', new Uint8Array([0]), [1]);
      const { heads, headDim } = this.manifest;
      const empty = (): ort.Tensor => new ort.Tensor('float32', new Float32Array(0), [rows, heads, 0, headDim]);
      for (let layer = 0; layer < this.layers; layer++) {
        for (const kind of ['key', 'value'] as const) {
          feeds[selfName('past_key_values', layer, kind)] = empty();
          feeds[crossName('past_key_values', layer, kind)] = empty();
        }
      }
    }
    const out = await this.first.run(feeds);
    const past: DecoderPast = { self: [], cross: [] };
    for (let layer = 0; layer < this.layers; layer++) {
      for (const kind of ['key', 'value'] as const) {
        past.self.push(out[selfName('present', layer, kind)]!);
        past.cross.push(out[crossName('present', layer, kind)]!);
      }
    }
    return { ...lastLogits(out['logits']!), past };
  }

  /** One more token per row with the past fed back. */
  async step(encoded: EncodedBatch, tokens: readonly number[], past: DecoderPast): Promise<StepOutput> {
    const rows = tokens.length;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor(
        'int64',
        BigInt64Array.from(tokens, (t) => BigInt(t)),
        [rows, 1],
      ),
    };
    this.addEncoderFeeds(this.withPast, feeds, encoded);
    if (this.merged) feeds['use_cache_branch'] = new ort.Tensor('bool', new Uint8Array([1]), [1]);
    for (let layer = 0; layer < this.layers; layer++) {
      (['key', 'value'] as const).forEach((kind, k) => {
        feeds[selfName('past_key_values', layer, kind)] = past.self[layer * 2 + k]!;
        const cross = crossName('past_key_values', layer, kind);
        if (this.withPast.inputNames.includes(cross)) feeds[cross] = past.cross[layer * 2 + k]!;
      });
    }
    const out = await this.withPast.run(feeds);
    const self: ort.Tensor[] = [];
    for (let layer = 0; layer < this.layers; layer++) for (const kind of ['key', 'value'] as const) self.push(out[selfName('present', layer, kind)]!);
    return { ...lastLogits(out['logits']!), past: { self, cross: past.cross } };
  }

  async release(): Promise<void> {
    await this.encoder.release();
    await this.first.release();
    if (this.withPast !== this.first) await this.withPast.release();
  }

  private addEncoderFeeds(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>, encoded: EncodedBatch): void {
    feeds['encoder_attention_mask'] = encoded.mask;
    if (session.inputNames.includes('encoder_hidden_states')) feeds['encoder_hidden_states'] = encoded.hidden;
  }
}

function lastLogits(logits: ort.Tensor): { logits: Float32Array; vocab: number } {
  const [rows, steps, vocab] = logits.dims as [number, number, number];
  const data = logits.data as Float32Array;
  if (steps === 1) return { logits: data, vocab };
  const out = new Float32Array(rows * vocab);
  for (let r = 0; r < rows; r++) out.set(data.subarray((r * steps + steps - 1) * vocab, (r * steps + steps) * vocab), r * vocab);
  return { logits: out, vocab };
}

/** Expands an encoded batch so that every row appears `times` times in a row (beam search). */
export function repeatEncoded(encoded: EncodedBatch, times: number): EncodedBatch {
  if (times === 1) return encoded;
  const indices: number[] = [];
  for (let r = 0; r < encoded.rows; r++) for (let k = 0; k < times; k++) indices.push(r);
  return { rows: indices.length, sourceLength: encoded.sourceLength, hidden: gatherRows(encoded.hidden, indices), mask: gatherRows(encoded.mask, indices) };
}
