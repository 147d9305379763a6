import type { TranslationEngine } from '../../src/speech/speech.js';

export type Json = any;

/** A transcript JSON as the job API writes it, with diarization (speakers, types, an empty music segment). */
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

/** DEVELOPMENT ONLY, until the ONNX engine lands on main: marks each text with its target. */
export const TEST_ENGINE: TranslationEngine = {
  name: 'dev',
  languages: ['en', 'am', 'ti'],
  translate: async (text, _s, t) => `[${t}] ${text}`,
  translateMany: async (texts, _s, t) => texts.map((text) => `[${t}] ${text}`),
  close: async () => undefined,
};
