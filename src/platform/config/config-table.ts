import {
  boolean,
  bytes,
  cidrList,
  decimal,
  integer,
  integerList,
  integerOrOff,
  keyPrefix,
  oneOf,
  optionalPath,
  namePairs,
  optionalText,
  optionalUrl,
  path,
  pathOrOff,
  text,
  textList,
  inSection,
  type ConfigEntry,
  type ConfigSection,
} from './config-entries.js';

const MB = 1_000_000;
const DAY = 86_400;

/** README sub-headings and their introductions, in the order the README shows them. */
export const CONFIG_SECTIONS: readonly { readonly id: ConfigSection; readonly title: string; readonly intro?: string }[] = [
  { id: 'server', title: 'Server' },
  { id: 'speech', title: 'Speech' },
  { id: 'backends', title: 'Storage and scale-out' },
  { id: 'metrics', title: 'Metrics' },
  { id: 'limits', title: 'Limits', intro: "The spec's Limits table. Sizes accept `500MB`, `1MiB`, ..." },
  { id: 'streaming', title: 'Streaming' },
  {
    id: 'overload',
    title: 'Overload',
    intro:
      'Graceful overload (`docs/streaming.md` "Overload"): utilisation is the inference workers\' busy fraction measured from the live streams\' pieces. Past each threshold, in order: partials are thinned (one due partial in 2 to `OVERLOAD_PARTIALS_MAX_STRIDE`), interactive batches grow, new WebSocket sessions are refused (1013 `server_overloaded`). Finals of admitted sessions always run.',
  },
];

/**
 * Every environment variable the gateway reads: how it is parsed and checked, its default and
 * allowed values, and what it means. `loadConfig` reads the variables through this table only,
 * and the README's Configuration tables are generated from it (`npm run docs:config`).
 */
export const CONFIG_TABLE = {
  ...inSection('server', {
    PORT: integer(8080, 0, 65535, 'listening port (`0` picks a free one)'),
    HOST: text('0.0.0.0', { description: 'listening address', valuesText: 'address' }),
    DATA_DIR: path('data', 'SQLite database, stored files, generated secrets'),
    PUBLIC_BASE_URL: optionalUrl({ description: 'absolute base of signed URLs and links', defaultText: '`http://localhost:<port>`' }),
    LOG_LEVEL: oneOf('info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'least severe log lines written'),
    TRUST_PROXY: boolean(false, 'take the client address from `X-Forwarded-For` (behind a proxy)'),
    CORS_ALLOWED_ORIGINS: textList('*', 'origins that receive CORS headers'),
    ALLOW_PRIVATE_NETWORK: boolean(false, 'let outbound fetches (audio_url, probes, webhooks) reach loopback, private and link-local addresses'),
    OUTBOUND_ALLOWED_CIDRS: cidrList('private ranges outbound fetches may reach anyway, e.g. `10.20.0.0/16`'),
    SIGNING_SECRET: optionalText(
      {
        description: 'secret for signed URLs; set it when several gateways share links',
        defaultText: 'generated in `DATA_DIR/secrets`',
        valuesText: 'at least 32 characters',
      },
      (value, name) => (value.length < 32 ? `${name} must be at least 32 characters` : null),
    ),
    KEY_CACHE_SECONDS: decimal(2, 0, 300, {
      description: 'a key record is reused this long between lookups; revocations made by another process (the CLI, another gateway) take effect within it',
    }),
    SHUTDOWN_GRACE_MS: integer(10_000, 0, 600_000, 'time allowed for in-flight work on SIGTERM'),
  }),
  ...inSection('speech', {
    DEFAULT_LANGUAGE: oneOf('am', ['am', 'om', 'ti'], {
      description:
        "language of a WebSocket session or a batch that names none; `POST /v1/transcriptions` and the job API's `POST /transcribe` require `language` (400 `missing_required_field` / 422 without it)",
    }),
    MODELS_DIR: path('models', 'model folders (see `docs/model-format.md`)'),
    DEFAULT_MODELS: namePairs({
      description:
        "each language's default speech model, `language=model` (e.g. `am=small-am-v5-ensemble`: two networks as one, at about two-thirds of the live capacity of the shipped default small-am-v7), over the model folders' `default` flags; languages not named keep theirs. A model that is not one of that language's stops start-up with an error naming it",
      valuesText: 'comma-separated `language=model` pairs',
    }),
    INFERENCE_DEVICE: oneOf('cpu', ['cpu', 'cuda'], 'where models run (falls back to CPU when CUDA is unavailable)'),
    FILE_SPEECH_GATE: oneOf('silero', ['silero', 'off'], {
      description:
        'file transcription (REST, batch, job API) decodes only the speech the Silero VAD finds in each pause-cut piece, padded so no word edge is cut: noise, tones and music give no text, and a file without speech completes with `text: ""` and no segments (`docs/decoding.md`, *Speech gate*); when Silero is unavailable an energy check stands in (logged once); `off`: every piece with sound is decoded, as before',
    }),
    TELEPHONE_MODELS: oneOf('on', ['on', 'off'], {
      description:
        "audio sampled at 8 kHz or less (files by their stated rate; WebSocket `pcm_s16le_8k`, `mulaw_8k`, `alaw_8k`) with no `model` named runs on the default model's telephone model where its manifest names one (`telephone_model`: small-am-v7's, small-am-v6's and small-am-v2's is small-am-v2-telephone, small-am-v5-ensemble's small-am-v5-telephone, both fine-tuned on G.711 calls) and reports that model's name; a named model always runs itself (docs/model-format.md, *Telephone models*); `off`: the default reads narrow-band audio itself",
    }),
    INFERENCE_WORKERS: integer(0, 0, 256, { description: 'inference worker threads', defaultText: '`0` (automatic)' }),
    INFERENCE_INTRA_OP_THREADS: integer(0, 0, 256, {
      description: "onnxruntime threads each inference worker's model runs use (recognition and live streams)",
      defaultText: '`0` (automatic: the cores over the workers)',
    }),
    INFERENCE_WORKER_NICE: integerOrOff(10, 0, 19, {
      description:
        "Linux: inference worker threads (and their onnxruntime threads) run at this nice value with `SCHED_BATCH`, so the event loop wins the CPU over model runs; `off` keeps them at the event loop's priority",
    }),
    TRANSLATION_MODEL: text(
      'translate-am-en-ti-v1',
      {
        description:
          'translation model folder under `MODELS_DIR` serving `POST /translate/v1` (see `docs/translation-models.md`); `off` disables translation. A missing or broken folder is logged and the endpoint answers 500 `service_unavailable`',
        valuesText: 'folder name, or `off`',
      },
      (value, name) =>
        /^[A-Za-z0-9._-]*$/.test(value.trim()) && !value.includes('..') ? null : `${name} must be a folder name under MODELS_DIR, got "${value}"`,
    ),
    TRANSLATION_MAX_BATCH: integer(16, 1, 256, 'sentences of concurrent translation requests run as one batch'),
    TRANSLATION_MAX_WAIT_MS: integer(5, 0, 1000, 'how long a sentence waits for others to fill its translation batch'),
    TRANSLATION_MAX_QUEUED: integer(
      1024,
      1,
      100_000,
      'sentences held in the translation queue, per decoding mode: a text request holds all its sentences, a file translation unit a window of two beam batches; a request that does not fit is refused (503 `server_overloaded` with `retry_after` from the measured drain rate; file jobs wait)',
    ),
    TRANSLATION_MAX_QUEUED_PER_ACCOUNT: integer(
      256,
      1,
      100_000,
      "sentences one account holds in the translation queue, per decoding mode (at most `TRANSLATION_MAX_QUEUED`), so one account's backlog leaves room for the others; accounts are served round-robin",
    ),
    TRANSLATION_MAX_REQUEST_SENTENCES: integer(
      256,
      1,
      100_000,
      'sentences in one `POST /translate/v1` text (at most `TRANSLATION_MAX_QUEUED_PER_ACCOUNT`); more is 400 `invalid_field_value`',
    ),
    TRANSLATION_DECODING_GUARDS: oneOf('on', ['on', 'off'], {
      description:
        'translation decoding guards (`docs/translation-models.md`, *Decoding guards*): no repeated token n-grams, token or letter runs, a letter cap per direction against the source, and loop detection with a fallback to the best sound hypothesis; a sentence still degenerate is 400 `untranslatable_text` on `POST /translate/v1` and a `TRANSLATION_ERROR` unit in file jobs. `off`: decoding without them, as before',
    }),
    TRANSLATION_TRANSFER: oneOf('on', ['on', 'off'], {
      description:
        "word and phrase transfer (`docs/translation-models.md`, *Transfer directions*): the directions the translation model folder lists under `word_transfer` (with the shipped model all six: its network scores far below the tables on held-out text) are answered from those tables, a gloss in the source's word order that never loops. `off`: every direction goes to the network",
    }),
    DIARIZATION_MODEL: path('models/diarization/speaker-ivector-v3.json', {
      description:
        'the speaker model speaker diarization uses (`models/diarization/README.md`); when it is missing, diarized jobs complete with a warning and no speakers',
    }),
    DIARIZATION_EMBEDDING_MODEL: optionalPath({
      description:
        'a pretrained speaker-embedding ONNX of the WeSpeaker / 3D-Speaker kind, as published for sherpa-onnx (`docs/public-models.md`): both backends then embed their speech windows with it and cluster on cosine similarity (untuned defaults), instead of the built-in speaker features of `DIARIZATION_MODEL`; a missing file, a wrong signature or missing metadata stops start-up with an error naming the file. Unset: the built-in features',
    }),
    DIARIZATION_OVERLAP_MODEL: pathOrOff('models/diarization/overlap-detector-v1.json', {
      description:
        "the overlapped-speech detector with which `backend_a` gives stretches where two people speak at once a second speaker (`docs/diarization.md`, *Overlapped speech*); `off`: one speaker at a time; when the file is missing, one speaker at a time and a message in the diarized jobs' `warnings`",
    }),
    SEGMENT_TYPE_MODEL: path('models/segment-types/segment-types-v1.json', {
      description:
        'the segment-type model (music detection and male / female voice; `docs/diarization.md`) used on diarized files; when it is missing, diarized jobs complete with a warning and `speech` segments',
    }),
    DIARIZATION_SPEECH_DETECTION: oneOf('silero', ['silero', 'energy'], {
      description:
        "where diarization looks for speech: `silero` (Silero speech spans joined with the file's energy gate: quiet speakers found, DER 4-8 points lower on the held-out sets) or `energy` (the gate alone: about 0.3 s less per minute of audio; `docs/diarization.md`)",
    }),
    DIARIZATION_TIMEOUT_MS: integer(300_000, 1, 3_600_000, {
      description: "a file's diarization (its own worker thread) is stopped after this long; the file then completes with its plain transcript and a warning",
    }),
    JOB_WORKERS: integer(4, 1, 256, 'jobs transcribed at once by this process (they share the batched inference pool)'),
    JOB_WORKERS_PER_ACCOUNT: integer(0, 0, 256, {
      description:
        "of this process's `JOB_WORKERS`, the most one account's jobs hold at once (its further jobs wait in the queue), so one account cannot hold every worker",
      defaultText: '`0` (`JOB_WORKERS - 1`, at least 1)',
    }),
    FFMPEG_PATH: optionalText({ description: 'use a system ffmpeg instead', defaultText: 'bundled binary', valuesText: 'path' }),
    FFPROBE_PATH: optionalText({ description: 'use a system ffprobe instead', defaultText: 'bundled binary', valuesText: 'path' }),
    YTDLP_PATH: optionalText({
      description: 'a yt-dlp executable: lets `POST /v1/media/probe` read streaming-site pages (all its traffic goes through the outbound guard)',
      valuesText: 'path',
    }),
  }),
  ...inSection('backends', {
    STORE_BACKEND: oneOf('sqlite', ['sqlite', 'postgres'], '`sqlite` (one process, file under `DATA_DIR`) or `postgres` (shared by every gateway process)'),
    DATABASE_URL: optionalText({
      description: 'PostgreSQL URL, required with `STORE_BACKEND=postgres`; `?options=-c%20search_path%3Dname` picks a schema',
      valuesText: 'URL',
    }),
    DATABASE_POOL_SIZE: integer(10, 1, 500, 'PostgreSQL connections this process keeps at most'),
    QUEUE_BACKEND: oneOf('in-process', ['in-process', 'redis'], {
      description: '`in-process` (jobs run where they were submitted) or `redis` (any gateway runs any job; needs `STORE_BACKEND=postgres`)',
    }),
    CACHE_BACKEND: oneOf('memory', ['memory', 'redis'], '`redis` shares media probe results with every gateway process'),
    RATE_LIMIT_BACKEND: oneOf('memory', ['memory', 'redis'], {
      description: '`memory` (one process) or `redis` (shared by every gateway process): request windows and open WebSocket sessions per key',
    }),
    REDIS_URL: text('redis://127.0.0.1:6379', { description: 'Redis for the distributed parts', valuesText: 'URL' }),
    REDIS_KEY_PREFIX: text(
      'gw',
      {
        description: 'prefix of every Redis key the gateway writes (deployments sharing one Redis use different ones)',
        valuesText: '1 to 64 of `A-Z a-z 0-9 : _ . -`',
      },
      (value, name) => (/^[A-Za-z0-9:_.-]{1,64}$/.test(value) ? null : `${name} must be 1 to 64 of A-Z a-z 0-9 : _ . -, got "${value}"`),
    ),
    JOB_LEASE_SECONDS: integer(60, 1, 3600, {
      description: "a running job's claim, renewed every third of it; a job whose gateway stopped is taken over this long after its last renewal",
    }),
    FILES_BACKEND: oneOf('local', ['local', 's3'], {
      description: '`local` (files under `DATA_DIR/files`) or `s3` (an S3-compatible bucket, see [S3-compatible storage](#s3-compatible-storage))',
    }),
    S3_BUCKET: optionalText('the bucket (required with `FILES_BACKEND=s3`; the gateway does not create it)'),
    S3_REGION: text('us-east-1', "the bucket's region"),
    S3_ENDPOINT: optionalUrl({ description: 'an S3-compatible server, e.g. `http://minio:9000`', defaultText: '(AWS)' }),
    S3_FORCE_PATH_STYLE: boolean(false, '`endpoint/bucket/key` URLs (MinIO and most S3-compatible servers need `true`)'),
    S3_ACCESS_KEY_ID: optionalText({
      description:
        "static credentials, set together with `S3_SECRET_ACCESS_KEY`; without both the AWS SDK's default chain (environment, profile, instance or task role)",
    }),
    S3_SECRET_ACCESS_KEY: optionalText('the secret of `S3_ACCESS_KEY_ID` (redacted in the start-up log)'),
    S3_PREFIX: keyPrefix('key prefix inside the bucket, so deployments can share one'),
    S3_PRESIGNED_DOWNLOADS: boolean(true, {
      description:
        'with `s3`: the signed audio, transcript and media playback links answer 302 to a presigned GET on the bucket (valid 5 minutes; Range and HEAD are served by the bucket) instead of streaming the bytes through the gateway',
    }),
    S3_DIRECT_UPLOADS: boolean(false, {
      description:
        'with `s3`: `GET /v1/uploads/signed-url` hands out a presigned PUT to the bucket (same flow for the client: PUT with the given `Content-Type`, then finalize); the bytes are checked (size, bound `content_length`, audio content) at finalize or when a job first uses the `file_url`',
    }),
  }),
  ...inSection('metrics', {
    METRICS_ENABLED: boolean(true, 'collect Prometheus metrics (off: no metrics anywhere)'),
    METRICS_PORT: integerOrOff(9464, 0, 65535, {
      description: 'port of the metrics listener, which serves only `GET /metrics` (`0` picks a free one; `off`: no metrics listener)',
    }),
    METRICS_HOST: text('127.0.0.1', {
      description: 'address of the metrics listener; `0.0.0.0` lets a Prometheus on another host (or container) scrape it',
      valuesText: 'address',
    }),
    METRICS_ON_MAIN_PORT: oneOf('off', ['off', 'admin'], {
      description: '`admin` also serves `GET /metrics` on `PORT` to bearer keys with the `admin` scope; `off` keeps it off the public port',
    }),
  }),
  ...inSection('limits', {
    RATE_LIMIT_PER_MINUTE: integer(60, 1, 1_000_000, 'REST requests per minute per key'),
    RATE_LIMIT_PER_HOUR: integer(0, 0, 100_000_000, {
      description: 'REST requests per hour per key (always counted in `/v1/usage`)',
      defaultText: '`0` (not limited)',
    }),
    RATE_LIMIT_PER_DAY: integer(0, 0, 1_000_000_000, {
      description: 'REST requests per day per key (always counted in `/v1/usage`)',
      defaultText: '`0` (not limited)',
    }),
    JOB_SUBMISSIONS_PER_HOUR: integer(100, 1, 1_000_000, 'job API submissions per hour per key'),
    MAX_CONCURRENT_JOBS: integer(10, 1, 10_000, 'running transcription jobs per key'),
    DAILY_AUDIO_MINUTES: decimal(1440, 0.01, 10_000_000, 'audio minutes per key per UTC day'),
    BATCH_MAX_FILES: integer(100, 1, 10_000, 'files per batch'),
    MAX_AUDIO_BYTES: bytes(500 * MB, 1024, 1e12, 'upload and audio size'),
    MAX_AUDIO_SECONDS: integer(4 * 3600, 1, 7 * DAY, {
      description:
        'longest audio per file, by its probed duration before any work and by what is decoded (400 `file_too_large` beyond; a WAV header stating a sample rate under 8 kHz or over 192 kHz is 400 `invalid_audio_format`); the daily quota is charged the decoded duration',
    }),
    MAX_JSON_BODY_BYTES: bytes(1 * MB, 1024, 100 * MB, 'JSON and form request bodies'),
    LIST_MAX_LIMIT: integer(200, 1, 10_000, 'largest page of a list'),
    SYNC_WAIT_SECONDS: integer(60, 0, 3600, 'how long `mode=sync` waits before answering `queued`/`processing`'),
    SIGNED_URL_TTL_SECONDS: integer(3600, 10, 7 * DAY, 'audio and transcript links'),
    MEDIA_URL_DEFAULT_TTL_SECONDS: integer(3600, 10, 7 * DAY, 'media playback links, when a request names no lifetime (at most `MEDIA_URL_MAX_TTL_SECONDS`)'),
    MEDIA_URL_MAX_TTL_SECONDS: integer(7 * DAY, 10, 30 * DAY, 'longest lifetime of a media playback link'),
    DOWNLOAD_TIMEOUT_SECONDS: integer(300, 1, DAY, 'fetching an `audio_url`'),
    PROBE_TIMEOUT_SECONDS: integer(20, 1, 600, 'media probe window'),
    PROBE_CACHE_TTL_SECONDS: integer(300, 0, DAY, 'media probe results are reused this long'),
    WEBHOOK_TIMEOUT_SECONDS: integer(10, 1, 120, 'one delivery attempt'),
    WEBHOOK_RETRY_SCHEDULE: integerList([60, 300, 1800, 7200, 86400], 0, 30 * DAY, 'seconds from a failed attempt to the next one (one retry per entry)'),
    WEBHOOK_DISABLE_AFTER_FAILURES: integer(100, 1, 1_000_000, 'consecutive failed delivery attempts before a webhook is disabled'),
    UPLOAD_RETENTION_SECONDS: integer(DAY, 60, 365 * DAY, 'direct uploads never finalized are deleted this long after their upload URL was issued'),
    TRANSLATION_JOB_EXPIRY_HOURS: decimal(48, 0.0003, 168, {
      description: 'a finished file translation job (`POST /translate`) is removed this long after submission (its output files stay)',
    }),
    TRANSLATION_OUTPUT_URL_TTL_SECONDS: integer(DAY, 10, 7 * DAY, 'signed URLs of file translation outputs (`outputs[].target_uri`)'),
    TRANSLATION_MAX_UNITS: integer(500, 1, 500, 'files × target languages per file translation job (400 beyond)'),
    TRANSLATION_MAX_SOURCE_BYTES: bytes(10 * MB, 1024, 1e9, 'one source file of a file translation job'),
    TRANSLATION_UNIT_CONCURRENCY: integer(4, 1, 64, 'units of one file translation job downloaded, translated and written at once'),
    TRANSLATION_RETRY_DELAY_MS: integer(500, 0, 60_000, 'first wait before retrying a failed translation of a unit (doubling; 3 retries)'),
    TRANSLATION_QUEUE_WAIT_SECONDS: integer(
      600,
      0,
      DAY,
      "how long a file translation unit waits in all for room in a full translation queue (retrying after each refusal's `retry_after`, no retry spent) before it fails with `TRANSLATION_ERROR`",
    ),
    WS_MAX_CONNECTIONS_PER_KEY: integer(5, 1, 100_000, 'concurrent WebSocket sessions per key'),
    WS_MAX_SESSION_SECONDS: integer(1800, 1, DAY, 'WebSocket session length'),
    WS_MAX_MESSAGES_PER_SECOND: integer(100, 1, 1_000_000, 'messages per second per connection'),
    WS_MAX_BYTES_PER_SECOND: bytes(1 * MB, 1024, 1e10, 'audio bytes per second per connection'),
    WS_MAX_MESSAGE_BYTES: bytes(1 * MB, 1024, 100 * MB, 'one WebSocket message'),
    WS_MAX_BUFFER_BYTES: bytes(50 * MB, 1024, 1e10, 'buffered audio per session (close 1009 beyond)'),
    WS_MAX_AUDIO_SPEED: decimal(4, 0, 1000, {
      description:
        'audio per connection at most this many times real time, measured on the decoded stream (token bucket; 4029 `audio_rate_exceeded` beyond); `0`: only `WS_MAX_BYTES_PER_SECOND`',
    }),
    WS_AUDIO_BURST_SECONDS: integer(
      60,
      1,
      DAY,
      'seconds of audio a connection may send ahead of real time at once (the bucket of `WS_MAX_AUDIO_SPEED`: a start or a resumed backlog)',
    ),
    WS_MAX_PROCESS_BUFFER_BYTES: bytes(0, 0, 1e13, {
      description:
        'audio all WebSocket sessions of this process may hold (rings and pieces); beyond it the session holding the most closes 1009 `buffer_limit_exceeded`, and from 90 % of it new sessions are refused (1013)',
      defaultText: '`0` (an eighth of the memory: the cgroup limit, else the RAM)',
    }),
    WS_IDLE_TIMEOUT_SECONDS: integer(300, 1, DAY, 'seconds without a client message before a WebSocket session is finished and closed (1000)'),
  }),
  ...inSection('streaming', {
    WS_ENDPOINT_SILENCE_MS: integer(500, 100, 10_000, 'silence that ends a turn (`turn_detection=server_vad`, `opus_raw_16k`)'),
    WS_MAX_TURN_MS: integer(30_000, 1_000, 120_000, 'longer turns are cut (`forced_split`)'),
    WS_PARTIAL_INTERVAL_MS: integer(500, 100, 60_000, 'how often an open turn is re-recognised for `partial` messages (`partial_results=true`)'),
    LIVE_FINAL_PASS: oneOf('second_pass', ['second_pass', 'stream'], {
      description:
        'WebSocket turns of sessions with a live stream (`partial_results=true`, `LIVE_INCREMENTAL_PARTIALS=on`): `second_pass` (default) decodes each turn again as REST decodes it (1.1 points lower CER on held-out speech than the stream\'s own frames, at one more model pass per turn; docs/streaming.md "Incremental recognition"); `stream` transcribes the turn from the frames its stream computed',
    }),
    LIVE_PARTIAL_MODELS: namePairs({
      description:
        'WebSocket partials of sessions on one model from another model\'s live stream, `model=partials_model` (e.g. `small-am-v2=small-am-stream-v3`): the second model (same language and vocabulary, with a streaming step graph) computes the partials, the first still decodes every turn (its second pass, also with `LIVE_FINAL_PASS=stream`); docs/streaming.md "Partials from a cheaper model"',
      valuesText: 'comma-separated `model=partials_model` pairs',
    }),
    LIVE_PARTIAL_TAIL_BEAM: integer(8, 0, 1024, {
      description:
        "WebSocket partials from live streams: the beam over each partial's provisional tail (the frames the model may still revise; 2.4 s for small-am-v2), at most the model's beam; committed frames, `stable_text` and every turn keep the model's beam. `0`: the model's own beam. On held-out speech 8 (against small-am-v2's 16) costs 0.84x the partials' worker time and reads 0.2 points worse in the last partial (docs/streaming.md \"Incremental recognition\")",
    }),
    LIVE_INCREMENTAL_PARTIALS: oneOf('on', ['on', 'off'], {
      description:
        'WebSocket partials: `on` (default) feeds each open turn to a live stream on the model\'s streaming step graph (models with `streaming.onnx` and `stream-stats.json`), so each frame is computed once per turn (docs/streaming.md "Incremental recognition"); `off`: every partial re-runs the model over the whole open turn',
    }),
    LIVE_SPEECH_GATE: oneOf('on', ['on', 'off'], {
      description:
        'WebSocket: `on` (default) decodes and sends text only for audio the shared Silero VAD confirms as speech (turns, `TRANSCRIBE` and final pieces, partials; docs/streaming.md "Speech gate"); `off`: every turn the VAD cuts is decoded (tones, music and noise become text)',
    }),
    WS_TOKEN_TTL_SECONDS: integer(60, 5, 3600, 'lifetime of a single-use session token from `POST /v1/ws/tokens`'),
    WS_MAX_UNSENT_BYTES: bytes(4 * MB, 64 * 1024, 1e9, 'server messages a client may leave unread before it is closed (1008)'),
    WS_LAG_WARNING_MS: integer(3_000, 100, 600_000, 'a `lag` message is sent while a piece waits longer than this'),
    WS_RESUME_WINDOW_SECONDS: integer(60, 0, 3600, {
      description:
        'how long a session whose connection dropped (no close frame) waits, still decoding, for its client to reconnect with `resume_token` (docs/streaming.md "Resuming a session"); its connection slot and capacity stay held; `0` turns resuming off',
    }),
  }),
  ...inSection('overload', {
    WS_MAX_SESSIONS: integer(0, 0, 1_000_000, {
      description: 'a fixed cap on live WebSocket sessions in this process (1013 beyond)',
      defaultText: '`0` (the estimate decides)',
    }),
    OVERLOAD_PARTIALS_OFF_AT: decimal(0.6, 0, 10, 'demand utilisation (measured work plus the skipped partials) at which `partial` messages are thinned'),
    OVERLOAD_PARTIALS_MAX_STRIDE: integer(4, 0, 100, {
      description:
        'past `OVERLOAD_PARTIALS_OFF_AT`, one due `partial` in at most this many is computed: thinned to one in 2 at once, then one more skipped every 5 s while the workers\' own utilisation stays at or over the threshold, one fewer once it is 0.1 under it; at the widest, none while the workers stay at or over `OVERLOAD_LARGER_BATCHES_AT` (docs/streaming.md "Overload"); `0`: partials stop at the threshold',
    }),
    OVERLOAD_LARGER_BATCHES_AT: decimal(0.75, 0, 10, {
      description: 'utilisation at which interactive batches wait `OVERLOAD_BATCH_WAIT_MS` to fill (at least `OVERLOAD_PARTIALS_OFF_AT`)',
    }),
    OVERLOAD_FULL_AT: decimal(0.85, 0.00001, 10, {
      description: 'utilisation at which new WebSocket sessions are refused (1013, with `retry_after`; at least `OVERLOAD_LARGER_BATCHES_AT`)',
    }),
    OVERLOAD_MAX_INFERENCE_WAIT_MS: integer(150, 1, 600_000, 'smoothed inference queue wait of stream pieces that counts as full'),
    OVERLOAD_HOST_CPU_FULL_AT: decimal(0.9, 0, 1, {
      description:
        "the host's CPU utilisation (busy cores over its cores; the host is the cgroup's CPU quota where one is set, else the machine, a VM's steal time counted busy; decayed as the inference load is) at which new WebSocket sessions are refused (1013, reason \"the host's CPU is busy\"); a session is also refused when the cores a warm session holds (this process's CPU less its REST and job recognition, per session; sessions still in their first seconds are charged as a share of the whole, so a burst of connections is not refused for its set-up) would take the host there. It sees what the inference estimate misses: the event loop, Silero, onnxruntime's threads and other processes holding the cores. Other processes' load leaves fewer sessions room but is not charged to them. `0`: not watched, the inference estimate alone decides (docs/streaming.md \"Overload\")",
    }),
    OVERLOAD_BATCH_WAIT_MS: integer(20, 0, 10_000, 'how long an interactive batch waits to fill at the larger-batches level'),
    JOB_MAX_QUEUE_WAIT_SECONDS: decimal(600, 0, 30 * DAY, {
      description: "new jobs get 503 `server_overloaded` with `Retry-After` while the job queue's estimated wait is longer (`0`: never)",
    }),
  }),
} as const satisfies Record<string, ConfigEntry<unknown>>;

export type ConfigName = keyof typeof CONFIG_TABLE;
export type ConfigValues = { readonly [K in ConfigName]: (typeof CONFIG_TABLE)[K] extends ConfigEntry<infer T> ? T : never };

/** Reads every variable of the table from `env`; problems (bad values, which fall back to their default) are collected, not thrown. */
export function readConfigTable(env: Readonly<Record<string, string | undefined>>, cwd: string): { values: ConfigValues; problems: string[] } {
  const ctx = { problems: [] as string[], cwd };
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(CONFIG_TABLE) as [ConfigName, ConfigEntry<unknown>][]) {
    const value = env[name];
    values[name] = spec.parse(name, value === undefined || value.trim() === '' ? undefined : value.trim(), ctx);
  }
  return { values: values as ConfigValues, problems: ctx.problems };
}
