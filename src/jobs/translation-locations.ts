import { tryUrl } from '../platform/net/try-url.js';

/**
 * Where file translation reads and writes, parsed from the request's URIs:
 * - sources: `https://` URLs (fetched through the outbound guard) or `svc://` URIs in the
 *   gateway's storage (`svc://media/<file_id>`: an upload; `svc://<path>`: a file under the
 *   account's storage area, e.g. an earlier job's output);
 * - destinations: `svc://<prefix>` (the account's storage area), `s3://<bucket>/<prefix>` (the
 *   gateway's bucket with FILES_BACKEND=s3; the same account area inside it) or an `https://`
 *   prefix that receives one HTTP PUT per output (a copy stays in the gateway's storage for
 *   the signed URL).
 */

export type SourceLocation =
  | { readonly kind: 'https'; readonly url: string }
  | { readonly kind: 'media'; readonly uri: string }
  | { readonly kind: 'svc'; readonly path: string };

export type DestinationLocation = { readonly kind: 'storage'; readonly path: string } | { readonly kind: 'https'; readonly base: string };

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/** A relative storage path of `[A-Za-z0-9._-]` segments (no `.`/`..`), or null. */
function storagePath(raw: string, allowEmpty: boolean): string | null {
  const segments = raw.split('/').filter((s) => s.length > 0);
  if (segments.length === 0) return allowEmpty ? '' : null;
  if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')) return null;
  return segments.join('/');
}

/** The storage key of an `svc://<path>` file of an account (sources and svc:// or s3:// outputs). */
export const accountFileKey = (accountId: string, path: string): string => `accounts/${accountId}/files/${path}`;

function httpsUrl(raw: string): URL | string {
  const url = tryUrl(raw);
  if (url === null) return 'is not a valid URL';
  if (url.protocol !== 'https:') return 'must be an https:// URL or an svc:// URI';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials in the URL';
  return url;
}

/** A source URI, or the reason it is refused (a 422 message). */
export function parseSourceUri(raw: string): SourceLocation | string {
  if (raw.startsWith('svc://')) {
    if (raw.startsWith('svc://media/')) return { kind: 'media', uri: raw };
    const path = storagePath(raw.slice('svc://'.length), false);
    return path === null ? 'svc:// URIs name a file by path segments of letters, digits, ".", "_" and "-"' : { kind: 'svc', path };
  }
  const url = httpsUrl(raw);
  return typeof url === 'string' ? url : { kind: 'https', url: url.toString() };
}

/** A destination prefix, or the reason it is refused; `s3Bucket` is the gateway's bucket (null without S3 storage). */
export function parseDestinationUri(raw: string, s3Bucket: string | null): DestinationLocation | string {
  if (raw.startsWith('svc://')) {
    const path = storagePath(raw.slice('svc://'.length), false);
    return path === null ? 'svc:// prefixes are path segments of letters, digits, ".", "_" and "-"' : { kind: 'storage', path };
  }
  if (raw.startsWith('s3://')) {
    if (s3Bucket === null) return 's3:// destinations need S3 storage on this server (FILES_BACKEND=s3); use an svc:// or https:// prefix';
    const [bucket = '', ...rest] = raw.slice('s3://'.length).split('/');
    if (bucket !== s3Bucket) return `s3:// destinations must name this server's bucket (${s3Bucket})`;
    const path = storagePath(rest.join('/'), false);
    return path === null ? 's3:// destinations need a prefix of letters, digits, ".", "_" and "-" after the bucket' : { kind: 'storage', path };
  }
  const url = httpsUrl(raw);
  if (typeof url === 'string') return url.replace('or an svc:// URI', 'an svc:// prefix or an s3:// prefix');
  if (url.search !== '' || url.hash !== '') return 'an https:// destination is a prefix: no query or fragment';
  const base = url.toString();
  return { kind: 'https', base: base.endsWith('/') ? base : `${base}/` };
}
