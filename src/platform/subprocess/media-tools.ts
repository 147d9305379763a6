import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface MediaTools {
  readonly ffmpeg: string;
  readonly ffprobe: string;
}

/**
 * Paths of the ffmpeg and ffprobe binaries: the configured ones (FFMPEG_PATH / FFPROBE_PATH, for
 * a system build) or those shipped by @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe.
 */
export function resolveMediaTools(configured: { ffmpegPath?: string | null; ffprobePath?: string | null } = {}): MediaTools {
  const ffmpeg = configured.ffmpegPath ?? (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  const ffprobe = configured.ffprobePath ?? (require('@ffprobe-installer/ffprobe') as { path: string }).path;
  return { ffmpeg, ffprobe };
}
