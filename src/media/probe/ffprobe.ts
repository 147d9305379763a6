import { runProcess, SubprocessError } from '../../platform/subprocess/subprocess.js';

/**
 * Demuxers ffprobe may use. Playlist and reference formats (hls, dash, concat, ...) are left
 * out: they make ffprobe open further URLs on its own, outside the outbound guard.
 */
export const PROBE_DEMUXERS = [
  'mp3',
  'wav',
  'w64',
  'flac',
  'ogg',
  'matroska',
  'mov',
  'aac',
  'mpegts',
  'avi',
  'flv',
  'asf',
  'amr',
  'ac3',
  'eac3',
  'caf',
  'aiff',
];

export interface FfprobeStream {
  readonly codec_type?: string;
  readonly codec_name?: string;
  readonly duration?: string;
  readonly disposition?: { readonly attached_pic?: number };
  readonly tags?: Record<string, string>;
}

export interface FfprobeOutput {
  readonly format?: {
    readonly format_name?: string;
    readonly duration?: string;
    readonly tags?: Record<string, string>;
  };
  readonly streams?: readonly FfprobeStream[];
}

export class FfprobeError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'FfprobeError';
  }
}

const MAX_OUTPUT = 1 << 20;

/**
 * Runs ffprobe on one input (a local file or a URL of the local guarded proxy) and returns
 * its parsed JSON. `protocols` is ffprobe's protocol whitelist: `file` for local files,
 * `http,tcp` for the proxy. The process is killed when `signal` aborts.
 */
export function runFfprobe(
  binary: string,
  input: string,
  options: { protocols: string; signal: AbortSignal; extraArgs?: readonly string[] },
): Promise<FfprobeOutput> {
  const args = [
    '-v',
    'error',
    '-hide_banner',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    '-protocol_whitelist',
    options.protocols,
    '-format_whitelist',
    PROBE_DEMUXERS.join(','),
    '-probesize',
    '5000000',
    ...(options.extraArgs ?? []),
    '-i',
    input,
  ];
  const run = runProcess(binary, args, {
    name: 'ffprobe',
    signal: options.signal,
    env: { PATH: process.env['PATH'] ?? '' },
    maxStdoutBytes: MAX_OUTPUT,
    maxStderrBytes: 64_000,
    // A local file's path stays on the server; a URL (the guarded proxy's) is the caller's to word.
    ...(options.protocols === 'file' ? { redact: { [input]: 'the file' } } : {}),
  });
  return run.then(
    ({ code, stdout, stderr }) => {
      if (code !== 0) throw new FfprobeError(`ffprobe failed: ${stderr.trim().split('\n').pop() ?? ''}`, stderr, code);
      try {
        return JSON.parse(stdout) as FfprobeOutput;
      } catch {
        throw new FfprobeError('ffprobe printed no readable result', stderr, code);
      }
    },
    (error: unknown) => {
      if (error instanceof SubprocessError) throw new FfprobeError(error.message, '', null);
      throw error;
    },
  );
}

/** A tag by name, whatever its case (Vorbis comments are upper case, ID3 lower). */
export function tag(tags: Record<string, string> | undefined, name: string): string | null {
  if (tags === undefined) return null;
  for (const [key, value] of Object.entries(tags)) if (key.toLowerCase() === name && value.trim() !== '') return value.trim();
  return null;
}

export interface MediaFacts {
  readonly durationSeconds: number | null;
  readonly formatName: string | null;
  readonly hasAudio: boolean;
  readonly hasVideo: boolean;
  readonly title: string | null;
  readonly artist: string | null;
}

/** What the gateway needs from ffprobe's output. Cover art does not make a file a video. */
export function mediaFacts(output: FfprobeOutput): MediaFacts {
  const streams = output.streams ?? [];
  const hasAudio = streams.some((s) => s.codec_type === 'audio');
  const hasVideo = streams.some((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const fromFormat = Number(output.format?.duration);
  const fromStreams = Math.max(0, ...streams.map((s) => Number(s.duration)).filter((d) => Number.isFinite(d)));
  const duration = Number.isFinite(fromFormat) && fromFormat > 0 ? fromFormat : fromStreams > 0 ? fromStreams : null;
  const lookup = (name: string): string | null => tag(output.format?.tags, name) ?? streams.map((s) => tag(s.tags, name)).find((v) => v !== null) ?? null;
  return {
    durationSeconds: duration === null ? null : Math.round(duration * 1000) / 1000,
    formatName: output.format?.format_name ?? null,
    hasAudio,
    hasVideo,
    title: lookup('title'),
    artist: lookup('artist') ?? lookup('album_artist'),
  };
}
