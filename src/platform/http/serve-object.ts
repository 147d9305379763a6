import type { HttpExchange } from './http-exchange.js';
import { parseRange, type FileStorage, type StoredObject } from '../files/file-storage.js';

/** How long a presigned backend URL handed out by a redirect stays valid. */
const PRESIGNED_GET_SECONDS = 300;

/**
 * Serves a stored object with HEAD, Range (206) and 416 support, streaming with backpressure;
 * or, where the storage backend presigns reads (S3), redirects (302) to a short-lived presigned
 * GET on the bucket, which serves Range itself. Callers have checked access already.
 */
export async function serveStoredObject(
  exchange: HttpExchange,
  storage: FileStorage,
  object: StoredObject,
  options: { filename: string; disposition?: 'inline' | 'attachment' },
): Promise<void> {
  if (storage.presignGet !== undefined) {
    const url = await storage.presignGet(object.key, {
      expiresInSeconds: PRESIGNED_GET_SECONDS,
      filename: options.filename,
      contentType: object.contentType,
      disposition: options.disposition ?? 'inline',
    });
    exchange.setHeader('Location', url);
    exchange.setHeader('Cache-Control', 'no-store');
    exchange.send(302);
    return;
  }
  exchange.setHeader('Accept-Ranges', 'bytes');
  exchange.setHeader('Cache-Control', 'private, max-age=300');
  exchange.setHeader('Content-Disposition', `${options.disposition ?? 'inline'}; filename="${options.filename.replace(/[^\w.-]/g, '_')}"`);
  const range = parseRange(exchange.header('range'), object.size);
  if (range === 'unsatisfiable') {
    exchange.setHeader('Content-Range', `bytes */${object.size}`);
    exchange.send(416);
    return;
  }
  const status = range === null ? 200 : 206;
  const length = range === null ? object.size : range.end - range.start + 1;
  if (range !== null) exchange.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${object.size}`);
  if (exchange.method === 'HEAD') {
    exchange.sendHead(status, length, object.contentType);
    return;
  }
  const stream = await storage.read(object.key, range ?? undefined);
  await exchange.sendStream(status, stream, length, object.contentType);
}
