import { ApiError, isApiError } from '../platform/errors/api-error.js';
import { sizeLimitExceeded } from '../platform/errors/size-limit.js';
import type { OutboundGuard } from '../platform/net/outbound-guard.js';
import { safeRequest } from '../platform/net/safe-http.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import { jobPrefix, type AudioFetcher } from './job-runner.js';
import type { JobRecord } from '../platform/db/job-records.js';

/** Resolves gateway-issued audio references (file_url, svc://) to stored objects; null if unknown. */
export type StoredAudioResolver = (url: string, accountId: string) => Promise<{ key: string; size: number } | null>;

/**
 * Fetches a job's audio: gateway references resolve to stored uploads; http(s) URLs are
 * downloaded through the outbound guard, streamed into storage with a size cap and a deadline.
 */
export function createAudioFetcher(deps: {
  storage: FileStorage;
  guard: OutboundGuard;
  maxBytes: number;
  timeoutSeconds: number;
  resolveStored: StoredAudioResolver;
}): AudioFetcher {
  return async (job: JobRecord, signal: AbortSignal) => {
    const url = job.audioUrl;
    if (url === null) throw new ApiError('invalid_audio_format', { message: 'The job has no audio.' });
    const stored = await deps.resolveStored(url, job.accountId);
    if (stored !== null) return stored;
    if (url.startsWith('svc://')) throw new ApiError('audio_download_failed', { message: `No uploaded file matches ${url}.` });
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(deps.timeoutSeconds * 1000)]);
    try {
      const response = await safeRequest(url, deps.guard, {
        timeoutMs: deps.timeoutSeconds * 1000,
        signal: deadline,
        headers: { 'user-agent': 'speech-gateway/1 (audio fetch)', accept: 'audio/*, video/*, */*' },
      });
      if (response.status < 200 || response.status >= 300) {
        response.body.resume();
        throw new ApiError('audio_download_failed', { message: `Downloading the audio failed: the server answered HTTP ${response.status}.` });
      }
      const declared = Number(response.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > deps.maxBytes) {
        response.body.destroy();
        throw sizeLimitExceeded(`The audio at the URL (${declared} bytes)`, deps.maxBytes);
      }
      const object = await deps.storage.put(`${jobPrefix(job)}/audio`, response.body, {
        contentType: String(response.headers['content-type'] ?? 'application/octet-stream'),
        maxBytes: deps.maxBytes,
        signal: deadline,
      });
      return { key: object.key, size: object.size };
    } catch (error) {
      if (signal.aborted) throw error;
      if (isApiError(error)) throw error;
      if (deadline.aborted) {
        throw new ApiError('audio_download_failed', { message: `Downloading the audio took longer than ${deps.timeoutSeconds} s.` });
      }
      // A storage error (it names a server path) is the server's problem, not the URL's.
      if ((error as NodeJS.ErrnoException).path !== undefined) throw error;
      throw new ApiError('audio_download_failed', { message: `Downloading the audio failed: ${(error as Error).message}` });
    }
  };
}
