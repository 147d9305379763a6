// A real S3-protocol server for the storage tests: s3rver (npm), on a free loopback port, with
// its objects in a temporary folder. It speaks the S3 REST API with SigV4 (headers and presigned
// query strings), Range, ListObjectsV2 and DeleteObjects, which is what the gateway uses.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface TestS3 {
  readonly endpoint: string;
  readonly bucket: string;
  /** The gateway's configuration for this server. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** s3rver's fixed credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export async function startS3(bucket = 'speech-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    env: {
      FILES_BACKEND: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
