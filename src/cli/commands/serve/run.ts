// svc serve: run the server until SIGINT/SIGTERM; reload the config on SIGHUP or a file change.

import { existsSync, watch, type FSWatcher } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../../app.js';
import { defaultFeatures } from '../../../features.js';
import { ConfigError, loadConfig } from '../../../config/load.js';
import { networkIdOfFolder, renderInitConfig, writeConfigFile } from '../../../config/init.js';
import { removeRuntimeFile, writeRuntimeFile } from '../../../config/runtime-file.js';
import { createLogger } from '../../../log.js';
import { secret } from '../../../protocol/ids.js';
import { VERSION } from '../../../version.js';
import { urlOfListenAddr } from '../../target.js';
import { EXIT, type Io } from '../../io.js';
import { nextStepLines } from './next-steps.js';
import { lockConfiguredStore } from '../../store-lock.js';

export interface ServeOptions {
  config: string;
  listen?: string;
  /** Write a default config first when none exists (npm start). */
  init?: boolean;
  debug?: boolean;
}

export async function serveCommand(io: Io, opts: ServeOptions): Promise<number> {
  const file = path.resolve(opts.config);
  if (opts.init && !existsSync(file)) {
    const id = networkIdOfFolder(path.dirname(file));
    writeConfigFile(file, renderInitConfig({ network_id: id, name: id, operator_token: secret(32) }), {});
    io.err(`wrote a default config to ${file}`);
    // npm start is the README's first command: say how the operator acts, as svc init does.
    io.err('operator token written to it (auth.tokens id operator; only you can read the file): svc commands run with this config use it');
    io.err(
      'next, in another terminal in this folder: svc rooms create ID   and   svc console   (a one-time sign-in link with write access)',
    );
  }
  const log = createLogger({ debug: Boolean(opts.debug) });
  let loaded;
  try {
    loaded = loadConfig(file, io.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`svc serve: ${err.message}`);
      return EXIT.failure;
    }
    throw err;
  }
  // Before anything of the store is read: a second server on it would lose the first one's data.
  const lock = await lockConfiguredStore(io, 'svc serve', loaded.config.store, log);
  if (lock === 'refused') return EXIT.failure;
  const app = await createApp(loaded, { log, features: defaultFeatures });
  let addr;
  try {
    addr = await app.listen(opts.listen ?? loaded.config.server.listen_addr);
  } catch (err) {
    await app.close();
    lock?.release();
    io.err(
      `svc serve: cannot listen on ${opts.listen ?? loaded.config.server.listen_addr}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
    return EXIT.failure;
  }

  let reloading = Promise.resolve();
  const reload = (why: string) => {
    reloading = reloading.then(async () => {
      try {
        await app.reload(loadConfig(file, io.env));
      } catch (err) {
        log('error', `config reload (${why}) failed; keeping the running config`, { error: (err as Error).message });
        const message = (err as Error).message;
        const prefix = err instanceof ConfigError && err.file ? `${err.file}: ` : '';
        app.refuseReload(path.basename(file), message.startsWith(prefix) ? message.slice(prefix.length) : message);
      }
    });
  };
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  try {
    // Watch the folder: editors replace the file (rename), which ends a watch on the file itself.
    watcher = watch(path.dirname(file), (_event, name) => {
      if (name !== path.basename(file)) return;
      clearTimeout(debounce);
      debounce = setTimeout(() => reload('file change'), 200);
    });
  } catch {
    log('warn', 'cannot watch the config file; reload with SIGHUP');
  }
  process.on('SIGHUP', () => reload('SIGHUP'));
  const stopped = new Promise<void>((resolve) => {
    const stop = (sig: string) => {
      log('info', `${sig}: shutting down`);
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });

  // Announced only once the signals are handled: a SIGHUP sent as soon as the line appears (a
  // supervisor, a script) reloads instead of ending the process by its default action.
  const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
  // Client commands of this config find the real address here (port 0, --listen) before listen_addr.
  // A wildcard bind (Node's `::` is dual-stack) is reached on IPv4 loopback.
  const url = urlOfListenAddr(`${addr.host === '::' ? '0.0.0.0' : host}:${addr.port}`);
  lock?.setUrl(url);
  try {
    writeRuntimeFile(file, {
      url,
      pid: process.pid,
      host: os.hostname(),
      network_id: loaded.config.network.id,
      ...(app.ctx.uid !== undefined ? { network_uid: app.ctx.uid } : {}),
      version: VERSION,
      config: file,
      started_at: new Date().toISOString(),
    });
  } catch (err) {
    log('warn', 'cannot write the runtime file; client commands will use server.listen_addr', { error: (err as Error).message });
  }
  io.out(`svc listening on http://${host}:${addr.port} (network ${loaded.config.network.id})`);
  for (const line of nextStepLines(file, process.cwd())) io.err(line);
  for (const w of app.ctx.configWarnings) log('warn', w.message, { code: w.code, action: w.action });
  await stopped;
  watcher?.close();
  clearTimeout(debounce);
  await reloading;
  removeRuntimeFile(file);
  await app.close();
  lock?.release();
  // After the store is flushed and closed: a supervisor may start the next server now.
  io.out('svc stopped');
  return EXIT.ok;
}
