// Frame-energy VAD with an adaptive (minimum-statistics) noise floor, on its own.
import { nativeAddon, type EnergyVadNativeOptions, type SampleArray } from '../../runtime/native-addon.js';
import { NativeHandle } from '../../runtime/native-handle.js';

export type EnergyVadOptions = EnergyVadNativeOptions;

export class EnergyVad extends NativeHandle {
  readonly #stats = new Float64Array(2);
  readonly frameSamples: number;

  constructor(options: EnergyVadOptions = {}) {
    const addon = nativeAddon();
    super(addon.energyVadCreate(options), addon.energyVadClose);
    this.frameSamples = options.frameSamples ?? 320;
  }

  /**
   * Feeds samples; writes one speech probability per completed frame into probabilities
   * (length >= floor(samples.length / frameSamples) + 1) and returns the frame count.
   */
  process(samples: SampleArray, probabilities: Float32Array): number {
    return nativeAddon().energyVadProcess(this.handle, samples, probabilities);
  }

  get noiseFloorDbfs(): number {
    nativeAddon().energyVadStats(this.handle, this.#stats);
    return this.#stats[0]!;
  }

  get lastEnergyDbfs(): number {
    nativeAddon().energyVadStats(this.handle, this.#stats);
    return this.#stats[1]!;
  }

  reset(): void {
    nativeAddon().energyVadReset(this.handle);
  }
}
