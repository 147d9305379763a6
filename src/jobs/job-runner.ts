import type { Logger } from 'pino';
import type { UsageRecorder } from '../platform/limits/usage-recorder.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import { diarizationOutcomeOptions, diarizationRequestOf } from './job-diarization.js';
import { jobErrorFrom } from './job-errors.js';
import { LeasedRunner, type RunOutcome } from './leased-runner.js';
import type { StopReason } from './leased-runs.js';
import type { JobEvents } from './job-events.js';
import type { JobRecord, JobStore, Progress } from '../platform/db/job-records.js';
import { speakerLines, type Asr, type AudioAllowance } from '../engines/asr/asr.js';
import { ApiError } from '../platform/errors/api-error.js';
import { utcDate } from '../platform/db/dates.js';

/** Puts a job's audio into storage (downloading an audio_url, resolving an upload). Returns the key and size. */
export type AudioFetcher = (job: JobRecord, signal: AbortSignal) => Promise<{ key: string; size: number }>;

export const jobPrefix = (job: Pick<JobRecord, 'accountId' | 'id'>): string => `accounts/${job.accountId}/jobs/${job.id}`;
/** A `record=true` WebSocket session's message timeline (see src/streaming/session-recording.ts). */
export const recordingObject = (job: Pick<JobRecord, 'accountId' | 'id'>): string => `${jobPrefix(job)}/recording.ndjson`;

const PROGRESS_INTERVAL_MS = 1000;

/**
 * Runs one job per call: queued → processing → completed | failed. The start is a claim that
 * honours the key's running-jobs limit across processes and takes a lease, renewed every third
 * of its length while the job runs. Every later write is conditional on the job still being
 * `processing` under this process's lease, so a cancel or delete that lands while the job runs
 * wins, a process whose lease lapsed cannot overwrite the one that took over, and the runner
 * only cleans up after itself.
 *
 * Quota: once the audio is probed and before it is decoded, a job whose probed duration is more
 * than its key's daily audio left (billed, and held by the key's other running jobs here) fails
 * with `daily_quota_exceeded`; otherwise the probed duration is held against the quota while the
 * job runs, decoding stops at what is left, and the job is billed the duration it decoded.
 */
export class JobRunner extends LeasedRunner {
  constructor(
    private readonly deps: {
      readonly jobs: JobStore;
      readonly storage: FileStorage;
      readonly asr: Pick<Asr, 'transcribe'>;
      readonly events: JobEvents;
      readonly fetchAudio: AudioFetcher;
      readonly usage: UsageRecorder;
      readonly logger: Logger;
      /** This process's lease owner id. */
      readonly owner: string;
      /** How long a claim holds without renewal (JOB_LEASE_SECONDS). */
      readonly leaseMs: number;
      /** A key's daily audio quota in seconds (its override, else the server's); absent: jobs are not bounded by it. */
      readonly dailyAudioLimitSeconds?: (keyId: string) => Promise<number>;
    },
  ) {
    super({ jobs: deps.jobs, logger: deps.logger, owner: deps.owner, leaseMs: deps.leaseMs, label: 'job' });
  }

  get owner(): string {
    return this.deps.owner;
  }

  /** Probed audio seconds of the jobs running here, once known (null: the container states none). */
  private readonly probed = new Map<string, number | null>();

  /** A running job's probed audio seconds; undefined before it is probed or when it does not run here. */
  probedSeconds(jobId: string): number | null | undefined {
    return this.probed.get(jobId);
  }

  async run(jobId: string, maxRunningForKey: number = Number.MAX_SAFE_INTEGER): Promise<RunOutcome> {
    const { jobs, storage, asr, events, logger, owner } = this.deps;
    const claimed = await this.claim(jobId, maxRunningForKey, (queued, startedAt) => ({
      startedAt: startedAt.toISOString(),
      progress: { stage: queued.audioObject ? 'decoding' : 'downloading', percent: 0, total_segments: 0, done_segments: 0 },
    }));
    if (typeof claimed === 'string') return claimed;
    const { job: started, startedAt, controller } = claimed;
    const held = { leaseOwner: owner };
    const released = { leaseOwner: null, leaseUntil: null };
    const log = logger.child({ jobId });
    log.info({ attempt: started.attempts }, 'job started');
    let release: (() => Promise<void>) | null = null;
    let releaseHold: (() => void) | null = null;
    let lastProgressAt = 0;
    try {
      let audioObject = started.audioObject;
      if (audioObject === null) {
        const fetched = await this.deps.fetchAudio(started, controller.signal);
        audioObject = fetched.key;
        await jobs.update(jobId, { audioObject, audioBytes: fetched.size }, ['processing'], held);
      }
      const local = await storage.localPath(audioObject);
      release = local.release;
      const result = await asr.transcribe({
        audioPath: local.path,
        language: started.requestedLanguage,
        model: started.requestedModel === '' ? null : started.requestedModel,
        signal: controller.signal,
        ...(channelNamesOf(started) !== null ? { channelNames: channelNamesOf(started)! } : {}),
        diarization: diarizationRequestOf(started),
        keyterms: keytermsOf(started),
        admitAudio: async (probedSeconds) => {
          this.probed.set(jobId, probedSeconds);
          const admitted = await this.admitAudio(started, probedSeconds);
          releaseHold = admitted.release;
          return admitted.allowance;
        },
        onLanguage: (language, model) => void jobs.update(jobId, { language, model }, ['processing'], held).catch(() => undefined),
        onProgress: (p) => {
          const now = Date.now();
          if (now - lastProgressAt < PROGRESS_INTERVAL_MS) return;
          lastProgressAt = now;
          const progress: Progress = {
            stage: p.stage,
            percent: p.totalSegments > 0 ? Math.min(99, Math.floor((100 * p.doneSegments) / p.totalSegments)) : 0,
            total_segments: p.totalSegments,
            done_segments: p.doneSegments,
          };
          void jobs
            .update(jobId, { progress }, ['processing'], held)
            .then((job) => job && events.emit('progress', job))
            .catch(() => undefined);
        },
      });
      controller.signal.throwIfAborted();
      // channels=2: one `speaker: text` line per change of speaker.
      const text =
        channelNamesOf(started) !== null
          ? speakerLines(result.segments)
          : result.segments
              .map((s) => s.text)
              .filter((t) => t.length > 0)
              .join(' ');
      const completedAt = new Date();
      // A diarization that failed or timed out leaves the job completed with its plain transcript and a warning.
      const diarized = diarizationOutcomeOptions(result.diarization);
      if (result.diarization?.warning) log.warn({ warning: result.diarization.warning }, 'diarization failed: the job completes without speakers');
      const transcriptKey = `${jobPrefix(started)}/transcript.json`;
      await storage.putBuffer(
        transcriptKey,
        Buffer.from(
          JSON.stringify({
            id: jobId,
            object: 'transcript',
            language: result.language,
            model: result.model,
            duration_seconds: result.durationSeconds,
            text,
            segments: result.segments,
            ...diarized,
            created_at: started.createdAt,
            completed_at: completedAt.toISOString(),
          }),
        ),
        'application/json',
      );
      const done = await jobs.update(
        jobId,
        {
          status: 'completed',
          eventsPending: true,
          language: result.language,
          model: result.model,
          text,
          segments: result.segments,
          durationSeconds: result.durationSeconds,
          processingTimeSeconds: Math.round((completedAt.getTime() - startedAt.getTime()) / 10) / 100,
          completedAt: completedAt.toISOString(),
          transcriptObject: transcriptKey,
          ...(result.diarization !== null ? { options: { ...started.options, ...diarized } } : {}),
          progress: { stage: 'completed', percent: 100, total_segments: result.segments.length, done_segments: result.segments.length },
          error: null,
          ...released,
        },
        ['processing'],
        held,
      );
      if (done !== null) {
        // Billed what was decoded (never a header's claim), then the hold on the probed duration ends.
        this.deps.usage.record(done.keyId, { audioSeconds: result.durationSeconds, jobs: 1 });
        events.emit('finished', done);
        log.info({ durationSeconds: result.durationSeconds, segments: result.segments.length }, 'job completed');
      } else {
        await this.cleanUpIfDeleted(started);
      }
    } catch (error) {
      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      if (reason === 'deleted' || reason === 'lost') {
        await this.cleanUpIfDeleted(started);
        if (reason === 'lost') log.info('job stopped here: it was cancelled, deleted or taken over by another process');
      } else if (reason === 'shutdown') {
        // Persist, don't fail: the job goes back to the queue and resumes (here after a restart, or in another process).
        const returned = await jobs.update(jobId, { status: 'queued', attempts: started.attempts - 1, progress: null, ...released }, ['processing'], held);
        log.info('job returned to the queue for shutdown');
        if (returned !== null) return 'returned';
      } else if (reason !== 'cancelled') {
        const jobError = jobErrorFrom(error);
        if (jobError.code === 'internal_error') log.error({ err: error }, 'job failed');
        else log.info({ code: jobError.code, message: jobError.message, detail: (error as { detail?: unknown }).detail }, 'job failed');
        const failed = await jobs.update(
          jobId,
          {
            status: 'failed',
            eventsPending: true,
            error: jobError,
            completedAt: new Date().toISOString(),
            progress: { ...(started.progress ?? emptyProgress), stage: 'failed' },
            ...released,
          },
          ['processing'],
          held,
        );
        if (failed !== null) events.emit('finished', failed);
      }
    } finally {
      this.runs.remove(jobId);
      this.probed.delete(jobId);
      (releaseHold as (() => void) | null)?.();
      await release?.().catch(() => undefined);
    }
    return 'finished';
  }

  /**
   * The quota check before decoding (see the class comment): throws `daily_quota_exceeded` when the
   * probed duration is more than the key has left today; else holds it and bounds decoding at what is left.
   */
  private async admitAudio(job: JobRecord, probedSeconds: number | null): Promise<{ allowance: AudioAllowance | null; release: () => void }> {
    const limitOf = this.deps.dailyAudioLimitSeconds;
    if (limitOf === undefined) return { allowance: null, release: () => undefined };
    const limitSeconds = await limitOf(job.keyId);
    const { billed, held } = await this.deps.usage.audioSeconds(job.keyId, utcDate());
    const left = Math.max(0, limitSeconds - billed - held);
    const refuse = (seconds: number | null): ApiError => quotaError(seconds, left, limitSeconds);
    // A second of slack: a probe rounds, and a file that fits is not refused for the last samples.
    if (probedSeconds !== null && probedSeconds > left + QUOTA_SLACK_SECONDS) throw refuse(probedSeconds);
    const release = this.deps.usage.holdAudio(job.keyId, probedSeconds ?? 0);
    return { allowance: { maxSeconds: left + QUOTA_SLACK_SECONDS, refuse: () => refuse(null) }, release };
  }

  private async cleanUpIfDeleted(job: JobRecord): Promise<void> {
    if ((await this.deps.jobs.get(job.id)) === null) await this.deps.storage.deletePrefix(jobPrefix(job)).catch(() => undefined);
  }
}

/** Jobs submitted with keyterms keep them in options (`keyterms`, checked at submission); null for the others. */
export function keytermsOf(job: JobRecord): readonly string[] | null {
  const terms = job.options['keyterms'];
  return Array.isArray(terms) && terms.length > 0 && terms.every((term) => typeof term === 'string') ? terms : null;
}

/** channels=2 jobs keep their speaker names in options (`channel_names`); null for the others. */
export function channelNamesOf(job: JobRecord): readonly string[] | null {
  const names = job.options['channel_names'];
  return job.options['channels'] === 2 && Array.isArray(names) ? (names as string[]) : null;
}

const QUOTA_SLACK_SECONDS = 1;

function quotaError(seconds: number | null, leftSeconds: number, limitSeconds: number): ApiError {
  const minutes = (value: number): string => `${Math.round(value / 6) / 10}`;
  const now = Date.now();
  const nextMidnight = Date.parse(`${utcDate(now)}T00:00:00Z`) + 86_400_000;
  const audio = seconds === null ? 'The audio is longer than' : `The audio is ${minutes(seconds)} minutes long, more than`;
  return new ApiError('daily_quota_exceeded', {
    message: `${audio} the ${minutes(leftSeconds)} of this key's ${minutes(limitSeconds)} daily audio minutes left today (UTC).`,
    retryAfter: Math.ceil((nextMidnight - now) / 1000),
  });
}

const emptyProgress: Progress = { stage: 'failed', percent: 0, total_segments: 0, done_segments: 0 };
