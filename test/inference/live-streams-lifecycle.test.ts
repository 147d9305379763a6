// A live stream's lifetime in the worker's registry (LiveStreams, live-streams.ts), on the shipped
// model's step graph: a close that arrives while a (re)started stream waits for its decoder ends
// the stream after that step, and a stream not closed stays for the next step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtcGreedyDecoder } from '../../src/engines/asr/decoding/ctc-greedy-decoder.js';
import type { CtcDecoder } from '../../src/engines/asr/decoding/ctc-types.js';
import { LiveStreams, type StreamStepRequest } from '../../src/engines/asr/inference/live-streams.js';
import { StreamingEncoder } from '../../src/engines/asr/inference/streaming-encoder.js';
import { type LoadedCtcModel, loadModelFolder } from '../../src/engines/asr/models/model-loader.js';
import { pcm16ToFloat, REPO_ROOT, speechAmPcm } from '../helpers/fixtures.js';

let model: LoadedCtcModel;
let encoder: StreamingEncoder;
let pcm: Float32Array;

beforeAll(async () => {
  const loaded = await loadModelFolder(`${REPO_ROOT}/models/small-am-v2`);
  if (loaded.kind !== 'ctc' || !loaded.streaming || loaded.manifest.input.kind !== 'log_mel') throw new Error('small-am-v2 has no streaming step graph');
  model = loaded;
  encoder = await StreamingEncoder.open(loaded.streaming.onnxPath, 1);
  pcm = pcm16ToFloat(speechAmPcm()).subarray(0, 16_000);
}, 60_000);

afterAll(() => encoder.release());

/** Live streams whose decoder arrives when the test says so. */
function streamsWithLateDecoder(): { streams: LiveStreams; deliver: () => void } {
  const { streaming, manifest, vocabulary } = model;
  if (!streaming || manifest.input.kind !== 'log_mel') throw new Error('unreachable');
  let deliver!: () => void;
  const decoder = new Promise<CtcDecoder>((resolve) => {
    deliver = () => resolve(new CtcGreedyDecoder(vocabulary));
  });
  const streams = new LiveStreams({ encoder, input: manifest.input, statistics: streaming.statistics, vocabulary, decoderFor: () => decoder });
  return { streams, deliver };
}

const request = (restart: boolean, audio: Float32Array): StreamStepRequest => ({ streamId: 7, pcm: audio, restart, keyterms: null, finish: false });

describe('live streams in the worker', () => {
  it('a close while the stream waits for its decoder ends it after that step', async () => {
    const { streams, deliver } = streamsWithLateDecoder();
    const step = streams.step([request(true, pcm.subarray(0, 8000))]);
    streams.close([7]);
    deliver();
    const [answer] = await step;
    expect(answer).toMatchObject({ streamId: 7, ok: true });
    expect(streams.size).toBe(0);
    const [after] = await streams.step([request(false, pcm.subarray(8000))]);
    expect(after).toMatchObject({ streamId: 7, ok: false, lost: true });
  });

  it('a stream not closed is kept for its next step', async () => {
    const { streams, deliver } = streamsWithLateDecoder();
    const step = streams.step([request(true, pcm.subarray(0, 8000))]);
    deliver();
    await step;
    expect(streams.size).toBe(1);
    const [after] = await streams.step([request(false, pcm.subarray(8000))]);
    expect(after).toMatchObject({ streamId: 7, ok: true });
    streams.close([7]);
    expect(streams.size).toBe(0);
  });
});
