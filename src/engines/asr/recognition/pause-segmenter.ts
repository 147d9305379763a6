export interface SegmenterOptions {
  readonly sampleRate?: number;
  /** Analysis frame for the energy measure. Default 10 ms. */
  readonly frameMs?: number;
  /** A run of quiet frames at least this long is a pause. Default 300 ms. */
  readonly minPauseMs?: number;
  /** No cut before a segment is this long (a pause earlier is kept inside it). Default 3 s. */
  readonly minSegmentMs?: number;
  /** Hard bound: without a pause, the segment is cut at its quietest point before this. Default 20 s. */
  readonly maxSegmentMs?: number;
  /** Audio kept on each side of the speech when a segment is trimmed. Default 200 ms. */
  readonly marginMs?: number;
}

/** A piece of the input between two cuts. */
export interface AudioSegment {
  /** Absolute sample index where `samples` starts. */
  readonly startSample: number;
  /** The speech of the piece with `marginMs` around it (fresh array, owned by the receiver); empty when `speech` is false. */
  readonly samples: Float32Array;
  readonly speech: boolean;
  /** The cut boundaries (absolute samples) before trimming; consecutive segments tile the input. */
  readonly spanStart: number;
  readonly spanEnd: number;
}

const MIN_DB = -100;
const HIST_BINS = 101; // 1 dB bins over [-100, 0] dBFS
const HIST_DECAY_EVERY = 100; // frames
const HIST_DECAY = 0.97; // per 100 frames: the level statistics forget with a ~30 s time constant
const MIN_SPEECH_FRAMES = 5;
const ABSOLUTE_QUIET_DB = -60;
/** The buffer's first size: 4 s of 10 ms frames (it doubles up to `maxSegmentMs`). */
const INITIAL_BUFFER_FRAMES = 400;

/**
 * Streaming energy-based segmenter for the REST path: cuts long audio at pauses into pieces
 * of bounded length, so memory stays at one `maxSegmentMs` buffer however long the input is.
 * The buffer starts at a few seconds and doubles as audio arrives, up to that bound, so a short
 * input (a live turn, a short file) costs what it holds, not 20 s of samples.
 *
 * A frame (10 ms) is quiet when its level is under -60 dBFS or under a threshold that adapts to
 * the recording: a decaying histogram of frame levels gives a noise level (10th percentile)
 * and a speech level (90th percentile); the threshold sits at noise + max(6 dB, a quarter of
 * the gap), and at least 6 dB under the speech level, so steady sound never counts as quiet.
 * Digital silence and quiet room tone come out as pauses; loud noise raises the threshold.
 *
 * Cutting is decided frame by frame (so chunk sizes do not change the result): when a quiet run
 * reaches `minPauseMs`, the segment is cut `minPauseMs/2` into the pause, but never before the
 * segment is `minSegmentMs` long (a pause that spans that point is cut there). A segment that
 * reaches `maxSegmentMs` without a pause is cut at the quietest
 * 50 ms of its second half. Each piece is trimmed to its speech plus `marginMs`; pieces with
 * no speech come out with `speech: false` and no samples.
 */
export class PauseSegmenter {
  readonly sampleRate: number;
  private readonly frame: number;
  private readonly minPauseFrames: number;
  private readonly minSegmentFrames: number;
  private readonly capacityFrames: number;
  private readonly margin: number;
  private buffer: Float32Array;
  /** The buffer's bound: `capacityFrames` frames. */
  private readonly capacitySamples: number;
  private readonly energies: Float32Array;
  private readonly histogram = new Float64Array(HIST_BINS);
  private histogramFrames = 0;
  private length = 0; // samples in buffer
  private frames = 0; // complete frames analysed in buffer
  private start = 0; // absolute sample index of buffer[0]
  private runStart = -1; // first frame of the current quiet run, -1 when the last frame was loud

  constructor(options: SegmenterOptions = {}) {
    this.sampleRate = options.sampleRate ?? 16_000;
    const ms = (v: number): number => Math.round((v * this.sampleRate) / 1000);
    this.frame = ms(options.frameMs ?? 10);
    const frameMs = (this.frame * 1000) / this.sampleRate;
    this.minPauseFrames = Math.max(1, Math.round((options.minPauseMs ?? 300) / frameMs));
    this.minSegmentFrames = Math.max(1, Math.round((options.minSegmentMs ?? 3000) / frameMs));
    this.capacityFrames = Math.max(this.minSegmentFrames + 2, Math.floor((options.maxSegmentMs ?? 20_000) / frameMs));
    this.margin = ms(options.marginMs ?? 200);
    this.capacitySamples = this.capacityFrames * this.frame;
    this.buffer = new Float32Array(Math.min(this.capacitySamples, INITIAL_BUFFER_FRAMES * this.frame));
    this.energies = new Float32Array(this.capacityFrames);
  }

  /** Samples consumed so far (absolute index of the next sample). */
  get position(): number {
    return this.start + this.length;
  }

  /** Feeds PCM; returns the segments completed by it. `pcm` is copied, not kept. */
  push(pcm: Float32Array): AudioSegment[] {
    const out: AudioSegment[] = [];
    let offset = 0;
    while (offset < pcm.length) {
      const take = Math.min(pcm.length - offset, this.capacitySamples - this.length);
      if (this.length + take > this.buffer.length) this.grow(this.length + take);
      this.buffer.set(pcm.subarray(offset, offset + take), this.length);
      this.length += take;
      offset += take;
      while ((this.frames + 1) * this.frame <= this.length) this.step(out);
    }
    return out;
  }

  /** Ends the input: returns what is left as a last segment (if any audio is left). */
  flush(): AudioSegment[] {
    if (this.length === 0) return [];
    if (this.length > this.frames * this.frame) {
      this.energies[this.frames] = levelDb(this.buffer, this.frames * this.frame, this.length);
      this.frames++;
    }
    const segment = this.emit(this.length, this.frames);
    this.start += this.length;
    this.length = 0;
    this.frames = 0;
    this.runStart = -1;
    return [segment];
  }

  /**
   * Current quiet/speech threshold in dBFS: noise + max(6 dB, a quarter of the gap to the
   * speech level), but at least 6 dB under the speech level so steady sound is never quiet.
   * Frames under -60 dBFS are quiet whatever the threshold.
   */
  threshold(): number {
    if (this.histogramFrames === 0) return ABSOLUTE_QUIET_DB;
    const noise = this.percentile(0.1);
    const speech = this.percentile(0.9);
    return Math.min(noise + Math.max(6, 0.25 * (speech - noise)), speech - 6);
  }

  private isQuiet(db: number, threshold: number): boolean {
    return db < ABSOLUTE_QUIET_DB || db < threshold;
  }

  /** Doubles the buffer until it holds `samples` (at most `capacitySamples`), keeping what it holds. */
  private grow(samples: number): void {
    let size = this.buffer.length;
    while (size < samples) size = Math.min(this.capacitySamples, size * 2);
    const grown = new Float32Array(size);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }

  /** Analyses the next complete frame and cuts if it completes a pause or fills the buffer. Decisions are per frame, so chunk sizes do not matter. */
  private step(out: AudioSegment[]): void {
    const f = this.frames;
    const db = levelDb(this.buffer, f * this.frame, (f + 1) * this.frame);
    this.energies[f] = db;
    this.frames++;
    this.histogram[Math.min(HIST_BINS - 1, Math.max(0, Math.round(db - MIN_DB)))]! += 1;
    if (++this.histogramFrames % HIST_DECAY_EVERY === 0) {
      for (let i = 0; i < HIST_BINS; i++) this.histogram[i]! *= HIST_DECAY;
    }
    let cut: number | null = null;
    if (this.isQuiet(db, this.threshold())) {
      if (this.runStart < 0) this.runStart = f;
      const run = f + 1 - this.runStart;
      const candidate = Math.max(this.runStart + (this.minPauseFrames >> 1), this.minSegmentFrames);
      if (run >= this.minPauseFrames && candidate <= f + 1) cut = candidate;
    } else {
      this.runStart = -1;
    }
    if (cut === null && this.frames === this.capacityFrames) cut = this.quietestFrame();
    if (cut === null) return;
    out.push(this.emit(cut * this.frame, cut));
    this.shift(cut);
  }

  private percentile(p: number): number {
    let total = 0;
    for (let i = 0; i < HIST_BINS; i++) total += this.histogram[i]!;
    let acc = 0;
    for (let i = 0; i < HIST_BINS; i++) {
      acc += this.histogram[i]!;
      if (acc >= p * total) return MIN_DB + i;
    }
    return 0;
  }

  private quietestFrame(): number {
    const from = Math.max(this.minSegmentFrames, this.frames >> 1);
    const window = 5;
    let best = this.frames - 1;
    let bestSum = Number.POSITIVE_INFINITY;
    for (let f = from; f + window <= this.frames; f++) {
      let sum = 0;
      for (let k = 0; k < window; k++) sum += this.energies[f + k]!;
      if (sum < bestSum) {
        bestSum = sum;
        best = f + (window >> 1);
      }
    }
    return Math.max(1, best);
  }

  private emit(endSample: number, endFrame: number): AudioSegment {
    const threshold = this.threshold();
    let first = -1;
    let last = -1;
    let loud = 0;
    for (let f = 0; f < endFrame; f++) {
      if (!this.isQuiet(this.energies[f]!, threshold)) {
        if (first < 0) first = f;
        last = f;
        loud++;
      }
    }
    const spanStart = this.start;
    const spanEnd = this.start + endSample;
    if (loud < MIN_SPEECH_FRAMES) {
      return { startSample: spanStart, samples: new Float32Array(0), speech: false, spanStart, spanEnd };
    }
    const from = Math.max(0, first * this.frame - this.margin);
    const to = Math.min(endSample, (last + 1) * this.frame + this.margin);
    return { startSample: this.start + from, samples: this.buffer.slice(from, to), speech: true, spanStart, spanEnd };
  }

  private shift(frames: number): void {
    const samples = frames * this.frame;
    this.buffer.copyWithin(0, samples, this.length);
    this.energies.copyWithin(0, frames, this.frames);
    this.length -= samples;
    this.frames -= frames;
    this.start += samples;
    if (this.runStart >= 0) this.runStart = Math.max(0, this.runStart - frames);
  }
}

function levelDb(pcm: Float32Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!;
  const mean = sum / Math.max(1, to - from);
  return Math.max(MIN_DB, 10 * Math.log10(mean + 1e-12));
}
