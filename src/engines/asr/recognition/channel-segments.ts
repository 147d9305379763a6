// Segments of multi-channel audio (channels=2, a call recorded with one speaker per channel):
// each channel is transcribed on its own; its segments carry `channel` and `speaker` (the
// channel's name) and are merged in time order. Used by file transcription and, for the same
// record shape, by the streaming sessions.
import type { Segment } from '../../../platform/db/job-records.js';

/** The default speaker names of channels 0 and 1. */
export const DEFAULT_CHANNEL_NAMES: readonly string[] = ['agent', 'customer'];

const CHANNEL_NAME = /^[A-Za-z0-9_.-]{1,32}$/;

/** The rule `channel_names` follows (REST and WebSocket), for error messages. */
export const CHANNEL_NAMES_RULE = 'two different names separated by a comma (letters, digits, _ . -, at most 32 each), e.g. agent,customer';

/** `channel_names` ("agent,customer") as two names; null when it breaks CHANNEL_NAMES_RULE. */
export function parseChannelNames(raw: string): string[] | null {
  const names = raw.split(',').map((name) => name.trim());
  return names.length === 2 && names.every((name) => CHANNEL_NAME.test(name)) && names[0] !== names[1] ? names : null;
}

/** One list of segments per channel -> one list in time order (start, then channel), renumbered from 0. */
export function mergeChannelSegments(perChannel: readonly (readonly Segment[])[], names: readonly string[]): Segment[] {
  const labelled = perChannel.flatMap((segments, channel) => segments.map((segment) => ({ ...segment, speaker: names[channel] ?? null, channel })));
  return labelled.sort((a, b) => a.start_ms - b.start_ms || a.channel - b.channel).map((segment, id) => ({ ...segment, id }));
}

/** `speaker: text` lines, one per change of speaker, for segments in time order: a call's text. */
export function speakerLines(segments: readonly Segment[]): string {
  const lines: { speaker: string; texts: string[] }[] = [];
  for (const segment of segments) {
    if (segment.text.length === 0) continue;
    const speaker = segment.speaker ?? '';
    const last = lines[lines.length - 1];
    if (last !== undefined && last.speaker === speaker) last.texts.push(segment.text);
    else lines.push({ speaker, texts: [segment.text] });
  }
  return lines.map((line) => `${line.speaker}: ${line.texts.join(' ')}`).join('\n');
}
