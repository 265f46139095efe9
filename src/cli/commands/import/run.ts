// svc import FILE: reads an export (src/export/import-lines.ts) into the configured store through
// the backend's copy writer, as `svc store copy` writes a network (store/postgres/copy.ts,
// store/sqlite/copy.ts): into an empty Postgres schema in one transaction, or a new sqlite store
// built in memory and written in one rename. A refusal (a store already there, a damaged,
// truncated or newer file) leaves the target as it was. The sqlite store's lock is held meanwhile.

import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { ConfigError, describeStoreUrl, loadConfig } from '../../../config/load.js';
import { DEFAULT_STORE_SCHEMA, type Config } from '../../../config/types.js';
import { ExportFileError, importFill } from '../../../export/import-lines.js';
import { IncomingBlobs } from '../../../files/import-blobs.js';
import { openBlobs } from '../../../files/open-blobs.js';
import type { CopyCounts, NetworkFill } from '../../../store/network-copy.js';
import { StoreError } from '../../../store/types.js';
import { EXIT, type Io } from '../../io.js';
import { lockConfiguredStore } from '../../store-lock.js';
import { progressLine } from '../store/copy.js';

export interface ImportOptions {
  file: string;
  config: string;
  debug?: boolean;
}

export async function importCommand(io: Io, o: ImportOptions, stderr: NodeJS.WriteStream = process.stderr): Promise<number> {
  let loaded;
  try {
    loaded = loadConfig(path.resolve(o.config), io.env, 'client');
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`svc import: ${err.message}`);
      return EXIT.failure;
    }
    throw err;
  }
  const cfg = loaded.config.store;
  if (cfg.backend === 'memory') {
    io.err('svc import: the configured store is memory, which keeps nothing: import into a sqlite or Postgres store');
    return EXIT.failure;
  }
  let input: NodeJS.ReadableStream;
  try {
    input = o.file === '-' ? process.stdin : await openFile(o.file);
  } catch (err) {
    io.err(`svc import: ${o.file}: ${(err as Error).message}`);
    return EXIT.failure;
  }
  const lock = await lockConfiguredStore(io, 'svc import', cfg);
  if (lock === 'refused') return EXIT.failure;
  const url = cfg.url ?? '';
  const where = cfg.backend === 'postgres' ? `${describeStoreUrl(url)} schema ${cfg.schema ?? DEFAULT_STORE_SCHEMA}` : cfg.path;
  const started = Date.now();
  const tty = Boolean(stderr.isTTY);
  let drawn = false;
  // Files' bytes (an export made --with-files): kept aside while the store is written, then put.
  const blobs = new IncomingBlobs();
  const fill = importFill(
    linesOf(input),
    loaded.config.network.id,
    (done, total) => {
      if (!tty) return;
      stderr.write(`\r${progressLine(done, total, Date.now() - started)}`);
      drawn = true;
    },
    blobs,
  );
  try {
    const counts = await importInto(cfg, fill);
    const files = await keepBlobs(cfg, blobs);
    if (drawn) stderr.write('\n');
    io.out(
      `imported network ${loaded.config.network.id} into ${where}: ${counts.rooms} rooms, ${counts.agents} agents, ${counts.messages} messages, ` +
        `${counts.threads} threads, ${counts.dms} DMs, ${counts.artifacts} artifacts, ${counts.events} events (last seq ${counts.last_seq}), ` +
        `${files} files in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return EXIT.ok;
  } catch (err) {
    if (drawn) stderr.write('\n');
    let msg = (err as Error).message;
    if (cfg.backend === 'postgres' && url) msg = msg.split(url).join(describeStoreUrl(url));
    const what = err instanceof ExportFileError ? `${o.file}: ${msg}` : `${where}: ${msg}`;
    io.err(`svc import: ${what}; nothing was imported`);
    if (o.debug && !(err instanceof ExportFileError || err instanceof StoreError)) io.err(String((err as Error).stack));
    return EXIT.failure;
  } finally {
    await blobs.discard();
    lock?.release();
  }
}

/** The imported files' bytes into the store's blob store (sqlite: beside the database; Postgres: `store.files`). */
async function keepBlobs(cfg: Config['store'], blobs: IncomingBlobs): Promise<number> {
  const target = await openBlobs(cfg);
  try {
    return await blobs.keep(target);
  } finally {
    await target.close();
  }
}

/**
 * The input's lines, read from the first call on: an interface made earlier would start reading
 * at once and drop the lines that come before anyone iterates (the writer opens its store first).
 */
async function* linesOf(input: NodeJS.ReadableStream): AsyncGenerator<string> {
  const rl = readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    yield* rl;
  } finally {
    rl.close();
  }
}

async function openFile(file: string): Promise<fs.ReadStream> {
  const stream = fs.createReadStream(path.resolve(file));
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  return stream;
}

async function importInto(cfg: Config['store'], fill: NetworkFill): Promise<CopyCounts> {
  if (cfg.backend === 'sqlite') {
    const { copyToSqlite } = await import('../../../store/sqlite/copy.js');
    return copyToSqlite(fill, { file: path.resolve(cfg.path), pairingIds: [] });
  }
  const { copyToPostgres } = await import('../../../store/postgres/copy.js');
  return copyToPostgres(fill, { url: cfg.url ?? '', schema: cfg.schema ?? DEFAULT_STORE_SCHEMA, pairingIds: [] });
}
