// Picks the store backend named by the configuration.

import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import { MemoryStore } from './memory/index.js';
import { openSqliteStore } from './sqlite/index.js';
import type { Store } from './types.js';

/** Opens the configured store: sqlite at `cfg.path`, or a fresh memory store. */
export async function openStore(cfg: Config['store'], log?: Logger): Promise<Store> {
  if (cfg.backend === 'memory') return new MemoryStore();
  // The store only reports recoveries and failures worth an operator's attention.
  const warn = log && ((msg: string) => log('warn', msg));
  return openSqliteStore({ path: cfg.path, checkpointBytes: cfg.checkpoint_bytes, log: warn });
}
