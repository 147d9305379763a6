// Each streaming session is a transcription job (kind `websocket`, listed with
// source=websocket): inserted `processing` when the session opens, completed (or failed, on a
// limit breach) with its text and segments when it ends. Audio seconds count in the key's usage.
// A resumed session stays one job: the record is finished once, when the session ends, with
// why it ended (`options.end_reason`) and how many times it was resumed (`options.resumes`).
import type { Logger } from 'pino';
import type { Principal } from '../platform/auth/principal.js';
import { buildJob } from '../jobs/job-service.js';
import { recordingObject } from '../jobs/job-runner.js';
import type { JobStore } from '../platform/db/job-records.js';
import type { UsageRecorder } from '../platform/limits/usage-recorder.js';
import type { SessionOutcome } from './ws-session.js';
import type { SessionSettings } from './ws-query.js';

/** The inserted record: `finish` waits for the insert and keeps the options. */
export interface OpenedRecord {
  readonly inserted: Promise<void>;
  readonly options: Readonly<Record<string, unknown>>;
}

export class SessionRecords {
  constructor(
    private readonly jobs: JobStore,
    private readonly usage: UsageRecorder,
    private readonly logger: Logger,
  ) {}

  /** Inserts the job; `finish` waits for this. */
  open(jobId: string, sessionId: string, principal: Principal, settings: SessionSettings): OpenedRecord {
    const now = new Date().toISOString();
    const job = {
      ...buildJob({
        id: jobId,
        principal,
        kind: 'websocket',
        language: settings.language,
        requestedModel: settings.requestedModel,
        status: 'processing',
        options: {
          session_id: sessionId,
          format: settings.format,
          turn_detection: settings.serverVad ? 'server_vad' : 'none',
          vad_type: settings.vadType,
          ...(settings.channels > 1 ? { channels: settings.channels, channel_names: [...settings.channelNames] } : {}),
          // Storage key of the message timeline, written when the session ends.
          ...(settings.record ? { recording: recordingObject({ accountId: principal.accountId, id: jobId }) } : {}),
        },
      }),
      requestedLanguage: settings.language,
      model: settings.model,
      startedAt: now,
      progress: { stage: 'streaming', percent: 0, total_segments: 0, done_segments: 0 },
    };
    const inserted = this.jobs.insert([job]).catch((error: unknown) => {
      this.logger.error({ err: error, job: jobId }, 'could not record the streaming session as a job');
    });
    return { inserted, options: job.options };
  }

  async finish(jobId: string, keyId: string, opened: OpenedRecord, outcome: SessionOutcome, startedWall: number, resumes = 0): Promise<void> {
    // Usage first (synchronous): the key's next upgrade already sees these minutes.
    if (outcome.audioSeconds > 0) this.usage.record(keyId, { audioSeconds: outcome.audioSeconds });
    await opened.inserted;
    const now = Date.now();
    const n = outcome.segments.length;
    try {
      await this.jobs.update(jobId, {
        status: outcome.status,
        text: outcome.text,
        segments: [...outcome.segments],
        language: outcome.language,
        model: outcome.model,
        durationSeconds: Math.round(outcome.audioSeconds * 1000) / 1000,
        processingTimeSeconds: Math.round((now - startedWall) / 10) / 100,
        progress: { stage: outcome.status, percent: 100, total_segments: n, done_segments: n },
        error: outcome.error,
        options: { ...opened.options, end_reason: outcome.endReason, resumes },
        completedAt: new Date(now).toISOString(),
        updatedAt: new Date(now).toISOString(),
      });
    } catch (error) {
      this.logger.error({ err: error, job: jobId }, 'could not store the streaming session result');
    }
  }
}
