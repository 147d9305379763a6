import { Type } from '@sinclair/typebox';
import { MEDIA_STATUSES } from '../../platform/db/media-records.js';
import { named, Nullable } from '../../platform/http/named-schema.js';
import { cursorListSchema } from '../list-paging.js';

const mediaFileFields = {
  object: Type.Literal('media'),
  file_id: Type.String({ description: 'Stable id of the file (file_...)' }),
  status: Type.Union(
    MEDIA_STATUSES.map((s) => Type.Literal(s)),
    { description: 'pending: upload URL issued, no bytes yet; uploaded: bytes received (usable as audio), not finalized; ready: a media asset' },
  ),
  filename: Type.String(),
  content_type: Type.String({ description: 'Media type recognised from the content (audio/mpeg, audio/wav, video/webm, ...)' }),
  size_bytes: Nullable(Type.Integer()),
  format: Nullable(Type.String({ description: 'Container recognised from the content: mp3, wav, ogg, flac, m4a, webm or aac' })),
  duration_seconds: Nullable(Type.Number()),
  file_url: Type.String({ description: 'Use as `audio_url` of POST /v1/transcriptions (resolved inside the gateway, never fetched)' }),
  svc_uri: Type.String({ description: 'svc://media/<file_id>: the same file, for `audio_urls` of a batch' }),
  created_at: Type.String({ format: 'date-time' }),
  uploaded_at: Nullable(Type.String({ format: 'date-time' })),
  finalized_at: Nullable(Type.String({ format: 'date-time' })),
};

export const MediaFileSchema = named(
  'MediaFile',
  Type.Object(mediaFileFields, { description: 'An uploaded file / media asset. Belongs to the account (every key of it), never to a job.' }),
);

export const MediaPlaybackSchema = named(
  'MediaPlayback',
  Type.Object({
    ...mediaFileFields,
    playback_url: Type.String({ description: 'Signed URL: GET (with Range) or HEAD, no credential' }),
    expires_at: Type.String({ format: 'date-time' }),
    expires_in: Type.Integer({ description: 'Seconds the playback URL is valid' }),
  }),
);

export const MediaListSchema = cursorListSchema('MediaList', MediaFileSchema);

export const SignedUploadSchema = named(
  'SignedUpload',
  Type.Object({
    upload_url: Type.String({ description: 'PUT the bytes here with the Content-Type given (and Content-Length, when one was announced)' }),
    file_url: Type.String(),
    file_id: Type.String(),
    svc_uri: Type.String(),
    method: Type.Literal('PUT'),
    headers: Type.Object({ 'Content-Type': Type.String() }, { description: 'Headers the PUT must carry' }),
    expires_at: Type.String({ format: 'date-time', description: 'The upload URL expires then (SIGNED_URL_TTL_SECONDS)' }),
  }),
);

export const SignedUploadQuery = Type.Object({
  filename: Type.String({ minLength: 1, maxLength: 1024, description: 'Name of the file (kept with the media asset)' }),
  content_type: Type.Optional(Type.String({ default: 'audio/mpeg', description: 'Media type the PUT will send; bound into the signature' })),
  content_length: Type.Optional(Type.Integer({ minimum: 1, description: 'Exact size in bytes the PUT will send (optional); bound into the signature' })),
});

export const FileIdParams = Type.Object({ file_id: Type.String({ description: 'The file id (file_...)' }) });

/** GET /v1/media/{file_id}: `expires_in` bounded by MEDIA_URL_MAX_TTL_SECONDS (one range, one message). */
export function mediaGetQuery(defaultTtlSeconds: number, maxTtlSeconds: number) {
  return Type.Object({
    expires_in: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxTtlSeconds,
        'x-unit': 'seconds',
        description: `Seconds the playback URL stays valid: 1 to ${maxTtlSeconds} (MEDIA_URL_MAX_TTL_SECONDS), default ${defaultTtlSeconds} (MEDIA_URL_DEFAULT_TTL_SECONDS)`,
      }),
    ),
  });
}

export const MediaListQuery = Type.Object({
  status: Type.Optional(Type.Union(MEDIA_STATUSES.map((s) => Type.Literal(s)))),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 50, description: 'Page size, at most LIST_MAX_LIMIT' })),
});

export const UploadMultipart = Type.Object({
  file: Type.String({ format: 'binary', description: 'The audio: MP3, WAV, OGG, FLAC, M4A or WEBM (AAC too), up to MAX_AUDIO_BYTES (500 MB)' }),
});

export const ProbeRequestSchema = named(
  'MediaProbeRequest',
  Type.Object({
    url: Type.String({ minLength: 1, maxLength: 8192, description: 'http(s) URL of audio, video, an HLS playlist, or a streaming-site page (needs yt-dlp)' }),
  }),
);

export const ProbeResultSchema = named(
  'MediaProbe',
  Type.Object({
    object: Type.Literal('media_probe'),
    url: Type.String({ description: 'The URL as submitted' }),
    duration_seconds: Nullable(Type.Number({ description: 'null for live streams and when unknown' })),
    title: Nullable(Type.String()),
    thumbnail: Nullable(Type.String({ description: 'Thumbnail URL (streaming-site pages)' })),
    uploader: Nullable(Type.String({ description: 'Uploader or channel; for direct files the artist tag' })),
    is_live: Type.Boolean({ description: 'A live stream (Icecast/SHOUTcast radio, live HLS, live streaming-site broadcast)' }),
    media_type: Nullable(Type.Union([Type.Literal('audio'), Type.Literal('video')])),
    format: Nullable(Type.String({ description: 'Container (ffprobe demuxer), hls, or the streaming site file extension' })),
    extractor: Type.Union([Type.Literal('ffprobe'), Type.Literal('hls'), Type.Literal('yt-dlp')]),
    cached: Type.Boolean({ description: 'Answered from the probe cache (PROBE_CACHE_TTL_SECONDS)' }),
    probed_at: Type.String({ format: 'date-time' }),
  }),
);
