// Picks the store backend named by the configuration.

import { existsSync } from 'node:fs';
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import { MemoryStore } from './memory/index.js';
import { openSqliteStore } from './sqlite/index.js';
import type { Store } from './types.js';

/** Opens the configured store: sqlite at `cfg.path`, postgres at `cfg.url`, or a fresh memory store. */
export async function openStore(cfg: Config['store'], log?: Logger): Promise<Store> {
  if (cfg.backend === 'memory') return new MemoryStore();
  // The store only reports recoveries and failures worth an operator's attention.
  const warn = log && ((msg: string) => log('warn', msg));
  if (cfg.backend === 'postgres') {
    const { openPostgresStore } = await import('./postgres/index.js');
    return openPostgresStore({ url: cfg.url ?? '', schema: cfg.schema ?? 'public', ...(warn ? { log: warn } : {}) });
  }
  // Test hook (test/crash): while the named file exists, journal writes fail with ENOSPC, as on a
  // full disk. Used where a size-limited tmpfs cannot be mounted.
  const enospc = process.env.SVC_FAULT_JOURNAL_ENOSPC_FILE;
  const faults = enospc ? { failWrites: () => existsSync(enospc) } : undefined;
  return openSqliteStore({ path: cfg.path, checkpointBytes: cfg.checkpoint_bytes, log: warn, ...(faults ? { faults } : {}) });
}
