import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Cache } from '../../platform/cache/cache.js';
import { ApiError, isApiError } from '../../platform/errors/api-error.js';
import type { ErrorCode } from '../../platform/errors/error-registry.js';
import type { OutboundGuard } from '../../platform/net/outbound-guard.js';
import { safeRequest, type SafeResponse } from '../../platform/net/safe-http.js';
import { tryUrl } from '../../platform/net/try-url.js';
import { FfprobeError, mediaFacts, runFfprobe } from './ffprobe.js';
import { GuardedProxy } from './guarded-proxy.js';
import { firstVariant, isHlsPlaylist, mediaPlaylistFacts } from './hls-playlist.js';
import { runYtdlp } from './ytdlp.js';

export interface ProbeResult {
  readonly object: 'media_probe';
  /** The URL as submitted. */
  readonly url: string;
  readonly duration_seconds: number | null;
  readonly title: string | null;
  readonly thumbnail: string | null;
  readonly uploader: string | null;
  readonly is_live: boolean;
  readonly media_type: 'audio' | 'video' | null;
  /** Container (ffprobe's demuxer name), `hls`, or yt-dlp's extension. */
  readonly format: string | null;
  /** Which reader answered: ffprobe (direct media), hls (playlists), yt-dlp (streaming-site pages). */
  readonly extractor: 'ffprobe' | 'hls' | 'yt-dlp';
  readonly cached: boolean;
  readonly probed_at: string;
}

export interface MediaProberDeps {
  readonly guard: OutboundGuard;
  readonly cache: Cache;
  readonly ffprobe: string;
  /** yt-dlp executable (YTDLP_PATH); without it web pages cannot be probed. */
  readonly ytdlp: string | null;
  readonly timeoutSeconds: number;
  readonly cacheTtlSeconds: number;
  readonly logger: Logger;
}

const USER_AGENT = 'speech-gateway/1 (media probe)';
const SNIFF_BYTES = 4096;
const MAX_PLAYLIST_BYTES = 1 << 20;
/** Probes (ffprobe or yt-dlp processes) running at once in this process, and probes waiting for a turn. */
const MAX_RUNNING = 8;
const MAX_WAITING = 64;
/** Codes a probe may answer besides 504 probe_timeout. */
const PROBE_CODES: readonly ErrorCode[] = ['invalid_url', 'url_not_allowed', 'media_not_found', 'media_unavailable', 'unsupported_media', 'upstream_error'];

/**
 * POST /v1/media/probe: duration, title, thumbnail, uploader and the live flag of a remote
 * media URL, read without downloading it. Direct media goes to ffprobe and HLS playlists are
 * read here, both through the outbound guard; web pages go to yt-dlp when one is configured.
 * Everything happens within the probe window (504 probe_timeout beyond); successful results are
 * cached for PROBE_CACHE_TTL_SECONDS.
 */
export class MediaProber {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly deps: MediaProberDeps) {}

  /**
   * A turn to run a probe; the wait counts against the probe's window. Beyond MAX_WAITING
   * waiting probes the server is too busy: 500 service_unavailable (retry with backoff).
   */
  private async turn(signal: AbortSignal): Promise<() => void> {
    if (this.running >= MAX_RUNNING) {
      if (this.waiting.length >= MAX_WAITING) {
        throw new ApiError('service_unavailable', { message: 'Too many media probes are running; retry with exponential backoff.' });
      }
      await new Promise<void>((resolve, reject) => {
        const wake = (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = (): void => {
          const index = this.waiting.indexOf(wake);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(signal.reason);
        };
        this.waiting.push(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    } else {
      this.running++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, or is freed.
      if (next !== undefined) next();
      else this.running--;
    };
  }

  async probe(raw: string): Promise<ProbeResult> {
    const url = parseProbeUrl(raw);
    this.deps.guard.assertHostAllowed(url);
    const cacheKey = `probe:${url.href}`;
    const cached = await this.deps.cache.get<ProbeResult>(cacheKey).catch(() => null);
    if (cached !== null) return { ...cached, url: raw, cached: true };

    const windowMs = this.deps.timeoutSeconds * 1000;
    const deadline = AbortSignal.timeout(windowMs);
    const endsAt = Date.now() + windowMs;
    let result: ProbeResult;
    let release: (() => void) | null = null;
    try {
      release = await this.turn(deadline);
      result = await this.inspect(url, raw, deadline, endsAt);
    } catch (error) {
      if (isApiError(error) && error.code === 'service_unavailable') throw error;
      throw this.classify(error, deadline.aborted || Date.now() >= endsAt - 25);
    } finally {
      release?.();
    }
    if (this.deps.cacheTtlSeconds > 0) await this.deps.cache.set(cacheKey, result, this.deps.cacheTtlSeconds).catch(() => undefined);
    return result;
  }

  private classify(error: unknown, timedOut: boolean): ApiError {
    if (isApiError(error) && error.code !== 'upstream_error' && PROBE_CODES.includes(error.code)) {
      return error.param === 'url' ? error : new ApiError(error.code, { message: error.message, param: 'url' });
    }
    if (timedOut) {
      return new ApiError('probe_timeout', { message: `The media probe took longer than its ${this.deps.timeoutSeconds} s window.`, param: 'url' });
    }
    if (isApiError(error)) return new ApiError('upstream_error', { message: error.message, param: 'url' });
    this.deps.logger.warn({ err: error }, 'media probe failed');
    return new ApiError('upstream_error', { message: `The probe failed: ${(error as Error).message}`, param: 'url' });
  }

  private remaining(endsAt: number): number {
    return Math.max(1, endsAt - Date.now());
  }

  private async inspect(url: URL, raw: string, signal: AbortSignal, endsAt: number): Promise<ProbeResult> {
    const response = await safeRequest(url, this.deps.guard, {
      timeoutMs: this.remaining(endsAt),
      signal,
      headers: { 'user-agent': USER_AGENT, accept: '*/*' },
    });
    throwForStatus(response.status, response.url);
    const contentType = String(response.headers['content-type'] ?? '').toLowerCase();
    const head = await readHead(response.body, /mpegurl/.test(contentType) ? MAX_PLAYLIST_BYTES : SNIFF_BYTES);
    const text = head.toString('utf8', 0, Math.min(head.length, 512)).trimStart().toLowerCase();

    if (/mpegurl/.test(contentType) || isHlsPlaylist(head.toString('utf8', 0, 64))) {
      return this.fromHls(response, raw, signal, endsAt, head);
    }
    if (/^(text\/html|application\/xhtml)/.test(contentType) || text.startsWith('<!doctype html') || text.startsWith('<html')) {
      if (this.deps.ytdlp === null) {
        throw new ApiError('unsupported_media', {
          message: 'The URL is a web page, not audio or video. Streaming-site pages need yt-dlp, which this server does not have (YTDLP_PATH).',
          param: 'url',
        });
      }
      return this.fromYtdlp(this.deps.ytdlp, url, raw, signal, endsAt);
    }
    return this.fromFfprobe(response, raw, signal, endsAt);
  }

  private async fromFfprobe(response: SafeResponse, raw: string, signal: AbortSignal, endsAt: number): Promise<ProbeResult> {
    const headers = response.headers;
    // A stream with no length that announces itself as a radio stream (Icecast/SHOUTcast) is live.
    const live = headers['content-length'] === undefined && Object.keys(headers).some((h) => h.startsWith('icy-'));
    const proxy = await GuardedProxy.start(this.deps.guard, response.url, { userAgent: USER_AGENT, timeoutMs: this.remaining(endsAt), signal });
    try {
      const output = await runFfprobe(this.deps.ffprobe, proxy.mediaUrl, {
        protocols: 'http,tcp',
        signal,
        // Every request ffprobe could make goes to the proxy, even one to another host.
        extraArgs: ['-http_proxy', proxy.proxyUrl, '-user_agent', USER_AGENT, '-rw_timeout', String(this.remaining(endsAt) * 1000)],
      }).catch((error: unknown) => {
        throw fromProxyLog(proxy, error);
      });
      // A hop to a private address fails the probe even when ffprobe managed without it.
      if (proxy.log.refused !== null) throw proxy.log.refused;
      const facts = mediaFacts(output);
      if (!facts.hasAudio && !facts.hasVideo) {
        throw new ApiError('unsupported_media', { message: 'The URL holds no audio or video stream.', param: 'url' });
      }
      return {
        object: 'media_probe',
        url: raw,
        duration_seconds: live ? null : facts.durationSeconds,
        title: facts.title,
        thumbnail: null,
        uploader: facts.artist,
        is_live: live,
        media_type: facts.hasVideo ? 'video' : 'audio',
        format: facts.formatName,
        extractor: 'ffprobe',
        cached: false,
        probed_at: new Date().toISOString(),
      };
    } finally {
      await proxy.close();
    }
  }

  private async fromHls(response: SafeResponse, raw: string, signal: AbortSignal, endsAt: number, body: Buffer): Promise<ProbeResult> {
    let text = body.toString('utf8');
    let video: boolean | null = null;
    const variant = firstVariant(text);
    if (variant !== null) {
      video = variant.video;
      const media = await safeRequest(new URL(variant.uri, response.url), this.deps.guard, {
        timeoutMs: this.remaining(endsAt),
        signal,
        headers: { 'user-agent': USER_AGENT, accept: '*/*' },
      });
      throwForStatus(media.status, media.url);
      text = (await readHead(media.body, MAX_PLAYLIST_BYTES)).toString('utf8');
    }
    if (!isHlsPlaylist(text)) throw new ApiError('unsupported_media', { message: 'The HLS playlist could not be read.', param: 'url' });
    const facts = mediaPlaylistFacts(text);
    return {
      object: 'media_probe',
      url: raw,
      duration_seconds: facts.durationSeconds,
      title: null,
      thumbnail: null,
      uploader: null,
      is_live: facts.isLive,
      media_type: video === null ? null : video ? 'video' : 'audio',
      format: 'hls',
      extractor: 'hls',
      cached: false,
      probed_at: new Date().toISOString(),
    };
  }

  private async fromYtdlp(binary: string, url: URL, raw: string, signal: AbortSignal, endsAt: number): Promise<ProbeResult> {
    const proxy = await GuardedProxy.start(this.deps.guard, null, { userAgent: USER_AGENT, timeoutMs: this.remaining(endsAt), signal });
    try {
      const info = await runYtdlp(binary, url.href, {
        proxyUrl: proxy.proxyUrl,
        signal,
        socketTimeoutSeconds: Math.max(1, Math.ceil(this.remaining(endsAt) / 1000)),
      }).catch((error: unknown) => {
        if (proxy.log.refused !== null) throw proxy.log.refused;
        throw error;
      });
      const live = info.is_live === true || info.live_status === 'is_live';
      const video = info.vcodec !== undefined && info.vcodec !== null ? info.vcodec !== 'none' : null;
      return {
        object: 'media_probe',
        url: raw,
        duration_seconds: live || typeof info.duration !== 'number' ? null : info.duration,
        title: info.title ?? null,
        thumbnail: info.thumbnail ?? null,
        uploader: info.uploader ?? info.channel ?? info.creator ?? null,
        is_live: live,
        media_type: video === null ? null : video ? 'video' : 'audio',
        format: info.ext ?? null,
        extractor: 'yt-dlp',
        cached: false,
        probed_at: new Date().toISOString(),
      };
    } finally {
      await proxy.close();
    }
  }
}

/** 400 invalid_url unless the text is an absolute http(s) URL. */
export function parseProbeUrl(raw: string): URL {
  const url = tryUrl(raw);
  if (url === null) throw new ApiError('invalid_url', { message: `'url' is not a valid URL.`, param: 'url' });
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('invalid_url', { message: `'url' must be an http:// or https:// URL, not ${url.protocol}.`, param: 'url' });
  }
  if (url.username !== '' || url.password !== '') {
    throw new ApiError('invalid_url', { message: "'url' must not carry credentials.", param: 'url' });
  }
  return url;
}

/** The error a remote answer means: 404/410 not found; 401/403/451 unavailable; anything else upstream. */
function statusError(status: number, message: string): ApiError {
  if (status === 404 || status === 410) return new ApiError('media_not_found', { message, param: 'url' });
  if (status === 401 || status === 403 || status === 451) return new ApiError('media_unavailable', { message, param: 'url' });
  return new ApiError('upstream_error', { message, param: 'url' });
}

function throwForStatus(status: number, url: URL): void {
  if (status >= 200 && status < 300) return;
  throw statusError(status, `The media server answered HTTP ${status} for ${url.host}${url.pathname}.`);
}

/** Up to `max` bytes of the body; the rest is left unread and the stream destroyed. */
async function readHead(body: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      const buffer = chunk as Buffer;
      chunks.push(buffer);
      total += buffer.length;
      if (total >= max) break;
    }
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks, total).subarray(0, max);
}

/** ffprobe failed: the proxy knows whether the guard refused a hop or the server said no. */
function fromProxyLog(proxy: GuardedProxy, error: unknown): unknown {
  if (!(error instanceof FfprobeError)) return error;
  if (proxy.log.refused !== null) return proxy.log.refused;
  const failed = proxy.log.statuses.find((s) => s >= 400);
  if (failed !== undefined) return statusError(failed, `The media server answered HTTP ${failed}.`);
  if (/invalid data found|no 'fmt ' tag|could not find codec|unknown format|not in allowed list|format not on whitelist/i.test(error.stderr)) {
    return new ApiError('unsupported_media', { message: 'The URL is not audio or video in a format this server can read.', param: 'url' });
  }
  const detail = proxy.log.errors[0] ?? error.message.replace(proxy.mediaUrl, 'the media URL');
  return new ApiError('upstream_error', { message: `Reading the media failed: ${detail}`.slice(0, 500), param: 'url' });
}
