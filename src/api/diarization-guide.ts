import type { DocumentSection } from '../platform/http/llms-text.js';

/** Prose for /llms-full.txt (and the guide list of /llms.txt) about speaker diarization (docs/diarization.md). */
export const DIARIZATION_GUIDE_SECTIONS: readonly DocumentSection[] = [
  {
    title: 'Speaker diarization',
    body: `
Who spoke when, on files. Job API (POST /transcribe): \`"diarize": true\` and an optional
\`"diarization_config": {"backend": "backend_a" | "backend_b", "min_speakers": 1-20 | null, "max_speakers": 1-20 | null}\`
(backend_a, the default: conversations and interviews; backend_b: long-form audio and batch at scale;
min_speakers must not exceed max_speakers, else 422). The unified API takes the same two fields on
POST /v1/transcriptions and POST /v1/transcriptions/batch as an extension (400 invalid_field_value on inverted
bounds); in multipart send \`diarize=true\` and \`diarization_config\` as JSON text.
Result: every segment has \`speaker\` = "SPEAKER_00", "SPEAKER_01", ... (zero-padded, numbered by first appearance;
null for a segment without speech); a segment during which the speaker changes is split at word times. The job API
transcript JSON carries \`speakers: {count, labels}\` and \`warnings\` (empty when diarization worked); a unified job
carries \`speakers\` ({count, labels}; null without diarize) and \`warnings\`. Diarized segments also carry
\`type\`: "male" / "female" (the speaker's voice, from its pitch over all its speech), "speech" (not classified or
unsure), "music" (music without speech; music no segment covers becomes segments with text "" and speaker null).
Without \`diarize\` nothing changes (job API segments are all "speech").
A diarization that fails or runs past DIARIZATION_TIMEOUT_MS never fails the job: it completes with the plain
transcript (speakers null, \`{count: 0, labels: []}\` on the job API) and a message in \`warnings\`.
Accuracy is modest (DER 37-54% on synthetic 2-4 speaker conversations; docs/diarization.md); cost about 1.6-1.7x
the plain processing time with segment types (1.3-1.4x before them). Live WebSocket sessions are not diarized.
`,
  },
];
