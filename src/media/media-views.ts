import type { MediaLibrary } from './media-library.js';
import type { MediaRecord } from '../platform/db/media-records.js';

/** A file as the API shows it (schema MediaFile). */
export function mediaView(library: MediaLibrary, record: MediaRecord): Record<string, unknown> {
  return {
    object: 'media',
    file_id: record.id,
    status: record.status,
    filename: record.filename,
    content_type: record.contentType,
    size_bytes: record.sizeBytes,
    format: record.format,
    duration_seconds: record.durationSeconds,
    file_url: library.fileUrl(record.id),
    svc_uri: library.svcUri(record.id),
    created_at: record.createdAt,
    uploaded_at: record.uploadedAt,
    finalized_at: record.finalizedAt,
  };
}
