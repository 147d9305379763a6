import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { ApiError } from '../../platform/errors/api-error.js';

/** The fields of yt-dlp's --dump-single-json the probe reads. */
export interface YtdlpInfo {
  readonly title?: string | null;
  readonly duration?: number | null;
  readonly thumbnail?: string | null;
  readonly uploader?: string | null;
  readonly channel?: string | null;
  readonly creator?: string | null;
  readonly is_live?: boolean | null;
  readonly live_status?: string | null;
  readonly vcodec?: string | null;
  readonly acodec?: string | null;
  readonly ext?: string | null;
  readonly extractor_key?: string | null;
}

/**
 * Reads a streaming-site page's metadata with yt-dlp (YTDLP_PATH). Every connection yt-dlp
 * makes goes through `proxyUrl`, the guarded local proxy. Throws ApiError with the probe's
 * codes, judged from yt-dlp's error text.
 */
export function runYtdlp(binary: string, url: string, options: { proxyUrl: string; signal: AbortSignal; socketTimeoutSeconds: number }): Promise<YtdlpInfo> {
  const args = [
    '--ignore-config',
    '--dump-single-json',
    '--skip-download',
    '--no-playlist',
    '--no-warnings',
    '--no-cache-dir',
    '--proxy', options.proxyUrl,
    '--socket-timeout', String(options.socketTimeoutSeconds),
    '--',
    url,
  ];
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) {
      reject(options.signal.reason);
      return;
    }
    // A bare environment: no inherited http_proxy/no_proxy can route around the guarded proxy.
    const child = spawn(binary, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), LANG: 'C.UTF-8' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < 8_000_000) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 64_000) stderr += chunk;
    });
    const onAbort = (): void => void child.kill('SIGKILL');
    options.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      options.signal.removeEventListener('abort', onAbort);
      reject(new ApiError('upstream_error', { message: `yt-dlp could not be started: ${error.message}`, param: 'url' }));
    });
    child.on('close', (code) => {
      options.signal.removeEventListener('abort', onAbort);
      if (options.signal.aborted) {
        reject(options.signal.reason);
        return;
      }
      if (code !== 0) {
        reject(ytdlpError(stderr));
        return;
      }
      try {
        resolve(JSON.parse(stdout) as YtdlpInfo);
      } catch {
        reject(new ApiError('upstream_error', { message: 'yt-dlp printed no readable result.', param: 'url' }));
      }
    });
  });
}

/** Maps yt-dlp's error text to the probe's codes. */
export function ytdlpError(stderr: string): ApiError {
  const line = stderr.split('\n').find((l) => l.startsWith('ERROR:'))?.replace(/^ERROR:\s*/, '').trim() ?? stderr.trim().split('\n').pop() ?? '';
  const message = `yt-dlp: ${line || 'failed'}`.slice(0, 500);
  if (/unsupported url/i.test(line)) return new ApiError('unsupported_media', { message, param: 'url' });
  if (/private video|sign in|log ?in|members[- ]only|age[- ]restrict|confirm your age|available in your country|geo[- ]?restrict|blocked|premium|requires payment|HTTP Error 40[13]/i.test(line)) {
    return new ApiError('media_unavailable', { message, param: 'url' });
  }
  if (/HTTP Error 404|HTTP Error 410|video unavailable|does not exist|not found|has been removed|no longer available/i.test(line)) {
    return new ApiError('media_not_found', { message, param: 'url' });
  }
  return new ApiError('upstream_error', { message, param: 'url' });
}
