// Test hooks of the files feature, read from the environment when the feature is made (an app's
// start, not a module's first load: several apps of one process may differ). Unset, always outside
// tests, they add nothing to the upload's or the collector's path.

import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Transform, type TransformCallback } from 'node:stream';

export interface FileFaults {
  /**
   * SVC_FAULT_FILES_ENOSPC_FILE (test/files/disk-full.test.ts): while the file it names exists, an
   * upload's bytes fail with ENOSPC once 64 KiB of them are spooled, as on a disk that fills during
   * the upload. Where a size-limited filesystem cannot be mounted, this is how the 507 path is reached.
   */
  enospcFile?: string;
  /**
   * SVC_FAULT_FILES_COLLECT_PAUSE_FILE (test/files/collect-race.test.ts): while the file it names
   * exists, the collector, having found a removed file's blob without users, waits before it deletes
   * the blob, and says so by writing `<file>.reached`; once the blob step is over it writes
   * `<file>.passed`. That holds the collector inside its race with an upload of the same bytes.
   */
  pauseFile?: string;
}

export const fileFaults = (env: NodeJS.ProcessEnv): FileFaults => ({
  ...(env.SVC_FAULT_FILES_ENOSPC_FILE ? { enospcFile: env.SVC_FAULT_FILES_ENOSPC_FILE } : {}),
  ...(env.SVC_FAULT_FILES_COLLECT_PAUSE_FILE ? { pauseFile: env.SVC_FAULT_FILES_COLLECT_PAUSE_FILE } : {}),
});

const AFTER = 64 * 1024;

/** `source`, or a stream of it that fails as a full disk does, while the fault is on. */
export function withFaults(source: NodeJS.ReadableStream, faults: FileFaults): NodeJS.ReadableStream {
  const file = faults.enospcFile;
  if (!file || !existsSync(file)) return source;
  let seen = 0;
  const full = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      seen += chunk.length;
      if (seen > AFTER) done(Object.assign(new Error('ENOSPC: no space left on device (injected)'), { code: 'ENOSPC' }));
      else done(null, chunk);
    },
  });
  source.on('error', (err) => full.destroy(err));
  return source.pipe(full);
}

/** Waits while the collector's pause is on (after the blob's users were counted, before its delete). */
export async function collectorPause(faults: FileFaults): Promise<void> {
  const pause = faults.pauseFile;
  if (!pause || !existsSync(pause)) return;
  writeFileSync(`${pause}.reached`, '');
  while (existsSync(pause)) await sleep(20);
}

/** Notes that the collector's blob step is over (the pause's second signal). */
export function collectorPassed(faults: FileFaults): void {
  if (faults.pauseFile) writeFileSync(`${faults.pauseFile}.passed`, '');
}
