import { tmpdir } from 'node:os';
import { ApiError } from '../../platform/errors/api-error.js';
import { runProcess, SubprocessError } from '../../platform/subprocess/subprocess.js';

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
    '--proxy',
    options.proxyUrl,
    '--socket-timeout',
    String(options.socketTimeoutSeconds),
    '--',
    url,
  ];
  // A bare environment: no inherited http_proxy/no_proxy can route around the guarded proxy.
  const run = runProcess(binary, args, {
    name: 'yt-dlp',
    signal: options.signal,
    env: { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), LANG: 'C.UTF-8' },
    maxStdoutBytes: 8_000_000,
    maxStderrBytes: 64_000,
  });
  return run.then(
    ({ code, stdout, stderr }) => {
      if (code !== 0) throw ytdlpError(stderr);
      try {
        return JSON.parse(stdout) as YtdlpInfo;
      } catch {
        throw new ApiError('upstream_error', { message: 'yt-dlp printed no readable result.', param: 'url' });
      }
    },
    (error: unknown) => {
      if (error instanceof SubprocessError) throw new ApiError('upstream_error', { message: `${error.message}.`, param: 'url' });
      throw error;
    },
  );
}

/** Maps yt-dlp's error text to the probe's codes. */
export function ytdlpError(stderr: string): ApiError {
  const line =
    stderr
      .split('\n')
      .find((l) => l.startsWith('ERROR:'))
      ?.replace(/^ERROR:\s*/, '')
      .trim() ??
    stderr.trim().split('\n').pop() ??
    '';
  const message = `yt-dlp: ${line || 'failed'}`.slice(0, 500);
  if (/unsupported url/i.test(line)) return new ApiError('unsupported_media', { message, param: 'url' });
  if (
    /private video|sign in|log ?in|members[- ]only|age[- ]restrict|confirm your age|available in your country|geo[- ]?restrict|blocked|premium|requires payment|HTTP Error 40[13]/i.test(
      line,
    )
  ) {
    return new ApiError('media_unavailable', { message, param: 'url' });
  }
  if (/HTTP Error 404|HTTP Error 410|video unavailable|does not exist|not found|has been removed|no longer available/i.test(line)) {
    return new ApiError('media_not_found', { message, param: 'url' });
  }
  return new ApiError('upstream_error', { message, param: 'url' });
}
