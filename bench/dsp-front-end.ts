/**
 * DSP front-end benchmark (decode, resample, energy VAD, ring buffer), one run, one core.
 *
 * Every case drives STREAMS independent instances round-robin, one 20 ms message per stream
 * per round (so per-stream state competes for cache as it would on a busy server), and
 * reports CPU microseconds (process user + system time) per 20 ms of audio per stream. Cases, measured interleaved REPEATS
 * times (median reported):
 *   - each native part alone, through its own handle: WebM demuxer, libopus decode at 16 and
 *     48 kHz (browser packets are decoded per stream visit in the groups one browser message
 *     carries, as the front end meets them; one packet per visit is shown too, it is slower
 *     because every decode then starts with another stream's cold decoder state),
 *     48->16 kHz polyphase resampler, energy VAD, ring buffer;
 *   WebM input is the committed recording from Chromium's MediaRecorder, replayed in the
 *   chunks the browser delivered;
 *   - the native StreamFrontEnd for webm_opus (libopus decoding at 16 kHz, the default, and at
 *     48 kHz + resampler), pcm_s16le_48k and opus_raw_16k;
 *   - the same work in plain JavaScript (bench/dsp-js-reference.ts; Opus via @discordjs/opus).
 * Ratios printed: front end / sum of its parts alone (target <= 1.25), real-time streams per
 * core (20 ms / cost; target >= 900), and JavaScript / native.
 *
 *   nice -n 10 npx tsx bench/dsp-front-end.ts [streams=200] [secondsPerCase=1] [repeats=5]
 * Writes bench/results/dsp-front-end.json.
 */
import opus from '@discordjs/opus';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { EnergyVad } from '../src/engines/signal/live/energy-vad.js';
import { nativeAddon } from '../src/engines/runtime/native-addon.js';
import { OpusFrameDecoder } from '../src/engines/signal/live/opus-frame-decoder.js';
import { Resampler } from '../src/engines/signal/live/resampler.js';
import { RingBuffer } from '../src/engines/signal/live/ring-buffer.js';
import { StreamFrontEnd, type StreamFrontEndOptions } from '../src/engines/signal/live/stream-front-end.js';
import { WebmDemuxer } from '../src/engines/signal/live/webm-demuxer.js';
import { fixturePath, nativeSpeech16k } from '../test/helpers/fixtures.js';
import { writeBenchResults } from './bench-results.js';
import { JsDecimator, JsEnergyVad, JsRingBuffer } from './dsp-js-reference.js';

// @discordjs/opus is CommonJS: take the class from its default export.
const { OpusEncoder } = opus;

const STREAMS = Number(process.argv[2] ?? 200);
const SECONDS_PER_CASE = Number(process.argv[3] ?? 1);
const REPEATS = Number(process.argv[4] ?? 5);
const FRAME_US = 20_000;

// Fixtures come from test/helpers/fixtures.ts (this file runs from bench/ under tsx or from
// dist/bench/ compiled).
const fixtures = fixturePath('native');

// ------------------------------------------------------------------ inputs
const readSpeech = nativeSpeech16k;

function int16Bytes(x: Float32Array): Buffer {
  const b = Buffer.alloc(x.length * 2);
  for (let i = 0; i < x.length; i++) b.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(x[i]! * 32768))), 2 * i);
  return b;
}

const speech16 = readSpeech();
const up = new Resampler(16000, 48000);
const speech48 = new Float32Array(up.maxOutput(speech16.length) + up.info.flushMaxOutput);
let n48 = up.process(speech16, speech48);
n48 += up.flush(speech48.subarray(n48));
up.close();
const pcm48 = int16Bytes(speech48.subarray(0, n48));
const pcm16 = int16Bytes(speech16);

// 20 ms messages of 48 kHz PCM and 20 ms Opus packets (48 kHz and 16 kHz encoders).
const pcm48Messages: Buffer[] = [];
for (let at = 0; at + 1920 <= pcm48.length; at += 1920) pcm48Messages.push(pcm48.subarray(at, at + 1920));
const opus48Packets: Buffer[] = [];
const enc48 = new OpusEncoder(48000, 1);
enc48.setBitrate(32000);
for (const m of pcm48Messages) opus48Packets.push(enc48.encode(m));
const opus16Packets: Buffer[] = [];
const enc16 = new OpusEncoder(16000, 1);
enc16.setBitrate(32000);
for (let at = 0; at + 640 <= pcm16.length; at += 640) opus16Packets.push(enc16.encode(pcm16.subarray(at, at + 640)));

// The WebM that Chromium's MediaRecorder produced for the same speech (128 kbit/s stereo CELT,
// 60 ms packets), cut into the chunks the browser delivered (100 ms timeslice).
const webm = readFileSync(join(fixtures, 'mediarecorder-chromium.webm'));
const chunkBytes = (
  JSON.parse(readFileSync(join(fixtures, 'mediarecorder-chromium.chunks.json'), 'utf8')) as {
    chunkBytes: number[];
  }
).chunkBytes;
const webmMessages: Uint8Array[] = [];
const webmMessageFrames: number[] = []; // 20 ms frames of audio each message carries
const webmPackets: Uint8Array[] = [];
const webmPacketFrames: number[] = [];
const webmMessagePackets: Uint8Array[][] = []; // the packets each message completes
{
  const probe = new OpusFrameDecoder(48000);
  const demux = new WebmDemuxer();
  let at = 0;
  for (const size of chunkBytes) {
    const chunk = webm.subarray(at, at + size);
    at += size;
    webmMessages.push(chunk);
    let frames = 0;
    const packets = demux.push(chunk).frames;
    for (const packet of packets) {
      const f = probe.packetSamples(packet) / 960;
      webmPackets.push(packet);
      webmPacketFrames.push(f);
      frames += f;
    }
    webmMessageFrames.push(frames);
    webmMessagePackets.push(packets);
  }
  demux.close();
  probe.close();
}

// ------------------------------------------------------------------ harness
interface Case {
  name: string;
  /** Runs one round (one message per stream); returns 20 ms frames of audio produced. */
  round(): number;
  close(): void;
}

/**
 * CPU time (user + system of this process) per 20 ms frame per stream, in µs. CPU time
 * rather than wall time: the machine is shared, and time spent descheduled is not ours.
 */
function time(c: Case): number {
  for (let i = 0; i < 20; i++) c.round(); // warm-up
  let frames = 0;
  const startWall = process.hrtime.bigint();
  const start = process.cpuUsage();
  const budget = BigInt(Math.round(SECONDS_PER_CASE * 1e9));
  while (process.hrtime.bigint() - startWall < budget) {
    for (let i = 0; i < 10; i++) frames += c.round();
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / frames;
}

const streams = Array.from({ length: STREAMS }, (_, i) => i);
const offset = (i: number, m: number) => (i * 37) % m;

/**
 * A case that visits every stream once per round, each stream at its own place among `count`
 * inputs (staggered by offset()): step(i, at) handles stream i's input `at` and returns the
 * 20 ms frames it produced (nothing: one). `every50` runs after every 50th round (the server
 * consuming the buffered audio, so that storage does not grow). The case's close() closes `owned`.
 */
function cyclingCase(
  name: string,
  count: number,
  step: (i: number, at: number) => number | void,
  owned: readonly { close(): void }[] = [],
  every50?: () => void,
): Case {
  const cursor = streams.map((i) => offset(i, count));
  let rounds = 0;
  return {
    name,
    round() {
      let frames = 0;
      for (const i of streams) {
        frames += step(i, cursor[i]!) ?? 1;
        cursor[i] = (cursor[i]! + 1) % count;
      }
      if (every50 && ++rounds % 50 === 0) every50();
      return frames;
    },
    close: () => owned.forEach((o) => o.close()),
  };
}

// ------------------------------------------------------------------ native parts alone
function demuxCase(): Case {
  const ds = streams.map(() => new WebmDemuxer());
  const cursor = streams.map(() => 0);
  const bytes = new Uint8Array(70000);
  const lengths = new Int32Array(256);
  return {
    name: 'native webm demux',
    round() {
      let frames = 0;
      for (const i of streams) {
        if (cursor[i] === webmMessages.length) {
          ds[i]!.reset();
          cursor[i] = 0;
        }
        ds[i]!.pushInto(webmMessages[cursor[i]!]!, bytes, lengths);
        frames += webmMessageFrames[cursor[i]!]!;
        cursor[i]!++;
      }
      return frames;
    },
    close: () => ds.forEach((d) => d.close()),
  };
}

/**
 * Decodes, per stream visit, one unit of packets: a single packet, or the packets one browser
 * message carries (as the front end does). `unitFrames`: 20 ms frames per unit (default one).
 */
function opusCase(name: string, rate: 16000 | 48000, units: Uint8Array[][], unitFrames?: number[]): Case {
  const ds = streams.map(() => new OpusFrameDecoder(rate));
  const out = new Float32Array(ds[0]!.maxFrameSamples);
  return cyclingCase(
    name,
    units.length,
    (i, at) => {
      for (const packet of units[at]!) ds[i]!.decodeInto(packet, out);
      return unitFrames ? unitFrames[at]! : 1;
    },
    ds,
  );
}

const one = (packets: Uint8Array[]): Uint8Array[][] => packets.map((p) => [p]);

const speech48f = speech48.subarray(0, n48);
const frames48: Float32Array[] = [];
for (let at = 0; at + 960 <= speech48f.length; at += 960) frames48.push(speech48f.slice(at, at + 960));
const frames16: Float32Array[] = [];
for (let at = 0; at + 320 <= speech16.length; at += 320) frames16.push(speech16.slice(at, at + 320));

function resampleCase(): Case {
  const rs = streams.map(() => new Resampler(48000, 16000));
  const out = new Float32Array(rs[0]!.maxOutput(960));
  return cyclingCase('native resample 48->16k', frames48.length, (i, at) => void rs[i]!.process(frames48[at]!, out), rs);
}

function vadCase(): Case {
  const vs = streams.map(() => new EnergyVad());
  const probs = new Float32Array(4);
  return cyclingCase('native energy VAD', frames16.length, (i, at) => void vs[i]!.process(frames16[at]!, probs), vs);
}

function ringCase(): Case {
  const rs = streams.map(() => new RingBuffer(25_000_000, 32_000));
  return cyclingCase(
    'native ring buffer write',
    frames16.length,
    (i, at) => void rs[i]!.write(frames16[at]!),
    rs,
    // The server consumes audio (here once a second), so storage does not grow.
    () => {
      for (const r of rs) r.discardUntil(Number.MAX_SAFE_INTEGER);
    },
  );
}

// ------------------------------------------------------------------ native front end
function frontEndCase(name: string, options: StreamFrontEndOptions, messages: Uint8Array[], restart: boolean): Case {
  const fes = streams.map(() => new StreamFrontEnd({ ...options, initialBufferSeconds: 2 }));
  if (restart) {
    // A WebM stream must start at its header: push each stream's first messages now so that
    // streams are at different places in the audio (decoders fed identical packets in
    // lockstep run ~30% faster than real, different streams would).
    for (const i of streams) {
      for (let k = 0; k < offset(i, messages.length); k++) fes[i]!.push(messages[k]!);
      fes[i]!.discardUntil(fes[i]!.writePosition);
      fes[i]!.takeEvents();
    }
  }
  return cyclingCase(
    name,
    messages.length,
    (i, at) => {
      const fe = fes[i]!;
      // Back at the first message: a new WebM stream starts with its header.
      if (restart && at === 0 && fe.writePosition > 0) fe.setFormat(options.format);
      fe.push(messages[at]!);
      if (fe.pendingEvents > 0) fe.takeEvents();
      return fe.appendedLast / 320;
    },
    fes,
    () => {
      for (const fe of fes) fe.discardUntil(fe.writePosition);
    },
  );
}

// ------------------------------------------------------------------ plain JavaScript
/**
 * The plain-JavaScript chain per stream: decode(i, at, input) puts the message's 48 kHz samples
 * into input and returns their count; then 48 -> 16 kHz, the energy VAD and the ring buffer.
 */
function jsChainCase(name: string, count: number, decode: (i: number, at: number, input: Float32Array) => number): Case {
  const state = streams.map(() => ({
    dec: new JsDecimator(48000, 16000),
    vad: new JsEnergyVad(),
    ring: new JsRingBuffer(25_000_000 / 50),
  }));
  const input = new Float32Array(5760);
  const out = new Float32Array(2000);
  const probs = new Float32Array(8);
  return cyclingCase(
    name,
    count,
    (i, at) => {
      const s = state[i]!;
      const n = decode(i, at, input);
      const m = s.dec.process(input.subarray(0, n), out);
      s.vad.process(out.subarray(0, m), probs);
      s.ring.writeFloat(out, m);
    },
    [],
    () => {
      for (const s of state) s.ring.discardAll();
    },
  );
}

/** 16-bit little-endian PCM into float samples; returns the count. */
function int16ToFloat(pcm: Buffer, into: Float32Array): number {
  const n = pcm.length >> 1;
  for (let k = 0; k < n; k++) into[k] = pcm.readInt16LE(2 * k) / 32768;
  return n;
}

function jsPcm48Case(): Case {
  return jsChainCase('JS pcm_s16le_48k (convert, resample, VAD, ring)', pcm48Messages.length, (_, at, input) => int16ToFloat(pcm48Messages[at]!, input));
}

function jsOpusCase(): Case {
  const decoders = streams.map(() => new OpusEncoder(48000, 1));
  return jsChainCase('JS opus@48k (@discordjs/opus decode, resample, VAD, ring)', opus48Packets.length, (i, at, input) =>
    int16ToFloat(decoders[i]!.decode(opus48Packets[at]!), input),
  );
}

function jsPartCase(name: string, make: () => (i: number, frame: number) => void, count: number): Case {
  return cyclingCase(name, count, make());
}

// ------------------------------------------------------------------ run
const cases: Case[] = [
  demuxCase(),
  opusCase('native opus decode @16k (browser packets, one per visit)', 16000, one(webmPackets), webmPacketFrames),
  opusCase('native opus decode @16k (browser packets)', 16000, webmMessagePackets, webmMessageFrames),
  opusCase('native opus decode @48k (browser packets)', 48000, webmMessagePackets, webmMessageFrames),
  opusCase('native opus decode @16k (16 kHz packets)', 16000, one(opus16Packets)),
  opusCase('native opus decode @48k (32 kbit/s mono packets)', 48000, one(opus48Packets)),
  resampleCase(),
  vadCase(),
  ringCase(),
  frontEndCase('front end webm_opus (decode @16k)', { format: 'webm_opus', webmDecodeRate: 16000 }, webmMessages, true),
  frontEndCase('front end webm_opus (decode @48k + resample)', { format: 'webm_opus', webmDecodeRate: 48000 }, webmMessages, true),
  frontEndCase('front end pcm_s16le_48k', { format: 'pcm_s16le_48k' }, pcm48Messages, false),
  frontEndCase('front end opus_raw_16k', { format: 'opus_raw_16k' }, opus16Packets, false),
  jsPcm48Case(),
  jsOpusCase(),
  jsPartCase(
    'JS @discordjs/opus decode @48k',
    () => {
      const decs = streams.map(() => new OpusEncoder(48000, 1));
      return (i, f) => void decs[i]!.decode(opus48Packets[f]!);
    },
    opus48Packets.length,
  ),
  jsPartCase(
    'JS resample 48->16k',
    () => {
      const decs = streams.map(() => new JsDecimator(48000, 16000));
      const out = new Float32Array(400);
      return (i, f) => void decs[i]!.process(frames48[f]!, out);
    },
    frames48.length,
  ),
  jsPartCase(
    'JS energy VAD',
    () => {
      const vads = streams.map(() => new JsEnergyVad());
      const probs = new Float32Array(4);
      return (i, f) => void vads[i]!.process(frames16[f]!, probs);
    },
    frames16.length,
  ),
];

const samples = new Map<string, number[]>();
for (let r = 0; r < REPEATS; r++) {
  for (const c of cases) {
    const us = time(c);
    samples.set(c.name, [...(samples.get(c.name) ?? []), us]);
  }
  process.stderr.write(`repeat ${r + 1}/${REPEATS} done\n`);
}
for (const c of cases) c.close();

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const us = (name: string) => median(samples.get(name)!);

const partsWebm16 = us('native webm demux') + us('native opus decode @16k (browser packets)') + us('native energy VAD') + us('native ring buffer write');
const partsWebm48 =
  us('native webm demux') +
  us('native opus decode @48k (browser packets)') +
  us('native resample 48->16k') +
  us('native energy VAD') +
  us('native ring buffer write');
const partsPcm48 = us('native resample 48->16k') + us('native energy VAD') + us('native ring buffer write');
const partsRaw = us('native opus decode @16k (16 kHz packets)') + us('native energy VAD') + us('native ring buffer write');

const pipelines = [
  { name: 'webm_opus, decode @16k (default)', fe: us('front end webm_opus (decode @16k)'), parts: partsWebm16 },
  { name: 'webm_opus, decode @48k + resample', fe: us('front end webm_opus (decode @48k + resample)'), parts: partsWebm48 },
  { name: 'pcm_s16le_48k', fe: us('front end pcm_s16le_48k'), parts: partsPcm48 },
  { name: 'opus_raw_16k', fe: us('front end opus_raw_16k'), parts: partsRaw },
].map((p) => ({
  ...p,
  ratioToParts: p.fe / p.parts,
  streamsPerCore: FRAME_US / p.fe,
}));

const jsVsNative = [
  {
    name: 'pcm_s16le_48k chain',
    js: us('JS pcm_s16le_48k (convert, resample, VAD, ring)'),
    native: us('front end pcm_s16le_48k'),
  },
  {
    name: 'Opus 48k chain: JS decode+resample+VAD+ring',
    js: us('JS opus@48k (@discordjs/opus decode, resample, VAD, ring)'),
    native: us('native opus decode @48k (32 kbit/s mono packets)') + us('native resample 48->16k') + us('native energy VAD') + us('native ring buffer write'),
  },
  { name: 'resample 48->16k', js: us('JS resample 48->16k'), native: us('native resample 48->16k') },
  { name: 'energy VAD', js: us('JS energy VAD'), native: us('native energy VAD') },
  {
    name: 'Opus decode @48k (same packets)',
    js: us('JS @discordjs/opus decode @48k'),
    native: us('native opus decode @48k (32 kbit/s mono packets)'),
  },
].map((c) => ({ ...c, ratio: c.js / c.native }));

const fmt = (x: number) => x.toFixed(2).padStart(8);
console.log(`DSP front end, ${STREAMS} streams round-robin, one core, CPU µs per 20 ms of audio per stream (median of ${REPEATS})`);
console.log(`resampler kernel: ${nativeAddon().simdKernel()}; CPU: ${cpus()[0]?.model ?? 'unknown'}`);
for (const c of cases) console.log(`${fmt(us(c.name))} µs  ${c.name}`);
console.log('\npipeline                              front end  sum of parts  ratio  streams/core');
for (const p of pipelines) {
  console.log(`${p.name.padEnd(36)} ${fmt(p.fe)} ${fmt(p.parts)}     ${p.ratioToParts.toFixed(2)}  ${p.streamsPerCore.toFixed(0).padStart(7)}`);
}
console.log('\nplain JavaScript vs native              JS µs   native µs   JS / native');
for (const c of jsVsNative) console.log(`${c.name.padEnd(40)} ${fmt(c.js)} ${fmt(c.native)}   ${c.ratio.toFixed(2)}`);

const results = {
  benchmark: 'dsp-front-end',
  date: new Date().toISOString(),
  streams: STREAMS,
  secondsPerCase: SECONDS_PER_CASE,
  repeats: REPEATS,
  cpu: cpus()[0]?.model ?? 'unknown',
  simdKernel: nativeAddon().simdKernel(),
  node: process.version,
  microsecondsPer20msFrame: Object.fromEntries(cases.map((c) => [c.name, { median: us(c.name), runs: samples.get(c.name) }])),
  pipelines,
  jsVsNative,
  targets: { maxRatioToParts: 1.25, minStreamsPerCore: 900 },
};
writeBenchResults('dsp-front-end', results);
console.log('\nwrote bench/results/dsp-front-end.json');
