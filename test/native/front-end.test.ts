import { describe, expect, it } from 'vitest';
import { Endpointer } from '../../src/engines/signal/live/endpointer.js';
import { EnergyVad } from '../../src/engines/signal/live/energy-vad.js';
import { NativeStatus, describeNativeStatus } from '../../src/engines/runtime/native-status.js';
import { StreamFrontEnd } from '../../src/engines/signal/live/stream-front-end.js';
import { expectSpeechFixtureTurns, fixture, pcm16Bytes, randomSplits, snrDb, speechFixture, tones } from './audio-helpers.js';

function wavBytes(rate: number, channels: number, frames: Float32Array[], tag = 1, bits = 16): Buffer {
  const n = frames[0]!.length;
  const bytesPer = bits / 8;
  const data = Buffer.alloc(n * channels * bytesPer);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < channels; c++) {
      const v = frames[c]![i]!;
      const at = (i * channels + c) * bytesPer;
      if (bits === 16) data.writeInt16LE(Math.round(v * 32767), at);
      else data.writeUInt8(Math.round(v * 127) + 128, at);
    }
  }
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(tag, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * channels * bytesPer, 28);
  h.writeUInt16LE(channels * bytesPer, 32);
  h.writeUInt16LE(bits, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

describe('StreamFrontEnd', () => {
  it('pcm_s16le: odd byte splits are lossless', () => {
    const speech = speechFixture();
    const fe = new StreamFrontEnd({ format: 'pcm_s16le', energyVad: false });
    for (const piece of randomSplits(pcm16Bytes(speech), 9, 999)) fe.push(piece);
    const out = new Int16Array(fe.buffered);
    expect(fe.read(out)).toBe(speech.length);
    expect(out.every((v, i) => v === Math.round(speech[i]! * 32768))).toBe(true);
    fe.close();
  });

  it('wav: the speech fixture as a stream equals its samples; 44.1 kHz stereo is resampled and down-mixed', () => {
    const speech = speechFixture();
    const fe = new StreamFrontEnd({ format: 'wav', energyVad: false });
    for (const piece of randomSplits(fixture('speech-16k.wav'), 4, 777)) expect(fe.push(piece)).toBe(0);
    const out = new Float32Array(fe.buffered);
    fe.read(out);
    expect(snrDb(speech, out)).toBeGreaterThan(90);

    const left = tones([500, 2500], 44100, 44100, 0.6);
    const right = tones([500, 2500], 44100, 44100, 0.6);
    expect(fe.setFormat('wav')).toBe(0);
    for (const piece of randomSplits(wavBytes(44100, 2, [left, right]), 5, 2000)) expect(fe.push(piece)).toBe(0);
    fe.flush();
    const y = new Float32Array(fe.buffered);
    fe.read(y);
    expect(y.length).toBe(16000);
    expect(snrDb(tones([500, 2500], 16000, 16000, 0.6), y, 300, 15700)).toBeGreaterThan(60);
    fe.close();
  });

  it('wav: non-PCM is rejected with a clear status', () => {
    const fe = new StreamFrontEnd({ format: 'wav' });
    const mulaw = wavBytes(8000, 1, [new Float32Array(100)], 7, 8);
    const status = fe.push(mulaw);
    expect(status).toBe(NativeStatus.WavNotPcm);
    expect(fe.rejectedWavFormatTag).toBe(7);
    expect(describeNativeStatus(status).message).toMatch(/not PCM/);
    fe.close();
  });

  it('reports BufferFull at the hard limit and keeps what was accepted', () => {
    const fe = new StreamFrontEnd({ format: 'pcm_s16le', maxBufferBytes: 32000, energyVad: false });
    const second = pcm16Bytes(new Float32Array(16000).fill(0.25));
    expect(fe.push(second.subarray(0, 20000))).toBe(NativeStatus.Ok);
    expect(fe.push(second.subarray(0, 20000))).toBe(NativeStatus.BufferFull);
    expect(describeNativeStatus(NativeStatus.BufferFull).kind).toBe('buffer_full');
    expect(fe.buffered).toBe(16000);
    expect(fe.bufferedBytes).toBe(32000);
    expect(fe.droppedLast).toBe(4000);
    fe.discardUntil(fe.readPosition + 8000);
    expect(fe.push(second.subarray(0, 2000))).toBe(NativeStatus.Ok);
    fe.close();
  });

  it('energy VAD endpointing finds the two utterances of the speech fixture (any split, any format)', () => {
    const speech = speechFixture();
    for (const format of ['pcm_s16le', 'webm_opus'] as const) {
      const fe = new StreamFrontEnd({ format, endpointing: { minSilenceMs: 500, prePadMs: 200, postPadMs: 300 } });
      const bytes = format === 'pcm_s16le' ? pcm16Bytes(speech) : fixture('speech-48k-opus.webm');
      for (const piece of randomSplits(bytes, 11, 1200)) expect(fe.push(piece)).toBe(0);
      fe.flush();
      const ev = fe.takeEvents();
      fe.close();
      expectSpeechFixtureTurns(ev, 0.7, 3.3);
      expect(ev[3]!.turnStart).toBe(ev[2]!.position);
    }
  });

  it('peek extracts a turn by absolute position; clear resets the turn', () => {
    const speech = speechFixture();
    const fe = new StreamFrontEnd({ format: 'pcm_s16le' });
    fe.push(pcm16Bytes(speech));
    const [start, end] = fe.takeEvents();
    expect(start?.type).toBe('speech_start');
    expect(end?.type).toBe('speech_end');
    const turn = new Float32Array(end!.position - end!.turnStart);
    expect(fe.peek(end!.turnStart, turn)).toBe(turn.length);
    expect(snrDb(speech.subarray(end!.turnStart, end!.position), turn)).toBeGreaterThan(90);
    fe.clear();
    expect(fe.buffered).toBe(0);
    expect(fe.writePosition).toBe(speech.length);
    fe.close();
  });

  it('rejects invalid options', () => {
    expect(() => new StreamFrontEnd({ format: 'pcm_s16le', endpointing: { minSilenceMs: 1 } })).toThrow(RangeError);
    expect(() => new StreamFrontEnd({ format: 'pcm_s16le', vad: { thresholdDb: -3 } })).toThrow(RangeError);
  });
});

describe('EnergyVad and Endpointer handles', () => {
  it('run separately with the same result as the front end', () => {
    const speech = speechFixture();
    const vad = new EnergyVad();
    const probs = new Float32Array(Math.floor(speech.length / 320) + 1);
    const frames = vad.process(speech, probs);
    expect(frames).toBe(Math.floor(speech.length / 320));
    expect(vad.noiseFloorDbfs).toBeLessThan(-40);
    const ep = new Endpointer({ hopSamples: 320 });
    const events = ep.process(probs.subarray(0, frames));
    ep.flush(events);
    const fe = new StreamFrontEnd({ format: 'pcm_s16le' });
    fe.push(pcm16Bytes(speech));
    fe.flush();
    expect(fe.takeEvents()).toEqual(events);
    for (const h of [vad, ep, fe]) h.close();
  });
});
