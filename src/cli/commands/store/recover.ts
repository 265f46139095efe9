// svc store recover: repairs a journal damaged in the middle (not by a crash), which stops
// `svc serve` from starting. Intact records are kept, damaged ones skipped, the original copied.

import path from 'node:path';
import { ConfigError, loadConfig } from '../../../config/load.js';
import { repairJournals } from '../../../store/sqlite/engine/recovery.js';
import { EXIT, type Io } from '../../io.js';
import { lockConfiguredStore } from '../../store-lock.js';

export interface StoreRecoverOptions {
  config: string;
}

export async function storeRecoverCommand(io: Io, opts: StoreRecoverOptions): Promise<number> {
  let cfg;
  try {
    cfg = loadConfig(path.resolve(opts.config), io.env, 'client').config;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`svc store recover: ${err.message}`);
      return EXIT.failure;
    }
    throw err;
  }
  if (cfg.store.backend !== 'sqlite') {
    io.err(`svc store recover: store.backend is ${cfg.store.backend}; only the sqlite journal can be repaired this way`);
    return EXIT.failure;
  }
  // A running server appends to the journal being repaired: it must be stopped first.
  const lock = await lockConfiguredStore(io, 'svc store recover', cfg.store);
  if (lock === 'refused') return EXIT.failure;
  const reports = await repairJournals(cfg.store.path).finally(() => lock?.release());
  if (reports.length === 0) {
    io.out(`no damaged journal record found beside ${cfg.store.path}; nothing changed`);
    return EXIT.ok;
  }
  for (const r of reports) {
    const skipped = r.skipped.map((s) => `record ${s.record} at byte ${s.byte} (${s.problem})`).join(', ');
    io.out(`${r.file}: kept ${r.kept} intact record(s), skipped ${skipped}; the original is kept as ${r.backup}`);
  }
  io.out('the messages in skipped records are lost; start the server again with `svc serve`');
  return EXIT.ok;
}
