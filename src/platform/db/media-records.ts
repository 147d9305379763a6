/**
 * - `pending`: a signed upload URL was issued; no bytes yet
 * - `uploaded`: the bytes arrived through the signed PUT; usable as audio, not yet finalized
 * - `ready`: a media asset (finalized, or uploaded through POST /v1/uploads)
 */
export const MEDIA_STATUSES = ['pending', 'uploaded', 'ready'] as const;
export type MediaStatus = (typeof MEDIA_STATUSES)[number];

/** How the bytes came in: multipart POST /v1/uploads, or the signed-URL PUT. */
export type MediaSource = 'upload' | 'signed_upload';

/** An uploaded file. Keyed on the account (survives key rotation); never owned by a job. */
export interface MediaRecord {
  readonly id: string;
  readonly accountId: string;
  /** The key that created it (for the record only: every key of the account may use it). */
  readonly keyId: string;
  readonly status: MediaStatus;
  readonly source: MediaSource;
  readonly storageKey: string;
  readonly filename: string;
  readonly contentType: string;
  /** The size announced when the signed URL was requested, if any. */
  readonly expectedBytes: number | null;
  readonly sizeBytes: number | null;
  /** Container recognised from the content (mp3, wav, ogg, flac, m4a, webm, aac). */
  readonly format: string | null;
  readonly durationSeconds: number | null;
  readonly createdAt: string;
  readonly uploadedAt: string | null;
  readonly finalizedAt: string | null;
  readonly updatedAt: string;
}

export type MediaPatch = Partial<Pick<MediaRecord, 'status' | 'sizeBytes' | 'format' | 'durationSeconds' | 'uploadedAt' | 'finalizedAt' | 'contentType'>>;

export interface MediaListFilter {
  readonly accountId: string;
  readonly status?: MediaStatus;
  readonly cursor?: string;
  readonly limit: number;
}

export interface MediaPage {
  readonly items: MediaRecord[];
  readonly total: number;
  readonly nextCursor: string | null;
}

/** Persistent media records. */
export interface MediaStore {
  insert(record: MediaRecord): Promise<void>;
  get(id: string): Promise<MediaRecord | null>;
  /** Applies `patch` only when the status is one of `fromStatuses` (any when omitted); null otherwise. */
  update(id: string, patch: MediaPatch, fromStatuses?: readonly MediaStatus[]): Promise<MediaRecord | null>;
  /** Newest first; throws InvalidCursorError for a cursor it did not issue. */
  list(filter: MediaListFilter): Promise<MediaPage>;
  /** True when a record was removed; with `fromStatuses`, only a record in one of them is. */
  delete(id: string, fromStatuses?: readonly MediaStatus[]): Promise<boolean>;
  /** Records not yet `ready` created before `before` (ISO), oldest first. */
  findUnfinalized(before: string, limit: number): Promise<MediaRecord[]>;
}
