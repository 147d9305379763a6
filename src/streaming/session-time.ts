// Stream time of a session: audio positions are absolute 16 kHz sample positions since the
// session started, the same on every channel; messages give them in whole milliseconds.
export const SAMPLES_PER_MS = 16;

export function toMs(samples: number): number {
  return Math.round(samples / SAMPLES_PER_MS);
}
