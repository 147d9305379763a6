// Loads build/native/Release/gateway_native.node (built by `npm ci` / `npm run build:native`)
// and types its C-like surface. Handles are opaque; the classes in this folder own them.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** An opaque native handle (a type-tagged external); only the addon can use it. */
export type NativeHandleRef = { readonly __nativeHandle: unique symbol };

export type SampleArray = Float32Array | Int16Array;
export type ByteSource = ArrayBuffer | ArrayBufferView;

export interface ResamplerQualityOptions {
  passFraction?: number;
  stopFraction?: number;
  attenuationDb?: number;
}

export interface EnergyVadNativeOptions {
  sampleRate?: number;
  frameSamples?: number;
  thresholdDb?: number;
  slopeDb?: number;
  minEnergyDbfs?: number;
  floorMinDbfs?: number;
  floorWindowSeconds?: number;
}

export interface EndpointerNativeOptions {
  sampleRate?: number;
  hopSamples?: number;
  startThreshold?: number;
  endThreshold?: number;
  minSpeechMs?: number;
  minSilenceMs?: number;
  prePadMs?: number;
  postPadMs?: number;
  maxSpeechMs?: number;
}

export interface FrontEndNativeOptions {
  format: number;
  maxBufferSamples?: number;
  initialBufferSamples?: number;
  webmDecodeRate?: number;
  energyVad?: boolean;
  vad?: EnergyVadNativeOptions;
  endpointer?: EndpointerNativeOptions;
  quality?: ResamplerQualityOptions;
}

export interface ResamplerNativeInfo {
  up: number;
  down: number;
  tapsPerPhase: number;
  delay: number;
  latencyInput: number;
  flushMaxOutput: number;
}

export interface WebmNativeTrack {
  number: number;
  channels: number;
  preSkip: number;
  outputGainQ8: number;
  samplingFrequency: number;
  codecDelayNs: number;
}

export interface NativeAddon {
  version(): string;
  simdKernel(): string;

  ringBufferCreate(initialSamples: number, maxSamples: number): NativeHandleRef;
  ringBufferWrite(h: NativeHandleRef, samples: SampleArray): number;
  ringBufferRead(h: NativeHandleRef, out: SampleArray): number;
  ringBufferPeek(h: NativeHandleRef, position: number, out: SampleArray): number;
  ringBufferDiscardUntil(h: NativeHandleRef, position: number): number;
  ringBufferClear(h: NativeHandleRef): void;
  ringBufferStats(h: NativeHandleRef, out: Float64Array): void;
  ringBufferClose(h: NativeHandleRef): void;

  resamplerCreate(inRate: number, outRate: number, quality?: ResamplerQualityOptions): NativeHandleRef;
  resamplerInfo(h: NativeHandleRef): ResamplerNativeInfo;
  resamplerMaxOutput(h: NativeHandleRef, inputLength: number): number;
  resamplerProcess(h: NativeHandleRef, input: Float32Array, output: Float32Array): number;
  resamplerFlush(h: NativeHandleRef, output: Float32Array): number;
  resamplerReset(h: NativeHandleRef): void;
  resamplerClose(h: NativeHandleRef): void;

  opusDecoderCreate(sampleRate: number): NativeHandleRef;
  opusDecoderDecode(h: NativeHandleRef, packet: ByteSource, out: Float32Array): number;
  opusDecoderPacketSamples(h: NativeHandleRef, packet: ByteSource): number;
  opusDecoderMaxFrameSamples(h: NativeHandleRef): number;
  opusDecoderReset(h: NativeHandleRef): void;
  opusDecoderClose(h: NativeHandleRef): void;

  webmDemuxerCreate(maxBlockBytes?: number): NativeHandleRef;
  webmDemuxerPush(h: NativeHandleRef, chunk: ByteSource, frameBytes: Uint8Array, frameLengths: Int32Array): number;
  webmDemuxerTrack(h: NativeHandleRef): WebmNativeTrack | null;
  webmDemuxerReset(h: NativeHandleRef): void;
  webmDemuxerClose(h: NativeHandleRef): void;

  energyVadCreate(options?: EnergyVadNativeOptions): NativeHandleRef;
  energyVadProcess(h: NativeHandleRef, samples: SampleArray, probabilities: Float32Array): number;
  energyVadStats(h: NativeHandleRef, out: Float64Array): void;
  energyVadReset(h: NativeHandleRef): void;
  energyVadClose(h: NativeHandleRef): void;

  endpointerCreate(options?: EndpointerNativeOptions): NativeHandleRef;
  endpointerProcess(h: NativeHandleRef, probabilities: Float32Array, events: Float64Array): number;
  endpointerFlush(h: NativeHandleRef, events: Float64Array): number;
  endpointerResetAt(h: NativeHandleRef, position: number): void;
  endpointerStats(h: NativeHandleRef, out: Float64Array): void;
  endpointerClose(h: NativeHandleRef): void;

  frontEndCreate(options: FrontEndNativeOptions, state: Float64Array): NativeHandleRef;
  frontEndPush(h: NativeHandleRef, message: ByteSource): number;
  frontEndSetFormat(h: NativeHandleRef, format: number): number;
  frontEndFlush(h: NativeHandleRef): number;
  frontEndClear(h: NativeHandleRef): void;
  frontEndRead(h: NativeHandleRef, out: SampleArray): number;
  frontEndPeek(h: NativeHandleRef, position: number, out: SampleArray): number;
  frontEndDiscardUntil(h: NativeHandleRef, position: number): number;
  frontEndTakeEvents(h: NativeHandleRef, out: Float64Array): number;
  frontEndClose(h: NativeHandleRef): void;

  /** Calling thread: SCHED_BATCH and nice `nice` (0..19) on Linux; see src/engines/runtime/thread-priority.ts. */
  threadSetBackground(nice: number): ThreadPriorityReport;

  /** Throws RangeError for sizes it does not take (an n_fft prime factor above 13, mismatched arrays). */
  logMelCreate(
    nFft: number,
    hopLength: number,
    power: number,
    logFloor: number,
    window: Float64Array,
    bank: Float64Array,
    bankFrom: Int32Array,
    bankTo: Int32Array,
  ): NativeHandleRef;
  /** Writes frames * n_mels log-mel values to `out`; returns the frame count. */
  logMelCompute(h: NativeHandleRef, pcm: Float32Array, center: boolean, out: Float32Array): number;
  logMelClose(h: NativeHandleRef): void;
}

export interface ThreadPriorityReport {
  /** Either change took effect (false off Linux). */
  readonly applied: boolean;
  /** SCHED_BATCH is set: the thread does not preempt others when it wakes. */
  readonly batch: boolean;
  /** The thread's nice value afterwards. */
  readonly nice: number;
}

const ADDON_RELATIVE_PATH = join('build', 'native', 'Release', 'gateway_native.node');

/** The repository root: the nearest folder above this file that holds package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('gateway_native: cannot find the package root');
    dir = parent;
  }
}

let cached: NativeAddon | undefined;

/**
 * The addon, loaded once. GATEWAY_NATIVE_ADDON may point at another build of it (for example
 * a sanitizer build); otherwise it is build/native/Release/gateway_native.node.
 */
export function nativeAddon(): NativeAddon {
  if (cached) return cached;
  const path = process.env.GATEWAY_NATIVE_ADDON ? resolve(process.env.GATEWAY_NATIVE_ADDON) : join(packageRoot(), ADDON_RELATIVE_PATH);
  if (!existsSync(path)) {
    throw new Error(
      `gateway_native addon not found at ${path}: build it with \`npm run build:native\` ` +
        '(it is also built by `npm ci`; it needs cmake and a C++17 compiler).',
    );
  }
  const require = createRequire(import.meta.url);
  cached = require(path) as NativeAddon;
  return cached;
}
