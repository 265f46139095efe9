// Test hook (test/files/disk-full.test.ts): while the file SVC_FAULT_FILES_ENOSPC_FILE names
// exists, an upload's bytes fail with ENOSPC once 64 KiB of them are spooled, as on a disk that
// fills during the upload. Where a size-limited filesystem cannot be mounted, this is how the 507
// path is reached; unset (always, outside tests) it adds nothing to the upload's path.

import { existsSync, writeFileSync } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';

const FILE = process.env.SVC_FAULT_FILES_ENOSPC_FILE;
const AFTER = 64 * 1024;

/** `source`, or a stream of it that fails as a full disk does, while the fault is on. */
export function withFaults(source: NodeJS.ReadableStream): NodeJS.ReadableStream {
  if (!FILE || !existsSync(FILE)) return source;
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

// Test hook (test/files/collect-race.test.ts): while the file SVC_FAULT_FILES_COLLECT_PAUSE_FILE
// names exists, the collector, having found a removed file's blob without users, waits before it
// deletes the blob, and says so by writing `<file>.reached`; once the blob step is over it writes
// `<file>.passed`. That holds the collector inside its race with an upload of the same bytes, so a
// test can run the upload right there. Unset (always, outside tests) it adds nothing.
const PAUSE = process.env.SVC_FAULT_FILES_COLLECT_PAUSE_FILE;

/** Waits while the collector's pause is on (after the blob's users were counted, before its delete). */
export async function collectorPause(): Promise<void> {
  if (!PAUSE || !existsSync(PAUSE)) return;
  writeFileSync(`${PAUSE}.reached`, '');
  while (existsSync(PAUSE)) await new Promise((r) => setTimeout(r, 20));
}

/** Notes that the collector's blob step is over (the pause's second signal). */
export function collectorPassed(): void {
  if (PAUSE) writeFileSync(`${PAUSE}.passed`, '');
}
