// svc store copy --to URL [--schema NAME]: moves the network of the configured store (stop the
// server first) into an empty Postgres schema. A progress bar on a TTY, one summary line, and
// a refusal when the target already holds a network. The URL is a secret: only its host and
// database are printed.

import path from 'node:path';
import { ConfigError, describeStoreUrl, loadConfig } from '../../config/load.js';
import { openStore } from '../../store/open.js';
import { StoreError, type Store } from '../../store/types.js';
import { EXIT, type Io } from '../io.js';

export interface StoreCopyOptions {
  config: string;
  to: string;
  schema?: string;
  debug?: boolean;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `[#####.....] 1200/5000 messages, 850/s` */
export function progressLine(copied: number, total: number, elapsedMs: number, width = 30): string {
  const frac = total > 0 ? Math.min(1, copied / total) : 1;
  const done = Math.round(frac * width);
  const rate = elapsedMs > 0 ? Math.round((copied * 1000) / elapsedMs) : 0;
  return `[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${copied}/${total} messages, ${rate}/s`;
}

export async function storeCopyCommand(io: Io, o: StoreCopyOptions, stderr: NodeJS.WriteStream = process.stderr): Promise<number> {
  let to: URL;
  try {
    to = new URL(o.to);
  } catch {
    io.err('svc store copy: --to must be a postgres:// URL');
    return EXIT.usage;
  }
  if (to.protocol !== 'postgres:' && to.protocol !== 'postgresql:') {
    io.err('svc store copy: --to must be a postgres:// URL (copying into a sqlite file is not supported)');
    return EXIT.usage;
  }
  const schema = o.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    io.err('svc store copy: --schema must be a lowercase identifier (letters, digits, _; at most 63)');
    return EXIT.usage;
  }
  let loaded;
  try {
    loaded = loadConfig(path.resolve(o.config), io.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`svc store copy: ${err.message}`);
      return EXIT.failure;
    }
    throw err;
  }
  const cfg = loaded.config.store;
  if (cfg.backend === 'memory') {
    io.err('svc store copy: the configured store is memory: it holds nothing to copy');
    return EXIT.failure;
  }
  if (cfg.backend === 'postgres' && cfg.url === o.to && (cfg.schema ?? 'public') === schema) {
    io.err('svc store copy: the target is the configured store itself');
    return EXIT.failure;
  }
  const target = `${describeStoreUrl(o.to)} schema ${schema}`;
  let source: Store | undefined;
  const started = Date.now();
  const tty = Boolean(stderr.isTTY);
  let drawn = false;
  try {
    source = await openStore(cfg);
    const { copyToPostgres } = await import('../../store/postgres/copy.js');
    const counts = await copyToPostgres(source, {
      url: o.to,
      schema,
      pairingIds: loaded.config.pairings.map((p) => p.id),
      onProgress: (copied, total) => {
        if (!tty) return;
        stderr.write(`\r${progressLine(copied, total, Date.now() - started)}`);
        drawn = true;
      },
    });
    if (drawn) stderr.write('\n');
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    io.out(
      `copied network ${loaded.config.network.id} into ${target}: ${counts.rooms} rooms, ${counts.agents} agents, ${counts.messages} messages, ` +
        `${counts.threads} threads, ${counts.dms} DMs, ${counts.artifacts} artifacts, ${counts.events} events (last seq ${counts.last_seq}), ` +
        `${counts.pairings} pairing cursors in ${secs} s`,
    );
    return EXIT.ok;
  } catch (err) {
    if (drawn) stderr.write('\n');
    const msg = err instanceof StoreError ? err.message : `${(err as Error).message}`;
    io.err(`svc store copy: ${target}: ${msg.split(o.to).join(describeStoreUrl(o.to))}`);
    if (o.debug) io.err(String((err as Error).stack));
    return EXIT.failure;
  } finally {
    await source?.close();
  }
}
