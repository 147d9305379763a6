// Log-mel features of a live stream, computed as its audio arrives (issue 30): each frame once,
// equal to what LogMelExtractor.compute gives for the whole utterance.
// Rules:
// - A frame is emitted once its whole window has arrived: frame t of a centred extractor covers
//   samples [t*hop - n_fft/2, t*hop + n_fft/2), the part before sample 0 being the reflection
//   that `compute` uses. The last frames of an utterance (whose window reaches past its end, and
//   which `compute` fills by reflecting its end) are never emitted: a stream has no end here.
// - Until n_fft/2 + 1 samples have arrived nothing is emitted (the reflection needs them).
// - `finish` ends the stream: it emits the frames `compute` gives past the last complete window
//   (for a centred extractor, the end reflected as `compute` reflects it), so that all frames of
//   a finished stream are exactly `compute`'s.
// - Memory: the samples of the next frame's window, at most n_fft + the newest push, and the
//   last n_fft/2 + 1 samples (the end's reflection).
// - Features are raw (no normalisation): RunningNormalizer normalises them causally.
import { concatSamples } from '../files/pcm-channels.js';
import { LogMelExtractor, type LogMelInput } from './log-mel-features.js';

export class StreamingLogMel {
  private readonly mel: LogMelExtractor;
  /** The (reflect-padded, for a centred extractor) signal from the next frame's first sample on. */
  private pending = new Float32Array(0);
  /** Samples received, before padding. */
  private received = 0;
  /** The last n_fft/2 + 1 samples received (the end's reflection), oldest first. */
  private last = new Float32Array(0);
  /** Frames emitted so far. */
  frames = 0;

  /**
   * `mel`: the frame extractor (`StreamingLogMel.frameExtractor(input)`); the streams of one
   * thread may share one, since `push` uses it only during the call.
   */
  constructor(
    readonly input: LogMelInput,
    mel: LogMelExtractor = StreamingLogMel.frameExtractor(input),
  ) {
    if (mel.params.center || mel.params.normalize !== 'none' || mel.params.nFft !== input.nFft || mel.params.hopLength !== input.hopLength) {
      throw new RangeError("a streaming frame extractor frames without centring or normalisation, with the input's n_fft and hop");
    }
    this.mel = mel;
  }

  /** The extractor of a stream's complete frames: the input's, without centring or normalisation. */
  static frameExtractor(input: LogMelInput): LogMelExtractor {
    return new LogMelExtractor({ ...input, center: false, normalize: 'none' });
  }

  get nMels(): number {
    return this.input.nMels;
  }

  /** Appends `pcm` and returns the frames whose window is now complete, [frames, n_mels] row-major. */
  push(pcm: Float32Array): Float32Array {
    const { nFft, hopLength, center } = this.input;
    const pad = center ? nFft >> 1 : 0;
    let joined = new Float32Array(this.pending.length + pcm.length);
    joined.set(this.pending);
    joined.set(pcm, this.pending.length);
    const before = this.received;
    this.received += pcm.length;
    this.keepLast(pcm);
    if (pad > 0 && before <= pad) {
      // the reflection needs samples 1..pad: wait until they are here, then prepend it once
      if (this.received <= pad) {
        this.pending = joined;
        return new Float32Array(0);
      }
      const padded = new Float32Array(pad + joined.length);
      for (let i = 0; i < pad; i++) padded[i] = joined[pad - i]!;
      padded.set(joined, pad);
      joined = padded;
    }
    const ready = joined.length >= nFft ? 1 + Math.floor((joined.length - nFft) / hopLength) : 0;
    if (ready === 0) {
      this.pending = joined;
      return new Float32Array(0);
    }
    const features = this.mel.compute(joined.subarray(0, (ready - 1) * hopLength + nFft));
    this.pending = joined.slice(ready * hopLength);
    this.frames += ready;
    return features;
  }

  /** Appends `pcm` and ends the stream: every frame not yet emitted, as `compute` gives the whole signal's last frames. */
  finish(pcm: Float32Array = new Float32Array(0)): Float32Array {
    const head = this.push(pcm);
    const { nFft, hopLength, center, nMels } = this.input;
    const pad = center ? nFft >> 1 : 0;
    // `compute`'s frame count for the whole signal (LogMelExtractor.frameCount)
    const total = center ? 1 + Math.floor(this.received / hopLength) : this.received >= nFft ? 1 + Math.floor((this.received - nFft) / hopLength) : 1;
    const remaining = total - this.frames;
    let tail: Float32Array = new Float32Array(0);
    if (remaining > 0 && this.received > 0) {
      if (center && this.received <= pad) {
        // nothing emitted yet (the start's reflection never had its samples): the whole signal at once, as `compute` reads it
        tail = new LogMelExtractor({ ...this.input, normalize: 'none' }).compute(this.pending);
      } else {
        // the end's reflection (`compute` reads sample 2(n-1) - i for i >= n), or zeros without centring
        const end = new Float32Array(this.pending.length + Math.max(pad, nFft));
        end.set(this.pending);
        const n = this.last.length;
        if (center) for (let k = 1; k <= pad; k++) end[this.pending.length + k - 1] = this.last[Math.max(0, n - 1 - k)]!;
        const available = end.length >= nFft ? 1 + Math.floor((end.length - nFft) / hopLength) : 0;
        const frames = Math.min(remaining, available);
        tail = frames > 0 ? this.mel.compute(end.subarray(0, (frames - 1) * hopLength + nFft)) : tail;
      }
    }
    this.frames += tail.length / nMels;
    this.pending = new Float32Array(0);
    return concatSamples([head, tail], Float32Array);
  }

  private keepLast(pcm: Float32Array): void {
    const keep = (this.input.nFft >> 1) + 1;
    const joined = new Float32Array(Math.min(keep, this.last.length + pcm.length));
    const fromPcm = Math.min(pcm.length, joined.length);
    joined.set(this.last.subarray(this.last.length - (joined.length - fromPcm)));
    joined.set(pcm.subarray(pcm.length - fromPcm), joined.length - fromPcm);
    this.last = joined;
  }
}
