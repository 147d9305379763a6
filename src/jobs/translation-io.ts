import type { Readable } from 'node:stream';
import { isApiError } from '../platform/errors/api-error.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import type { OutboundGuard } from '../platform/net/outbound-guard.js';
import { safeRequest } from '../platform/net/safe-http.js';
import type { StoredAudioResolver } from './audio-fetcher.js';
import { UnitFailure } from './translation-documents.js';
import { accountFileKey, parseDestinationUri, parseSourceUri } from './translation-locations.js';

export interface TranslationIoDeps {
  readonly storage: FileStorage;
  readonly guard: OutboundGuard;
  /** svc://media/<file_id> uploads. */
  readonly resolveStored: StoredAudioResolver;
  readonly maxSourceBytes: number;
  readonly timeoutSeconds: number;
  /** The gateway's bucket with FILES_BACKEND=s3, else null. */
  readonly s3Bucket: string | null;
}

async function readCapped(body: Readable, maxBytes: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new UnitFailure('DOWNLOAD_ERROR', `${what} is larger than ${maxBytes} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Fetches a source's bytes; every failure is DOWNLOAD_ERROR. */
export async function fetchSource(deps: TranslationIoDeps, uri: string, accountId: string, signal: AbortSignal): Promise<Buffer> {
  const location = parseSourceUri(uri);
  if (typeof location === 'string') throw new UnitFailure('DOWNLOAD_ERROR', `The source URI ${location}.`);
  try {
    if (location.kind !== 'https') {
      let key: string;
      if (location.kind === 'media') {
        const stored = await deps.resolveStored(location.uri, accountId);
        if (stored === null) throw new UnitFailure('DOWNLOAD_ERROR', `${uri} names no file of this account.`);
        key = stored.key;
      } else {
        key = accountFileKey(accountId, location.path);
      }
      const info = await deps.storage.stat(key);
      if (info === null) throw new UnitFailure('DOWNLOAD_ERROR', `${uri} names no file of this account.`);
      if (info.size > deps.maxSourceBytes) throw new UnitFailure('DOWNLOAD_ERROR', `The source is larger than ${deps.maxSourceBytes} bytes.`);
      return await readCapped(await deps.storage.read(key), deps.maxSourceBytes, 'The source');
    }
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(deps.timeoutSeconds * 1000)]);
    const response = await safeRequest(location.url, deps.guard, {
      timeoutMs: deps.timeoutSeconds * 1000,
      signal: deadline,
      allowedProtocols: ['https:'],
      headers: { 'user-agent': 'speech-gateway/1 (translation source)', accept: 'text/plain, application/json, */*' },
    });
    if (response.status < 200 || response.status >= 300) {
      response.body.resume();
      throw new UnitFailure('DOWNLOAD_ERROR', `Downloading the source failed: the server answered HTTP ${response.status}.`);
    }
    const declared = Number(response.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > deps.maxSourceBytes) {
      response.body.destroy();
      throw new UnitFailure('DOWNLOAD_ERROR', `The source (${declared} bytes) is larger than ${deps.maxSourceBytes} bytes.`);
    }
    return await readCapped(response.body, deps.maxSourceBytes, 'The source');
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof UnitFailure) throw error;
    throw new UnitFailure('DOWNLOAD_ERROR', `Downloading the source failed: ${isApiError(error) ? error.message : (error as Error).message}`);
  }
}

/**
 * Writes one output: into the gateway's storage (svc:// and s3:// prefixes, and the copy an
 * https:// destination's signed URL serves), then, for https://, one PUT to `<prefix><name>`.
 * Returns the storage key; every failure is UPLOAD_ERROR.
 */
export async function writeOutput(
  deps: TranslationIoDeps,
  destinationUri: string,
  job: { readonly accountId: string; readonly id: string },
  name: string,
  body: string,
  contentType: string,
  signal: AbortSignal,
): Promise<string> {
  const destination = parseDestinationUri(destinationUri, deps.s3Bucket);
  if (typeof destination === 'string') throw new UnitFailure('UPLOAD_ERROR', `The destination ${destination}.`);
  const bytes = Buffer.from(body, 'utf8');
  const key =
    destination.kind === 'storage' ? accountFileKey(job.accountId, `${destination.path}/${name}`) : `accounts/${job.accountId}/jobs/${job.id}/outputs/${name}`;
  if (destination.kind === 'https') {
    const target = new URL(encodeURIComponent(name), destination.base).toString();
    try {
      const response = await safeRequest(target, deps.guard, {
        method: 'PUT',
        body: bytes,
        headers: { 'content-type': contentType, 'content-length': String(bytes.length), 'user-agent': 'speech-gateway/1 (translation output)' },
        timeoutMs: deps.timeoutSeconds * 1000,
        followRedirects: false,
        allowedProtocols: ['https:'],
        signal,
      });
      response.body.resume();
      if (response.status < 200 || response.status >= 300) {
        throw new UnitFailure('UPLOAD_ERROR', `Writing the output to ${target} failed: the server answered HTTP ${response.status}.`);
      }
    } catch (error) {
      if (signal.aborted || error instanceof UnitFailure) throw error;
      throw new UnitFailure('UPLOAD_ERROR', `Writing the output to ${target} failed: ${isApiError(error) ? error.message : (error as Error).message}`);
    }
  }
  try {
    await deps.storage.putBuffer(key, bytes, contentType);
  } catch (error) {
    throw new UnitFailure('UPLOAD_ERROR', `Writing the output to ${destinationUri} failed: ${(error as Error).message.replace(/\/\S+/g, '<path>')}`);
  }
  return key;
}
