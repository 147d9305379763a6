import type { Registry } from 'prom-client';
import { metricFamilies } from '../../platform/metrics/metric-families.js';
import type { DiarizationBackend } from './diarize.js';
import type { DiarizationOutcome } from './transcript-diarization.js';

/** One requested diarization of a file, as it ended. */
export interface DiarizationEvent {
  readonly backend: DiarizationBackend;
  readonly outcome: DiarizationOutcome;
  /** Wall time from the file's decoded audio to the diarization's answer (it runs beside recognition). */
  readonly seconds: number;
  /** Audio seconds diarized (0 when it was not run). */
  readonly audioSeconds: number;
  /** Speakers found; null without an answer. */
  readonly speakers: number | null;
}

/**
 * Prometheus metrics of file diarization, registered on `registry`:
 *  - `gateway_diarization_runs_total{backend, outcome}`: outcome ok | failed | timeout | too_long
 *    (every one but ok left its job completed without speakers and with a warning)
 *  - `gateway_diarization_seconds{backend}`: wall time of a diarization, decoded audio to answer
 *  - `gateway_diarization_audio_seconds_total{backend}`: audio diarized
 *  - `gateway_diarization_speakers{backend}`: speakers found per file
 * Labels are bounded (two backends, four outcomes). Create once per registry.
 */
export function createDiarizationMetrics(registry: Registry): (event: DiarizationEvent) => void {
  const family = metricFamilies(registry);
  const runs = family.counter(
    'gateway_diarization_runs_total',
    'Diarizations of files by backend and outcome (ok, failed, timeout, too_long: the job completes without speakers)',
    ['backend', 'outcome'],
  );
  const time = family.histogram(
    'gateway_diarization_seconds',
    'Wall time of a file diarization from its decoded audio to the answer (runs beside recognition)',
    ['backend'],
    [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
  );
  const audio = family.counter('gateway_diarization_audio_seconds_total', 'Audio seconds diarized', ['backend']);
  const speakers = family.histogram('gateway_diarization_speakers', 'Speakers found in a diarized file', ['backend'], [1, 2, 3, 4, 5, 6, 8, 10, 15, 20]);
  return (event) => {
    runs.inc({ backend: event.backend, outcome: event.outcome });
    if (event.outcome !== 'too_long') time.observe({ backend: event.backend }, event.seconds);
    if (event.audioSeconds > 0) audio.inc({ backend: event.backend }, event.audioSeconds);
    if (event.speakers !== null) speakers.observe({ backend: event.backend }, event.speakers);
  };
}

/**
 * `gateway_diarization_embedding_model_windows_total{backend}`: speech windows the speaker-embedding
 * network (DIARIZATION_EMBEDDING_MODEL) embedded, so an operator sees the model is in use. Create
 * once per registry.
 */
export function createEmbeddingModelMetrics(registry: Registry): (backend: DiarizationBackend, windows: number) => void {
  const windows = metricFamilies(registry).counter(
    'gateway_diarization_embedding_model_windows_total',
    'Speech windows embedded by the speaker-embedding network (DIARIZATION_EMBEDDING_MODEL), by backend',
    ['backend'],
  );
  return (backend, count) => windows.inc({ backend }, count);
}
