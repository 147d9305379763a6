import type { DocumentSection } from '../platform/http/llms-text.js';

/**
 * Prose for /llms-full.txt about batches, uploads, media, the probe and webhooks. The webhook
 * signature text is the README's (test/webhooks checks the Node snippet against real deliveries).
 */
export const WEBHOOK_SIGNATURE_GUIDE = `
Deliveries of a webhook created with a \`secret\` carry

    X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>

The signed string is the timestamp, a dot, and the raw request body exactly as sent (bytes, before any
JSON parsing). \`t\` is the time of the attempt (each retry is signed afresh; the body stays the same).
To verify: recompute the HMAC over "<t>.<raw body>", compare it in constant time with \`v1\`, and refuse
timestamps more than 5 minutes (300 s) from your clock, so a captured delivery cannot be replayed later.
Deduplicate on the body's \`id\` (also in the \`X-Webhook-Id\` header): it is the same on every retry
and redelivery of an event.

Node.js:

\`\`\`js
import { createHmac, timingSafeEqual } from 'node:crypto';

// rawBody: the body as received (a Buffer), header: the X-Webhook-Signature value.
export function verifyWebhook(rawBody, header, secret, toleranceSeconds = 300) {
  const fields = Object.fromEntries(header.split(',').map((part) => part.trim().split('=', 2)));
  const t = Number(fields.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(\`\${t}.\`).update(rawBody).digest('hex');
  const given = String(fields.v1 ?? '');
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
\`\`\`

Python:

\`\`\`python
import hashlib, hmac, time

def verify_webhook(raw_body: bytes, header: str, secret: str, tolerance_seconds: int = 300) -> bool:
    fields = dict(part.strip().split("=", 1) for part in header.split(",") if "=" in part)
    try:
        t = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - t) > tolerance_seconds:
        return False
    expected = hmac.new(secret.encode(), f"{t}.".encode() + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields.get("v1", ""))
\`\`\`
`;

export const MEDIA_GUIDE_SECTIONS: readonly DocumentSection[] = [
  {
    title: 'Batches',
    body: `
POST /v1/transcriptions/batch creates one parent job and one child job per file, always asynchronously.
JSON: \`{"audio_urls": [...], "language": "am", "model": "..."}\` with https:// URLs, svc://media/<file_id> URIs
or upload file_urls (at most BATCH_MAX_FILES, 100). Multipart: one \`files\` part per file, plus \`language\` and \`model\`.
The 202 answer is the parent (status queued, \`metadata\` = \`{"batch_mode": true, "total_count": N}\`; no batch_id, no
top-level jobs). Poll GET /v1/transcriptions/{id}: \`metadata\` then also holds completed_count, failed_count,
processing_count, queued_count and \`jobs[]\` = \`{job_id, url, status, text?, progress?}\` in submission order, where
\`url\` is exactly the submitted URL, or for a multipart part its file name. GET /v1/transcriptions/{job_id} of a child
gives its segments and an \`audio_download_url\` (signed, 1 hour).
One bad file never fails the batch: it fails alone (a multipart part that is not audio fails at once with
invalid_audio_format); the parent completes when every file is final, and fails only if no file completed.
A cancelled file counts as failed. Children share the key's concurrency limit with single jobs and wait their turn.
Deleting the parent deletes the children and their stored audio (never uploaded media assets).
`,
  },
  {
    title: 'Uploads and media assets',
    body: `
Two ways to upload: multipart POST /v1/uploads (one \`file\` part; 201 with a ready media asset), or direct:
GET /v1/uploads/signed-url?filename=a.mp3&content_type=audio/mpeg[&content_length=N], then PUT the bytes to \`upload_url\`
with that Content-Type (no credential; the URL's signature binds the type and length), then optionally
POST /v1/uploads/{file_id}/finalize to keep the file as a media asset. Unfinalized uploads are deleted after
UPLOAD_RETENTION_SECONDS (24 hours). The content is checked by its bytes (MP3, WAV, OGG, FLAC, M4A, WEBM, AAC with an
audio stream; else 400 invalid_audio_format); over MAX_AUDIO_BYTES gives 413.
Use \`file_url\` as \`audio_url\` of POST /v1/transcriptions, or \`svc_uri\` (svc://media/<file_id>) in a batch; both are
resolved inside the gateway to files of the same account only.
Media assets belong to the account (they survive key rotation) and are never removed with a job. GET /v1/media lists them,
DELETE /v1/media/{file_id} removes one, GET /v1/media/{file_id}?expires_in=<seconds> returns a signed \`playback_url\`
(default 3600 s, at most 604800 s = 7 days) that supports HTTP Range and HEAD.
`,
  },
  {
    title: 'Media probe',
    body: `
POST /v1/media/probe \`{"url": "https://..."}\` answers duration_seconds, title, thumbnail, uploader, is_live,
media_type and format without downloading the media. Direct audio/video is read by ffprobe through a local
guarded proxy (so redirects and every connection pass the private-network rules), HLS playlists are read directly
(live when the playlist has no #EXT-X-ENDLIST), and streaming-site pages need yt-dlp (YTDLP_PATH). Errors:
400 invalid_url, 400 url_not_allowed, 403 media_unavailable, 404 media_not_found, 422 unsupported_media,
502 upstream_error, 504 probe_timeout (PROBE_TIMEOUT_SECONDS, 20 s), and 500 service_unavailable when more than
8 probes run and 64 wait. Results are cached PROBE_CACHE_TTL_SECONDS (300 s).
`,
  },
  {
    title: 'Webhooks',
    body: `
Events: job.completed, job.failed (with \`data.error\` = {type, code, message}) and job.progress (at most every 5 s per
job, one attempt, no retries), for single jobs and batch parents of the unified API (batch children show in their parent's
metadata; a batch's events carry \`data.batch\` = {total_count, completed_count, failed_count}). Cancelled jobs raise none.
Body: \`{"id": "evt_...", "event", "webhook_id", "timestamp", "data": {"id", "object": "transcription", "status", "url", ...}}\`;
no transcript: GET the job by \`data.id\`. Headers: Content-Type application/json, X-Webhook-Id (the event id),
X-Webhook-Event, X-Webhook-Delivery, X-Webhook-Attempt, X-Webhook-Timestamp and, with a secret, X-Webhook-Signature.
Only https:// URLs; every delivery passes the private-network guard; redirects are not followed.
An attempt succeeds with any 2xx within WEBHOOK_TIMEOUT_SECONDS (10 s). Otherwise it is retried after
WEBHOOK_RETRY_SCHEDULE seconds (60, 300, 1800, 7200, 86400: 1 min, 5 min, 30 min, 2 h, 24 h after the previous
failure; 5 retries). The schedule is stored, so retries survive restarts. WEBHOOK_DISABLE_AFTER_FAILURES (100)
consecutive failed attempts set the webhook's status to failed (its pending deliveries fail); PATCH status active
re-enables it. Status paused holds deliveries until active again.
Delivery log: GET /v1/webhooks/{id}/deliveries (and /deliveries/{delivery_id}) with every attempt;
POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver sends an event again with the same id;
POST /v1/webhooks/{id}/test sends a \`webhook.test\` event once and answers the outcome.
`,
  },
  { title: 'Webhook signatures', body: WEBHOOK_SIGNATURE_GUIDE },
];
