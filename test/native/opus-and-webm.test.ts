import opus from '@discordjs/opus';
import { describe, expect, it } from 'vitest';
import { NativeStatus, describeNativeStatus } from '../../src/engines/runtime/native-status.js';
import { OpusFrameDecoder } from '../../src/engines/signal/live/opus-frame-decoder.js';
import { StreamFrontEnd } from '../../src/engines/signal/live/stream-front-end.js';
import { WebmDemuxer } from '../../src/engines/signal/live/webm-demuxer.js';
import { fixture, pcm16Bytes, randomSplits, snrDb, speechFixture } from './audio-helpers.js';

// @discordjs/opus is CommonJS: take the class from its default export.
const { OpusEncoder } = opus;

function drain(fe: StreamFrontEnd): Float32Array {
  const out = new Float32Array(fe.buffered);
  fe.read(out);
  return out;
}

describe('opus_raw_16k', () => {
  it('decodes packets from @discordjs/opus like its own decoder does', () => {
    const speech = speechFixture();
    const enc = new OpusEncoder(16000, 1);
    const reference = new OpusEncoder(16000, 1); // its decoder side, for comparison
    const pcm = pcm16Bytes(speech);
    const fe = new StreamFrontEnd({ format: 'opus_raw_16k' });
    const theirs: number[] = [];
    let packets = 0;
    for (let at = 0; at + 640 <= pcm.length; at += 640) {
      const packet = enc.encode(pcm.subarray(at, at + 640));
      expect(fe.push(packet)).toBe(NativeStatus.Ok);
      const dec = reference.decode(packet);
      for (let i = 0; i < dec.length; i += 2) theirs.push(dec.readInt16LE(i) / 32768);
      packets++;
    }
    expect(fe.packetsDecoded).toBe(packets);
    const ours = drain(fe);
    fe.close();
    expect(ours.length).toBe(packets * 320);
    // Same libopus, float vs int16 output: equal up to 16-bit rounding.
    expect(snrDb(Float32Array.from(theirs), ours)).toBeGreaterThan(60);
    // And it is the speech (Opus is not waveform-exact, and delays by its look-ahead).
    let best = -Infinity;
    for (let lag = 0; lag < 400; lag++) {
      best = Math.max(best, snrDb(speech.subarray(0, ours.length - lag), ours.subarray(lag), 1600, ours.length - 2000));
    }
    expect(best).toBeGreaterThan(5);
  });

  it('rejects messages that are not one 20 ms packet, and keeps going', () => {
    const enc = new OpusEncoder(16000, 1);
    const fe = new StreamFrontEnd({ format: 'opus_raw_16k' });
    const packet = enc.encode(Buffer.alloc(640));
    const packet40ms = enc.encode(Buffer.alloc(1280));
    expect(fe.push(packet40ms)).toBe(NativeStatus.OpusFrameDuration);
    expect(fe.push(Uint8Array.of(0x03))).toBe(NativeStatus.OpusFrameDuration); // truncated code-3 packet
    expect(describeNativeStatus(NativeStatus.OpusFrameDuration).kind).toBe('bad_message');
    expect(fe.push(new Uint8Array(0))).toBe(NativeStatus.OpusEmptyPacket);
    expect(fe.push(packet)).toBe(NativeStatus.Ok);
    expect(fe.buffered).toBe(320);
    fe.close();
  });

  it('OpusFrameDecoder alone reports sizes and errors', () => {
    const enc = new OpusEncoder(48000, 2);
    const packet = enc.encode(Buffer.alloc(960 * 4));
    const dec = new OpusFrameDecoder(48000);
    expect(dec.packetSamples(packet)).toBe(960);
    const out = new Float32Array(dec.maxFrameSamples);
    expect(dec.decodeInto(packet, out)).toBe(960);
    expect(dec.decodeInto(new Uint8Array(0), out)).toBe(-NativeStatus.OpusEmptyPacket);
    dec.close();
  });
});

describe('webm_opus', () => {
  const webm = fixture('speech-48k-opus.webm');

  it('demuxes the ffmpeg fixture split at random byte boundaries', () => {
    const whole = new WebmDemuxer();
    const all = whole.push(webm);
    expect(all.status).toBe(0);
    expect(whole.track).toMatchObject({ number: 1, channels: 1, samplingFrequency: 48000 });
    whole.close();
    // 8.83 s in 20 ms packets
    expect(all.frames.length).toBeGreaterThanOrEqual(441);
    for (const seed of [1, 2, 3]) {
      const d = new WebmDemuxer();
      const frames: Uint8Array[] = [];
      for (const piece of randomSplits(webm, seed, 700)) {
        const r = d.push(piece);
        expect(r.status).toBe(0);
        frames.push(...r.frames);
      }
      d.close();
      expect(frames.length).toBe(all.frames.length);
      expect(frames.every((f, i) => Buffer.compare(f, all.frames[i]!) === 0)).toBe(true);
    }
  });

  it('decodes to 16 kHz speech; splits do not change a single sample', () => {
    const speech = speechFixture();
    const decode = (seed: number, webmDecodeRate: 16000 | 48000) => {
      const fe = new StreamFrontEnd({ format: 'webm_opus', webmDecodeRate });
      for (const piece of randomSplits(webm, seed, 1500)) expect(fe.push(piece)).toBe(NativeStatus.Ok);
      expect(fe.flush()).toBe(NativeStatus.Ok);
      const out = drain(fe);
      fe.close();
      return out;
    };
    const a = decode(1, 16000);
    const b = decode(2, 16000);
    expect(Buffer.compare(Buffer.from(a.buffer), Buffer.from(b.buffer))).toBe(0);
    // Pre-skip removed, so the decoded audio lines up with the source.
    expect(Math.abs(a.length - speech.length)).toBeLessThan(400);
    const n = Math.min(a.length, speech.length);
    expect(snrDb(speech, a, 1600, n - 1600)).toBeGreaterThan(6);
    // Decoding at 48 kHz and resampling gives the same audio: libopus's own 16 kHz output sits
    // up to a sample later (SILK's resampler delay), so compare at the best lag.
    const c = decode(3, 48000);
    const n2 = Math.min(a.length, c.length) - 1600;
    let best = -Infinity;
    for (let lag = 0; lag <= 2; lag++) best = Math.max(best, snrDb(a.subarray(lag), c, 1600, n2));
    expect(best).toBeGreaterThan(18);
  });

  it("accepts Chromium MediaRecorder's own chunks (unknown-size clusters, stereo, 60 ms packets)", () => {
    const recorded = fixture('mediarecorder-chromium.webm');
    const { chunkBytes } = JSON.parse(fixture('mediarecorder-chromium.chunks.json').toString('utf8')) as { chunkBytes: number[] };
    const fe = new StreamFrontEnd({ format: 'webm_opus', endpointing: { minSilenceMs: 500 } });
    let at = 0;
    for (const size of chunkBytes) {
      expect(fe.push(recorded.subarray(at, at + size))).toBe(NativeStatus.Ok);
      at += size;
    }
    expect(at).toBe(recorded.length);
    expect(fe.flush()).toBe(NativeStatus.Ok);
    const events = fe.takeEvents();
    const out = drain(fe);
    fe.close();
    const speech = speechFixture();
    // The browser recorded the whole clip (plus the recorder's start-up and tail).
    expect(out.length).toBeGreaterThan(speech.length - 1600);
    // Chromium writes pre-skip 0 and starts recording slightly before playback: find the lag.
    let best = -Infinity;
    for (let lag = 0; lag < 4000; lag += 1) {
      const snr = snrDb(speech.subarray(16000, 48000), out.subarray(16000 + lag, 48000 + lag));
      best = Math.max(best, snr);
    }
    expect(best).toBeGreaterThan(8);
    expect(events.filter((e) => e.type === 'speech_start').length).toBe(2);
  });

  it('rejects non-WebM data clearly and recovers after a format change', () => {
    const fe = new StreamFrontEnd({ format: 'webm_opus' });
    const status = fe.push(fixture('speech-16k.wav').subarray(0, 100));
    expect(status).toBe(NativeStatus.WebmNotWebm);
    expect(describeNativeStatus(status)).toMatchObject({ kind: 'bad_stream', name: 'WebmNotWebm' });
    expect(fe.push(webm.subarray(0, 10))).toBe(NativeStatus.WebmNotWebm); // sticky
    expect(fe.setFormat('webm_opus')).toBe(NativeStatus.Ok);
    expect(fe.push(webm)).toBe(NativeStatus.Ok);
    expect(fe.buffered).toBeGreaterThan(16000 * 8);
    fe.close();
  });
});
