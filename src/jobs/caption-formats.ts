import type { CaptionCue } from './caption-cues.js';

export const CAPTION_FORMATS = ['vtt', 'srt'] as const;
export type CaptionFormat = (typeof CAPTION_FORMATS)[number];

export const CAPTION_CONTENT_TYPES: Readonly<Record<CaptionFormat, string>> = {
  vtt: 'text/vtt; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
};

/** One cue as WebVTT (W3C WebVTT): HH:MM:SS.mmm times, `<v>` voice spans, `& < >` escaped. */
export function webVttCue(cue: CaptionCue): string {
  const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const voice = cue.speaker === null ? '' : `<v ${escapeText(cue.speaker)}>`;
  const lines = cue.lines.map((line, i) => (i === 0 ? voice : '') + escapeText(line));
  return `${cue.index}\n${timestamp(cue.startMs, '.')} --> ${timestamp(cue.endMs, '.')}\n${lines.join('\n')}\n\n`;
}

/** One cue as SubRip: HH:MM:SS,mmm times, plain text. */
export function srtCue(cue: CaptionCue): string {
  return `${cue.index}\n${timestamp(cue.startMs, ',')} --> ${timestamp(cue.endMs, ',')}\n${cue.lines.join('\n')}\n\n`;
}

export const WEBVTT_HEADER = 'WEBVTT\n\n';

/** A whole caption file. */
export function renderCaptions(cues: readonly CaptionCue[], format: CaptionFormat): string {
  return (format === 'vtt' ? WEBVTT_HEADER : '') + renderCaptionCues(cues, format);
}

/** Cue blocks without the file header: what a live session appends to its file. */
export function renderCaptionCues(cues: readonly CaptionCue[], format: CaptionFormat): string {
  return cues.map(format === 'vtt' ? webVttCue : srtCue).join('');
}

function timestamp(ms: number, separator: '.' | ','): string {
  const total = Math.max(0, Math.round(ms));
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor(total / 60_000) % 60;
  const seconds = Math.floor(total / 1000) % 60;
  const millis = total % 1000;
  const pad = (n: number, width: number): string => String(n).padStart(width, '0');
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}${separator}${pad(millis, 3)}`;
}
