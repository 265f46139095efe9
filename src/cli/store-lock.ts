// The store lock as the commands that open a store take it: only a sqlite store has one (memory
// holds nothing to share; Postgres runs many instances by design), and a refusal is one line.

import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import { acquireStoreLock, type StoreLock } from '../store/sqlite/engine/folder-lock.js';
import type { Io } from './io.js';

/**
 * Takes the lock of the configured store for `command` (`svc serve`...): the lock, undefined when
 * the backend needs none, or 'refused' once the one-line refusal is printed.
 */
export async function lockConfiguredStore(
  io: Io,
  command: string,
  store: Config['store'],
  log?: Logger,
): Promise<StoreLock | undefined | 'refused'> {
  if (store.backend !== 'sqlite') return undefined;
  const r = await acquireStoreLock(store.path, { command });
  if (!r.ok) {
    io.err(`${command}: ${r.message}`);
    return 'refused';
  }
  if (r.tookOver) {
    const line = `took over the store lock ${r.lock.file} left by ${r.tookOver}`;
    if (log) log('warn', line);
    else io.err(`${command}: ${line}`);
  }
  // A command that fails or throws after this still leaves the store to the next one.
  process.once('exit', () => r.lock.release());
  return r.lock;
}
