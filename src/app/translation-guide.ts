import type { DocumentSection } from '../platform/http/llms-text.js';

/** Prose for /llms-full.txt about file translation jobs (docs/file-translation.md has the whole story). */
export const TRANSLATION_GUIDE_SECTIONS: readonly DocumentSection[] = [
  {
    title: 'File translation jobs',
    body: `
POST /translate (X-API-Key) translates text files between am, en and ti asynchronously. Body:
\`{"source_language": "en", "target_languages": ["am", "ti"], "input_config": {"type": "BLOB_STORAGE", "uris": [...]},
"output_config": {"destination_uri": "svc://out/run-1"}, "callback_url": "https://...", "callback_secret": "..."}\`.
Sources: 1 to 100 https:// URLs or svc:// URIs of UTF-8 plain text (each non-blank line translated, layout kept) or
transcript JSON (each segment's text translated; timestamps, speakers, types and duration kept; \`language\` set to the
target). 1 to 5 targets, none equal to the source. A unit is one (file, target) pair. Every rule violation is 422
\`{"detail": [{"loc", "msg", "type"}]}\`; every URL passes the outbound guard.

Destinations: svc://<prefix> (the account's storage area; outputs readable again as svc:// sources),
s3://<S3_BUCKET>/<prefix> with S3 storage, or an https:// prefix receiving one PUT per output. Output names derive
from the source names (report.txt → report.am.txt, interview.json → interview.ti.json).

GET /translate/{job_id}: status (PENDING, PROCESSING, COMPLETED, PARTIAL, FAILED) and progress
(total_units, completed_units, failed_units). GET /translate/{job_id}/results: 409 until the job is final, then
summary and outputs[] with a signed target_uri (no credential, 24 h by default) or an error
{code: DOWNLOAD_ERROR | UNSUPPORTED_FORMAT | TRANSLATION_ERROR (after 3 retries) | UPLOAD_ERROR | INTERNAL_ERROR, message}.
DELETE /translate/{job_id}: 204 once final (409 while PROCESSING or PENDING); output files stay.

callback_url receives one POST with the final status and results once the job leaves PROCESSING, signed like a
webhook when callback_secret is set (X-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>)
and retried on the webhook schedule until a 2xx answers. Jobs share the transcription jobs' durable queue and
per-key limits, resume after restarts, and are removed 48 hours after submission (TRANSLATION_JOB_EXPIRY_HOURS, up to 168).
`,
  },
];
