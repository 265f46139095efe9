// The sqlite store's options (openSqliteStore, index.ts) and their defaults.

import type { PageStepHook } from './engine/page-file.js';
import type { JournalFaults } from './engine/journal.js';
import type { AnyPart } from '../part.js';

export interface SqliteStoreOptions {
  /** The database file (`svc.db`); journals sit beside it as `<path>.journal.<gen>`. */
  path: string;
  /** Journal size that triggers a background checkpoint (default 64 MiB). */
  checkpointBytes?: number;
  /**
   * Database size from which checkpoints run in a worker thread (default 32 MiB, where the
   * export would stall the main thread for ~50 ms); smaller ones export in place.
   */
  workerCheckpointBytes?: number;
  log?: (msg: string) => void;
  /** Test hooks that make journal writes or fsyncs fail. */
  faults?: JournalFaults;
  /** Pages a checkpoint copies per turn (default 256; tests make writes land between batches). */
  checkpointCopyBatch?: number;
  /** Checkpoints write only changed pages when sql.js allows (default); false writes whole images. */
  pageTracking?: boolean;
  /** Test hook at each step of a checkpoint of pages (page-file.ts): may wait, or throw as a crash would. */
  pageStep?: PageStepHook;
  /** The stored concerns it keeps (part.ts; default: all of them). */
  parts?: readonly AnyPart[];
}

export const [DEFAULT_CHECKPOINT_BYTES, DEFAULT_WORKER_CHECKPOINT_BYTES] = [64 * 1024 * 1024, 32 * 1024 * 1024];
