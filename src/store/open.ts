// Picks the store backend named by the configuration.

import { closeSync, existsSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, DEFAULT_STORE_SCHEMA } from '../config/types.js';
import type { Logger } from '../log.js';
import { MemoryStore } from './memory/index.js';
import { openSqliteStore } from './sqlite/index.js';
import type { Store } from './types.js';
import { ALL_PARTS } from './concerns.js';
import type { AnyPart } from './part.js';
import { watchWrites, WriteHealth } from './write-health.js';

/**
 * Opens the configured store: sqlite at `cfg.path`, postgres at `cfg.url`, or a fresh memory
 * store, keeping the stored concerns `parts` (part.ts; tools that read or copy a whole store keep
 * them all).
 */
export async function openStore(cfg: Config['store'], log?: Logger, parts: readonly AnyPart[] = ALL_PARTS): Promise<Store> {
  if (cfg.backend === 'memory') return new MemoryStore(parts);
  // The store only reports recoveries and failures worth an operator's attention. A refused
  // write is reported by WriteHealth (rate-limited), not once per write.
  const warn = log && ((msg: string) => (PER_WRITE_FAILURE.test(msg) ? undefined : log('warn', msg)));
  // A database's health is its connection: ping asks it, and the feed logs one line per outage.
  if (cfg.backend === 'postgres') {
    const { openPostgresStore } = await import('./postgres/index.js');
    return openPostgresStore({ url: cfg.url ?? '', schema: cfg.schema ?? DEFAULT_STORE_SCHEMA, parts, ...(warn ? { log: warn } : {}) });
  }
  // Test hook (test/crash): while the named file exists, journal writes fail with ENOSPC, as on a
  // full disk. Used where a size-limited tmpfs cannot be mounted.
  const enospc = process.env.SVC_FAULT_JOURNAL_ENOSPC_FILE;
  const faults = enospc ? { failWrites: () => existsSync(enospc) } : undefined;
  // Test hook (test/crash): a checkpoint pauses this long at each of its steps, so that a kill can
  // be aimed at one.
  const pause = Number(process.env.SVC_FAULT_CHECKPOINT_PAUSE_MS ?? 0);
  const pageStep = pause > 0 ? () => sleep(pause) : undefined;
  const store = await openSqliteStore({
    path: cfg.path,
    checkpointBytes: cfg.checkpoint_bytes,
    parts,
    log: warn,
    ...(faults ? { faults } : {}),
    ...(pageStep ? { pageStep } : {}),
  });
  const probeFile = path.join(path.dirname(path.resolve(cfg.path)), '.write-probe');
  const probe = () => {
    if (faults?.failWrites()) throw Object.assign(new Error('ENOSPC (injected)'), { code: 'ENOSPC' });
    // Room for the largest record (a request body is at most 1 MiB): a failed append frees the
    // pages it took, so a small probe would pass on a disk that still refuses real writes.
    const fd = openSync(probeFile, 'w');
    try {
      writeSync(fd, Buffer.alloc(PROBE_BYTES));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      rmSync(probeFile, { force: true });
    }
  };
  return watchWrites(store, new WriteHealth({ probe, ...(log ? { log: (level, msg, fields) => log(level, msg, fields) } : {}) }));
}

const PROBE_BYTES = 1024 * 1024;

/** The store's own line for each failed journal append or fsync (WriteHealth reports those). */
const PER_WRITE_FAILURE = /^store: journal (append|fsync) failed/;
