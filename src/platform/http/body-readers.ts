import type { Readable } from 'node:stream';
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import { ApiError } from '../errors/api-error.js';
import { sizeLimitExceeded } from '../errors/size-limit.js';
import type { HttpExchange } from './http-exchange.js';

/** Reads the whole (bounded) body into memory. For JSON and form bodies only. */
export async function readBodyBuffer(exchange: HttpExchange, maxBytes: number): Promise<Buffer> {
  const declared = exchange.contentLength;
  if (declared !== null && declared > maxBytes) {
    throw sizeLimitExceeded('The request body', maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of exchange.body()) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > maxBytes) {
      throw sizeLimitExceeded('The request body', maxBytes);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

export async function readJsonBody(exchange: HttpExchange, maxBytes: number): Promise<unknown> {
  const buffer = await readBodyBuffer(exchange, maxBytes);
  if (buffer.length === 0) {
    throw new ApiError('invalid_json', {
      message: 'The request body is empty; send a JSON object.',
      issues: [{ loc: ['body'], msg: 'Field required', type: 'missing' }],
    });
  }
  try {
    return JSON.parse(buffer.toString('utf8'));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ApiError('invalid_json', {
      message: `The request body is not valid JSON: ${detail}`,
      issues: [{ loc: ['body'], msg: `JSON decode error: ${detail}`, type: 'json_invalid' }],
    });
  }
}

/** application/x-www-form-urlencoded: repeated names become arrays. */
export async function readFormBody(exchange: HttpExchange, maxBytes: number): Promise<Record<string, string | string[]>> {
  const buffer = await readBodyBuffer(exchange, maxBytes);
  return collectFields(new URLSearchParams(buffer.toString('utf8')).entries());
}

function collectFields(entries: Iterable<[string, string]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of entries) {
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[name] = [existing, value];
  }
  return out;
}

export interface MultipartFile {
  readonly field: string;
  readonly filename: string;
  readonly mimeType: string;
  /** Must be consumed (or resumed) by the callback: the next part waits for it. */
  readonly stream: Readable;
}

export interface MultipartOptions<T> {
  readonly maxFileBytes: number;
  readonly maxFiles: number;
  readonly maxFieldBytes?: number;
  readonly maxFields?: number;
  /** Stores one file; its result is collected in order. Throwing aborts the whole body. */
  readonly onFile: (file: MultipartFile) => Promise<T>;
  /** Undoes a stored file when the body as a whole fails after it was stored. */
  readonly discard?: (stored: T) => Promise<void>;
}

export interface MultipartResult<T> {
  readonly fields: Record<string, string | string[]>;
  readonly files: T[];
}

/**
 * Streams a multipart/form-data body: fields are collected, each file is handed to `onFile`
 * as a stream (never held whole in memory). A file over `maxFileBytes` fails with payload_too_large.
 */
export async function readMultipart<T>(exchange: HttpExchange, options: MultipartOptions<T>): Promise<MultipartResult<T>> {
  const contentType = exchange.header('content-type') ?? '';
  let busboy: BusboyInstance;
  try {
    busboy = new Busboy({
      headers: { 'content-type': contentType },
      limits: {
        fileSize: options.maxFileBytes,
        files: options.maxFiles,
        fieldSize: options.maxFieldBytes ?? 1_000_000,
        fields: options.maxFields ?? 1000,
      },
    });
  } catch (error) {
    throw new ApiError('invalid_multipart', { message: `Invalid multipart request: ${(error as Error).message}` });
  }
  const fieldEntries: [string, string][] = [];
  const pending: Promise<T>[] = [];
  let failure: unknown = null;
  const source = exchange.body();

  const done = new Promise<void>((resolve, reject) => {
    const fail = (error: unknown): void => {
      if (failure === null) failure = error;
      source.unpipe(busboy);
      source.resume();
      reject(error);
    };
    busboy.on('field', (name: string, value: string, nameTruncated: boolean, valueTruncated: boolean) => {
      if (nameTruncated || valueTruncated) {
        fail(new ApiError('invalid_field_value', { message: `Field '${name}' is too long.`, param: name }));
        return;
      }
      fieldEntries.push([name, value]);
    });
    busboy.on('file', (field: string, stream: BusboyFileStream, filename: string, _encoding: string, mimeType: string) => {
      if (failure !== null) {
        stream.resume();
        return;
      }
      stream.on('limit', () => {
        stream.destroy(sizeLimitExceeded(filename ? `The file '${filename}'` : 'The file', options.maxFileBytes, field));
      });
      const result = options.onFile({ field, filename: filename ?? '', mimeType: mimeType ?? 'application/octet-stream', stream });
      result.catch(fail);
      pending.push(result);
    });
    busboy.on('filesLimit', () => fail(new ApiError('invalid_field_value', { message: `At most ${options.maxFiles} files are accepted.` })));
    busboy.on('fieldsLimit', () => fail(new ApiError('invalid_field_value', { message: 'Too many form fields.' })));
    busboy.on('error', (error: Error) => fail(new ApiError('invalid_multipart', { message: `Invalid multipart body: ${error.message}` })));
    busboy.on('finish', () => resolve());
    source.on('error', fail);
  });
  source.pipe(busboy);
  try {
    await done;
    const files = await Promise.all(pending);
    return { fields: collectFields(fieldEntries), files };
  } catch (error) {
    const settled = await Promise.allSettled(pending);
    for (const outcome of settled) {
      if (outcome.status === 'fulfilled') await options.discard?.(outcome.value).catch(() => undefined);
    }
    throw error;
  }
}
