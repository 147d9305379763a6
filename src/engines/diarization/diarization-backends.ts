/**
 * The diarization backends and their tuned parameters (lengths in 20 ms speaker frames,
 * SPEAKER_FRAME_MS; similarities are cosines). Immutable; diarize.ts takes a backend's by default,
 * a caller may pass its own (bench/diarization.ts --tune).
 *
 * Both: 3 s windows every 0.5 s, i-vectors on the file's 12 principal directions, the speaker
 * count by the eigengap (pruning auto-tuned per file) and spectral clustering of at most 200 of
 * the windows, every window to its nearest cluster centroid (two stages, linear in the length),
 * pauses up to 0.3 s bridged, and a speaker with no turn of 1 s (windows across turn onsets) merged
 * into the turns it touches.
 * - backend_a (conversations, interviews): two rounds of Viterbi re-segmentation, 0.3 s turns.
 * - backend_b (long-form, batch at scale): one round of re-segmentation, 1 s turns.
 * Short-turn conversations (12 or more runs of speech a minute of speech; speech-runs.ts) take `shortTurns`:
 * 1.5 s windows every 0.24 s with the model's speaker discriminant in the cosine, average-linkage
 * clustering, a pair of clusters that stands out from the file's median pair merged, and no
 * overlap marking (issue 29).
 * Tuned on synthetic conversations of the development speaker groups (bench/diarization.ts
 * --tune, --params-list, joined and realistic sets; figures in docs/diarization.md).
 */

export const DIARIZATION_BACKENDS = ['backend_a', 'backend_b'] as const;
export type DiarizationBackend = (typeof DIARIZATION_BACKENDS)[number];

export interface BackendParameters {
  readonly windowFrames: number;
  readonly hopFrames: number;
  /** Cosine similarity below which two clusters stay apart. */
  readonly threshold: number;
  /**
   * `spectral`: spectral clustering of a sample of at most `eigengapPoints` windows with the
   * eigengap's count, every window to its nearest cluster centroid (linear in the length).
   * `agglomerative` (before 2026-11-28; kept for comparison and for the threshold mode): the eigengap's
   * count, then average-linkage clustering, in blocks of `blockSize` beyond it.
   * Spectral needs `eigengapNeighbours`; without them the threshold decides, agglomeratively.
   */
  readonly clustering: 'spectral' | 'agglomerative';
  /** Agglomerative clustering: single-stage up to this many windows; two-stage beyond. */
  readonly blockSize: number;
  /** Runs of a speaker shorter than this are given to their neighbours. */
  readonly minTurnFrames: number;
  /**
   * With the count not given: a speaker none of whose turns reaches this length is not a voice
   * but windows across turn changes (onsets, mixed windows); its runs join their neighbours
   * (never below min_speakers). 0: off.
   */
  readonly minLongestTurnFrames: number;
  /** Rounds of re-segmentation of the windows against the cluster centroids after clustering. */
  readonly refinements: number;
  /** Cosine similarity a change of speaker between consecutive windows costs in re-segmentation (0: nearest centroid). */
  readonly switchCost: number;
  /** Non-empty: the speaker count is the eigengap's (eigengapCount with these neighbour shares), not the threshold's. */
  readonly eigengapNeighbours: readonly number[];
  /** At most this many windows (spread evenly) enter the eigengap; its cost is cubic in them. */
  readonly eigengapPoints: number;
  /** Clusters holding fewer than this share of the windows join their nearest cluster (never below min_speakers). */
  readonly minClusterShare: number;
  /**
   * With the count not given: two clusters whose centroids are more similar than this (cosine) are
   * one speaker split in two and merge (never below min_speakers). On the file's principal
   * directions different speakers' centroids point apart (about -1 for two).
   */
  readonly mergeSimilarity: number;
  /**
   * With the count not given: while three or more clusters remain, the most similar pair merges when
   * its centroid cosine exceeds the median of all pairs' cosines in the file by this much (one voice
   * split in two stands out from the file's other pairs, whatever the file's overall level). 0: off.
   */
  readonly mergeAboveFileMedian: number;
  /** Quiet stretches up to this long inside speech (pauses between words) take the speaker around them. */
  readonly pauseFrames: number;
  /**
   * A change of speaker with no pause at it moves into the nearest pause of at least
   * `pauseSnapMinGapFrames` at most this many frames away (0: changes stay where the windows put them).
   */
  readonly pauseSnapFrames: number;
  readonly pauseSnapMinGapFrames: number;
  /** I-vector models: the file's principal directions of i-vectors kept (the speaker differences within the file). */
  readonly pcaDims: number;
  /**
   * I-vector models with a speaker discriminant: its share of each window's cosine similarity (the
   * rest is the file's principal directions'); 0: the principal directions alone (models without one).
   */
  readonly discriminantWeight: number;
  /**
   * Overlap-aware re-segmentation (with an overlap detector in the options): in the regions the
   * detector finds, the nearest other speaker in time speaks as well (a second turn).
   */
  readonly overlapAware: boolean;
  /**
   * Overlap is marked only on files whose frame energies span at least this many dB (95% over 1%
   * quantile): 34-36 dB on clean conversations, 22-24 dB with white noise 30 dB under the speech,
   * 17-19 dB at 25 dB, 12-14 dB at 20 dB. The detector learnt clean conversations: on the
   * development groups it was neutral at 30 dB SNR and cost DER at 25 dB (docs/diarization.md).
   */
  readonly overlapMinRangeDb: number;
  /**
   * Conversations of short turns: when the file has at least `minRunsPerMinute` runs of speech
   * (speech frames split by pauses over SHORT_TURN_PAUSE_FRAMES; speech-runs.ts) a minute of
   * speech, `overrides` replace these parameters for the file. Null: one set for every file.
   */
  readonly shortTurns: { readonly minRunsPerMinute: number; readonly overrides: Partial<Omit<BackendParameters, 'shortTurns'>> } | null;
}

/** Neighbour shares the eigengap count tries (the best ratio of share to gap wins). */
const EIGENGAP_SHARES = [0.05, 0.1, 0.15, 0.2];

/** What both backends share (the header); they differ in re-segmentation and turn length (and in blocks, when agglomerative). */
const SHARED_PARAMETERS = {
  windowFrames: 150,
  hopFrames: 25,
  threshold: 0,
  pcaDims: 12,
  pauseFrames: 15,
  pauseSnapFrames: 100,
  pauseSnapMinGapFrames: 5,
  minLongestTurnFrames: 50,
  mergeAboveFileMedian: 0,
  switchCost: 0.5,
  minClusterShare: 0.1,
  mergeSimilarity: 0.5,
  eigengapNeighbours: EIGENGAP_SHARES,
  eigengapPoints: 200,
  clustering: 'spectral',
  overlapMinRangeDb: 20,
  discriminantWeight: 0,
  shortTurns: {
    // Development files: joined-up read speech 8.1-9.8 runs a minute, realistic conversations 13.5-30.7.
    minRunsPerMinute: 12,
    // 1.5 s windows every 0.24 s follow turns of 1-2 s; their speakers by average-linkage at a
    // fixed cosine (the eigengap of short noisy windows splits and merges at random); the overlap
    // detector (trained on clean, joined-up speech) was right about one mark in five on such files.
    overrides: {
      windowFrames: 75,
      hopFrames: 12,
      clustering: 'agglomerative',
      eigengapNeighbours: [],
      threshold: 0.15,
      mergeSimilarity: 0.35,
      // Realistic development side: 47.0% -> 46.5%, two-speaker counts exact 6 -> 8 of 10; on the
      // long-turn path (joined files, voices far apart) it merged real voices (14.2% -> 19.4%).
      mergeAboveFileMedian: 0.3,
      discriminantWeight: 0.3,
      overlapAware: false,
    },
  },
} as const;

export const BACKENDS: Readonly<Record<DiarizationBackend, BackendParameters>> = {
  backend_a: { ...SHARED_PARAMETERS, blockSize: 1200, minTurnFrames: 15, refinements: 2, overlapAware: true },
  backend_b: { ...SHARED_PARAMETERS, blockSize: 300, minTurnFrames: 50, refinements: 1, overlapAware: false },
};

/**
 * The backends on a pretrained speaker-embedding network (DIARIZATION_EMBEDDING_MODEL: a WeSpeaker /
 * 3D-Speaker ONNX, speaker-embedding-model.ts) instead of the i-vectors: each backend keeps its
 * re-segmentation rounds, turn length, pauses and overlap handling; the windows and the clustering
 * follow the geometry of such embeddings, where the raw L2-normalised vectors are compared by cosine
 * (no principal directions: same-speaker windows lie at cosine 0.6-0.9, different speakers around
 * 0-0.4, where the i-vector path's centred principal directions put two speakers near -1).
 * UNTUNED defaults from the literature, not measured here (no real weights can be downloaded on
 * this machine; a random-weight network says nothing about thresholds): 1.5 s windows every
 * 0.76 s (WeSpeaker's diarization recipe: 1.5 s every 0.75 s), average-linkage agglomerative
 * clustering stopped at cosine similarity 0.5 (sherpa-onnx's default clustering threshold, a
 * cosine distance of 0.5; pyannote 3.1 stops its centroid linkage near 0.7 of Euclidean distance
 * between unit vectors, a cosine of about 0.75) unless min/max_speakers fix the count, and a
 * re-segmentation switch cost scaled to that narrower gap between speakers (0.15 against the
 * i-vectors' 0.5). Tune them on your own recordings with real weights (docs/public-models.md).
 */
const EMBEDDING_PARAMETERS = {
  discriminantWeight: 0,
  shortTurns: null,
  windowFrames: 75,
  hopFrames: 38,
  clustering: 'agglomerative',
  eigengapNeighbours: [] as readonly number[],
  threshold: 0.5,
  switchCost: 0.15,
  // Clusters are not merged by their centroids (untuned for such embeddings: cosine never exceeds 1).
  mergeSimilarity: 1,
} as const;

export const EMBEDDING_BACKENDS: Readonly<Record<DiarizationBackend, BackendParameters>> = {
  backend_a: { ...BACKENDS.backend_a, ...EMBEDDING_PARAMETERS },
  backend_b: { ...BACKENDS.backend_b, ...EMBEDDING_PARAMETERS },
};

/** The most speakers a file is given (min_speakers and max_speakers are bounded by it). */
export const MAX_SPEAKERS = 20;
