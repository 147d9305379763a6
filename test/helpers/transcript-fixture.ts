import type { Segment } from '../../src/platform/db/job-records.js';

// A transcript JSON as the job API writes it, with diarization (speakers, voice types and an
// empty music segment): the source document of the translation tests. Read-only: copy to change.
export const transcriptFixture = {
  job_id: 'tr_source',
  status: 'COMPLETED',
  duration: 9.5,
  language: 'en',
  text: 'Good morning everyone. Thank you for coming.',
  segments: [
    { id: 0, start_time: '0.00', end_time: '2.40', type: 'male', text: 'Good morning everyone.', speaker: 'SPEAKER_00' },
    { id: 1, start_time: '2.40', end_time: '4.00', type: 'music', text: '', speaker: null },
    { id: 2, start_time: '4.00', end_time: '9.50', type: 'female', text: 'Thank you for coming.', speaker: 'SPEAKER_01' },
  ],
  speakers: { count: 2, labels: ['SPEAKER_00', 'SPEAKER_01'] },
};

/** A stored transcript segment from `startMs` to `endMs` (no speaker, no confidence unless given): the unit tests' segment builder. */
export function segmentAt(id: number, startMs: number, endMs: number, text: string, fields: Partial<Pick<Segment, 'speaker' | 'confidence'>> = {}): Segment {
  return { id, start_ms: startMs, end_ms: endMs, duration_ms: endMs - startMs, text, speaker: null, confidence: null, ...fields };
}
