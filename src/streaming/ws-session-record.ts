// Each streaming session is a transcription job (kind `websocket`, listed with
// source=websocket): inserted `processing` when the session opens, completed (or failed, on a
// limit breach) with its text and segments when it ends. Audio seconds count in the key's usage.
import type { Logger } from 'pino';
import type { Principal } from '../platform/auth/principal.js';
import { buildJob } from '../jobs/job-service.js';
import { recordingObject } from '../jobs/job-runner.js';
import type { JobStore } from '../platform/db/job-records.js';
import type { UsageRecorder } from '../platform/limits/usage-recorder.js';
import type { SessionOutcome } from './ws-session.js';
import type { SessionSettings } from './ws-query.js';

export class SessionRecords {
  constructor(
    private readonly jobs: JobStore,
    private readonly usage: UsageRecorder,
    private readonly logger: Logger,
  ) {}

  /** Inserts the job; `finish` waits for this. */
  open(jobId: string, sessionId: string, principal: Principal, settings: SessionSettings): Promise<void> {
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
    return this.jobs.insert([job]).catch((error: unknown) => {
      this.logger.error({ err: error, job: jobId }, 'could not record the streaming session as a job');
    });
  }

  async finish(jobId: string, keyId: string, opened: Promise<void>, outcome: SessionOutcome, startedWall: number): Promise<void> {
    // Usage first (synchronous): the key's next upgrade already sees these minutes.
    if (outcome.audioSeconds > 0) this.usage.record(keyId, { audioSeconds: outcome.audioSeconds });
    await opened;
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
        completedAt: new Date(now).toISOString(),
        updatedAt: new Date(now).toISOString(),
      });
    } catch (error) {
      this.logger.error({ err: error, job: jobId }, 'could not store the streaming session result');
    }
  }
}
