// svc store copy --to URL|FILE [--schema NAME]: moves the network of the configured store (stop the
// server first) into an empty Postgres schema, or into a new sqlite store file. A progress bar on a
// TTY, one summary line, and a refusal when the target already holds a network. The URL is a
// secret: only its host and database are printed.

import path from 'node:path';
import { ConfigError, describeStoreUrl, loadConfig } from '../../../config/load.js';
import { DEFAULT_STORE_SCHEMA } from '../../../config/types.js';
import type { CopyCounts, CopyNetworkOptions } from '../../../store/network-copy.js';
import { openStore } from '../../../store/open.js';
import { StoreError, type Store } from '../../../store/types.js';
import { EXIT, type Io } from '../../io.js';
import { lockConfiguredStore } from '../../store-lock.js';

export interface StoreCopyOptions {
  config: string;
  to: string;
  schema?: string;
  debug?: boolean;
}

/** Where the copy goes: a Postgres schema, or a sqlite file. */
type Target = { kind: 'postgres'; url: string; schema: string } | { kind: 'sqlite'; file: string };

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `[#####.....] 1200/5000 messages, 850/s` */
export function progressLine(copied: number, total: number, elapsedMs: number, width = 30): string {
  const frac = total > 0 ? Math.min(1, copied / total) : 1;
  const done = Math.round(frac * width);
  const rate = elapsedMs > 0 ? Math.round((copied * 1000) / elapsedMs) : 0;
  return `[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${copied}/${total} messages, ${rate}/s`;
}

/** The target named by --to and --schema, or the usage error to print. */
function targetOf(o: StoreCopyOptions): Target | string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(o.to)) {
    let url: URL | undefined;
    try {
      url = new URL(o.to);
    } catch {
      // reported below
    }
    if (url?.protocol !== 'postgres:' && url?.protocol !== 'postgresql:') return '--to must be a postgres:// URL or a sqlite file path';
    const schema = o.schema ?? DEFAULT_STORE_SCHEMA;
    if (!SCHEMA_NAME.test(schema)) return '--schema must be a lowercase identifier (letters, digits, _; at most 63)';
    return { kind: 'postgres', url: o.to, schema };
  }
  if (o.schema !== undefined) return '--schema goes with a postgres:// URL; a sqlite target is a file path';
  return { kind: 'sqlite', file: path.resolve(o.to) };
}

export async function storeCopyCommand(io: Io, o: StoreCopyOptions, stderr: NodeJS.WriteStream = process.stderr): Promise<number> {
  const target = targetOf(o);
  if (typeof target === 'string') {
    io.err(`svc store copy: ${target}`);
    return EXIT.usage;
  }
  let loaded;
  try {
    loaded = loadConfig(path.resolve(o.config), io.env, 'client');
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
  const same =
    target.kind === 'postgres'
      ? cfg.backend === 'postgres' && cfg.url === target.url && (cfg.schema ?? DEFAULT_STORE_SCHEMA) === target.schema
      : cfg.backend === 'sqlite' && cfg.path === target.file;
  if (same) {
    io.err('svc store copy: the target is the configured store itself');
    return EXIT.failure;
  }
  // A running server's state is partly in memory and its journal moves under a copy: stop it first.
  const lock = await lockConfiguredStore(io, 'svc store copy', cfg);
  if (lock === 'refused') return EXIT.failure;
  const where = target.kind === 'postgres' ? `${describeStoreUrl(target.url)} schema ${target.schema}` : target.file;
  let source: Store | undefined;
  const started = Date.now();
  const tty = Boolean(stderr.isTTY);
  let drawn = false;
  try {
    source = await openStore(cfg);
    const copy: CopyNetworkOptions = {
      pairingIds: loaded.config.pairings.map((p) => p.id),
      onProgress: (copied, total) => {
        if (!tty) return;
        stderr.write(`\r${progressLine(copied, total, Date.now() - started)}`);
        drawn = true;
      },
    };
    const counts = await copyTo(source, target, copy);
    if (drawn) stderr.write('\n');
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    io.out(
      `copied network ${loaded.config.network.id} into ${where}: ${counts.rooms} rooms, ${counts.agents} agents, ${counts.messages} messages, ` +
        `${counts.threads} threads, ${counts.dms} DMs, ${counts.artifacts} artifacts, ${counts.events} events (last seq ${counts.last_seq}), ` +
        `${counts.pairings} pairing cursors in ${secs} s`,
    );
    return EXIT.ok;
  } catch (err) {
    if (drawn) stderr.write('\n');
    const msg = err instanceof StoreError ? err.message : `${(err as Error).message}`;
    io.err(`svc store copy: ${where}: ${target.kind === 'postgres' ? msg.split(target.url).join(describeStoreUrl(target.url)) : msg}`);
    if (o.debug) io.err(String((err as Error).stack));
    return EXIT.failure;
  } finally {
    await source?.close();
    lock?.release();
  }
}

async function copyTo(source: Store, target: Target, o: CopyNetworkOptions): Promise<CopyCounts> {
  if (target.kind === 'sqlite') {
    const { copyToSqlite } = await import('../../../store/sqlite/copy.js');
    return copyToSqlite(source, { ...o, file: target.file });
  }
  const { copyToPostgres } = await import('../../../store/postgres/copy.js');
  return copyToPostgres(source, { ...o, url: target.url, schema: target.schema });
}
