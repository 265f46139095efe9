// Removes files no message references (#41 parts 2 and 8): an upload never sent once it is older
// than `server.files.unreferenced_ttl` (default 1h), and at once a file whose last referencing
// message was deleted, redacted or purged (the store puts such a file first: records.ts). The
// record goes first (file.remove keeps one a message referenced meanwhile), then the blob, when
// no other file names the same bytes, counted under the blob's lock (blob-lock.ts) that uploads
// hold too. Every instance may run it: a record is removed once.

import type { Logger } from '../log.js';
import { commit, type NetworkContext } from '../network/context.js';
import type { FileReads } from '../store/files/records.js';
import { ageMs } from '../retention/policy.js';
import type { Blobs } from './open-blobs.js';
import { collectorPassed, collectorPause, type FileFaults } from './faults.js';

/** The default of server.files.unreferenced_ttl. */
export const UNREFERENCED_TTL = '1h';
/** Files looked at per run. */
const BATCH = 100;

export const ttlMs = (ctx: NetworkContext): number => ageMs(ctx.config.server.files?.unreferenced_ttl ?? UNREFERENCED_TTL) ?? 3_600_000;

/** One pass: removes what is due; returns how many files went. */
export async function collect(ctx: NetworkContext, files: FileReads, blobs: Blobs, faults: FileFaults): Promise<number> {
  let removed = 0;
  for (;;) {
    const before = new Date(Date.now() - ttlMs(ctx)).toISOString();
    const due = await files.unreferenced(before, BATCH);
    for (const f of due) {
      const r = await commit(ctx, [{ op: 'file.remove', id: f.id }]);
      const o = r.outcomes[0];
      if (o?.op !== 'file.remove' || !o.removed) continue;
      removed++;
      if ((await files.blobUsers(f.sha256)) === 0) {
        await collectorPause(faults);
        // Counted again under the blob's lock: an upload of the same bytes may have been stored
        // since (it found the blob kept and relies on it), and none can be stored meanwhile.
        await blobs.locks.with(f.sha256, async () => {
          if ((await files.blobUsers(f.sha256)) === 0) await blobs.store.delete(f.sha256);
        });
      }
      collectorPassed(faults);
    }
    if (due.length < BATCH) return removed;
  }
}

/** Runs `collect` every `everyMs`, and soon after `poke()`; `stop()` ends it. */
export function collector(run: () => Promise<number>, everyMs: number, log: Logger): { poke(): void; stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const pass = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = run()
      .then(
        () => {},
        (err: unknown) => log('warn', 'files: collecting unreferenced files failed; retrying later', { error: String(err) }),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          pass();
        }
      });
  };
  const schedule = (ms: number): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      pass();
      schedule(everyMs);
    }, ms);
    timer.unref();
  };
  schedule(everyMs);
  return {
    poke: () => schedule(0),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
