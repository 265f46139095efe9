// An S3-compatible server for tests: s3rver on 127.0.0.1 port 0 with one bucket, its data in a
// temporary folder (no S3 server ships with the machines tests run on).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface TestBucket {
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  close(): Promise<void>;
}

export async function startBucket(bucket = 'svc-files'): Promise<TestBucket> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    // s3rver's fixed test credentials.
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
