import { runProcess, SubprocessError } from '../../../platform/subprocess/subprocess.js';
import { audioProblemInUserTerms } from './audio-problem.js';
import { AudioTooLongError, InvalidAudioError } from './audio-errors.js';

export interface AudioProbe {
  /** Container duration in seconds; null when the container does not state it (raw ADTS, some streams). */
  readonly durationSeconds: number | null;
  /** ffprobe's format name, e.g. `mov,mp4,m4a,3gp,3g2,mj2`. */
  readonly formatName: string;
  readonly codec: string;
  readonly sampleRate: number;
  readonly channels: number;
}

export interface ProbeOptions {
  readonly ffprobePath: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

interface FfprobeOutput {
  format?: { format_name?: string; duration?: string };
  streams?: Array<{ codec_type?: string; codec_name?: string; sample_rate?: string; channels?: number; duration?: string }>;
}

/**
 * Reads container facts with ffprobe without decoding the audio. Throws InvalidAudioError
 * when ffprobe cannot parse the file or it has no audio stream.
 */
export async function probeAudio(path: string, options: ProbeOptions): Promise<AudioProbe> {
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-select_streams', 'a', '--', path];
  const timeoutMs = options.timeoutMs ?? 30_000;
  const { code, stdout, stderr } = await runProcess(options.ffprobePath, args, {
    name: 'ffprobe',
    timeoutMs,
    maxStderrBytes: 1 << 20,
    ...(options.signal ? { signal: options.signal } : {}),
    redact: { [path]: 'the file' },
  }).catch((error: unknown) => {
    if (error instanceof SubprocessError && error.kind === 'timeout') throw new InvalidAudioError(`Reading the audio took longer than ${timeoutMs} ms.`);
    throw error;
  });
  if (code !== 0) {
    const detail = lastLine(stderr) || `ffprobe exited with ${code}`;
    throw new InvalidAudioError(`The audio could not be read: ${audioProblemInUserTerms(stderr || detail)}.`, { detail });
  }
  let parsed: FfprobeOutput;
  try {
    parsed = JSON.parse(stdout) as FfprobeOutput;
  } catch {
    throw new InvalidAudioError('The audio could not be read: the prober answered no description.');
  }
  const stream = parsed.streams?.find((s) => s.codec_type === 'audio');
  if (!stream) throw new InvalidAudioError('The file contains no audio stream.');
  const duration = Number(parsed.format?.duration ?? stream.duration ?? NaN);
  return {
    durationSeconds: Number.isFinite(duration) && duration >= 0 ? duration : null,
    formatName: parsed.format?.format_name ?? 'unknown',
    codec: stream.codec_name ?? 'unknown',
    sampleRate: Number(stream.sample_rate ?? 0),
    channels: stream.channels ?? 0,
  };
}

/** Sample rates a file may state: below 8 kHz no speech is left to recognise, and above 192 kHz no recorder writes it. */
export const MIN_SAMPLE_RATE = 8_000;
export const MAX_SAMPLE_RATE = 192_000;

/**
 * Refuses, before any decoding, a file whose stated sample rate is outside MIN..MAX_SAMPLE_RATE
 * (InvalidAudioError: a WAV header claiming 4 Hz makes ffmpeg stretch 1 MB into 35 hours) or
 * whose probed duration is past `maxSeconds` (AudioTooLongError). Decoding enforces the same
 * maximum on what it really yields (file-transcription.ts), since a duration may be absent or wrong.
 */
export function checkProbedAudio(probe: AudioProbe, maxSeconds: number): void {
  if (probe.sampleRate > 0 && (probe.sampleRate < MIN_SAMPLE_RATE || probe.sampleRate > MAX_SAMPLE_RATE)) {
    throw new InvalidAudioError(
      `The audio states a sample rate of ${probe.sampleRate} Hz; accepted rates are ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE} Hz (is the file's header damaged?).`,
    );
  }
  if (probe.durationSeconds !== null && probe.durationSeconds > maxSeconds) throw new AudioTooLongError(probe.durationSeconds, maxSeconds);
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines[lines.length - 1] ?? '').trim().slice(0, 300);
}
