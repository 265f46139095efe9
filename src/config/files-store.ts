// `store.files` (Postgres): where uploaded files' bytes live, with an S3 bucket's keys read from
// the environment variables the file names (never from the file itself).

import type { FilesStoreConfig } from './types.js';

/** `store.files` with an S3 bucket's keys read from the environment (never from the file). */
export function resolveFilesStore(files: FilesStoreConfig, env: NodeJS.ProcessEnv, fail: (line: string) => never): FilesStoreConfig {
  const { access_key_env: a, secret_key_env: k } = files;
  if (files.backend !== 's3') {
    for (const key of ['bucket', 'endpoint', 'region', 'prefix', 'access_key_env', 'secret_key_env', 'force_path_style'] as const)
      if (files[key] !== undefined) fail(`store.files.${key}: only used with store.files.backend: s3`);
    return files;
  }
  if ((a === undefined) !== (k === undefined)) fail('store.files: set both access_key_env and secret_key_env, or neither');
  if (a === undefined || k === undefined) return files;
  const read = (name: string, key: string): string => {
    const v = env[name];
    if (v === undefined || v === '') fail(`store.files.${key}: environment variable ${name} is not set`);
    return v!;
  };
  return { ...files, credentials: { accessKeyId: read(a, 'access_key_env'), secretAccessKey: read(k, 'secret_key_env') } };
}
