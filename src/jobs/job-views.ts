import type { JobRecord } from '../platform/db/job-records.js';
import { diarizationRequested, jobSpeakers, jobWarnings } from './job-diarization.js';

export const jobPath = (id: string): string => `/v1/transcriptions/${id}`;

/** A job as the unified API shows it (the spec's Transcription job record). */
export function transcriptionView(job: JobRecord): Record<string, unknown> {
  const completed = job.status === 'completed';
  return {
    id: job.id,
    object: 'transcription',
    status: job.status,
    language: job.language,
    text: completed ? (job.text ?? '') : null,
    segments: completed ? (job.segments ?? []) : null,
    // Diarization (asked for with `diarize`): the speakers once completed, and its warnings.
    speakers: completed ? jobSpeakers(job) : null,
    ...(diarizationRequested(job) ? { warnings: jobWarnings(job) } : {}),
    progress: job.progress,
    duration_seconds: job.durationSeconds,
    processing_time_seconds: job.processingTimeSeconds,
    error: job.status === 'failed' ? job.error : null,
    metadata: {
      language: job.requestedLanguage,
      model: job.requestedModel,
      ...(job.model ? { resolved_model: job.model } : {}),
      ...(job.kind === 'websocket' ? sessionMetadata(job.options) : {}),
    },
    created_at: job.createdAt,
    completed_at: job.completedAt,
    result_url: completed && job.transcriptObject ? `${jobPath(job.id)}/transcript` : null,
    audio_url: job.audioUrl,
    url: jobPath(job.id),
  };
}

/** A finished WebSocket session's record: why it ended and how many times it was resumed. */
function sessionMetadata(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return {
    ...(typeof options['end_reason'] === 'string' ? { end_reason: options['end_reason'] } : {}),
    ...(typeof options['resumes'] === 'number' ? { resumes: options['resumes'] } : {}),
  };
}
