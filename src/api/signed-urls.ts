// What the routes behind signed URLs share: the `expires` and `sig` query, the answers of a
// download (serveStoredObject) and the 403 for a failed signature check.
import { Type } from '@sinclair/typebox';
import type { SignatureCheck } from '../platform/auth/url-signer.js';
import { ApiError } from '../platform/errors/api-error.js';

/** The query of a signed download URL; the route's signer checks it against the path. */
export const SignedUrlQuery = Type.Object({ expires: Type.Optional(Type.String()), sig: Type.Optional(Type.String()) });

export const SIGNED_URL_DESCRIPTION = 'Needs no credential: `expires` and `sig` authorise the request. Altered or expired links get 403.';

/** The answers of a download through a signed URL: the file (`contentType`), a Range, an S3 redirect, 403, 404 (`notFound`) and 416. */
export function signedDownloadResponses(contentType: string, notFound: string) {
  return {
    200: { description: 'The file', contentType },
    206: { description: 'Partial content (Range)' },
    302: { description: 'With S3 storage (S3_PRESIGNED_DOWNLOADS): a presigned GET on the bucket, valid 5 minutes (supports Range)' },
    403: { description: 'invalid_signature or expired_signature' },
    404: { description: notFound },
    416: { description: 'Range not satisfiable' },
  };
}

/** A signature check that did not pass → 403 expired_signature or invalid_signature. */
export function requireValidSignature(check: SignatureCheck): void {
  if (check !== 'valid') throw new ApiError(check === 'expired' ? 'expired_signature' : 'invalid_signature');
}
