// Runs the server in the test process: createApp (src/app.ts) with the default features and a real
// store (sqlite in a temp folder unless the config says memory or postgres) on 127.0.0.1 port 0.
// For tests that need only HTTP, SSE, WebSocket or MCP over HTTP: a process adds its start-up and
// nothing they look at. startServer (test/helpers/server.ts) stays for what only a process has:
// the CLI, crashes and kill -9, store locks, several instances, process output and exit codes.
//
// The config goes through the same file and loader as `svc serve` (svc.yaml in the folder, read
// with loadConfig), so relative store paths, secrets from the environment and posture warnings are
// what a process would have. What `svc serve` adds around the app is done here too where a test can
// see it: the runtime file for client commands of the folder, and the config warnings logged once
// listening. Not here: signals, watching the config file (a test calls reload() after editing it),
// the store lock.

import os from 'node:os';
import path from 'node:path';
import type { App, FeatureFactory } from '../../src/feature.js';
import { type HttpServer, removeDir, requester, type StartOptions, tempDir, testConfig, writeConfig } from './server.js';

/** A server in the test process; `app` is the running app (its context, router, metrics). */
export interface AppServer extends HttpServer {
  readonly app: App;
  /** Reads svc.yaml again and reloads the app with it, as `svc serve` does when the file changes. */
  reload(): Promise<void>;
}

/**
 * Starts the app with `opts.config` merged over the test defaults (testConfig). `opts.env` is the
 * environment the config is read with, and is set in process.env while the app is made (the
 * features read their test knobs, such as SVC_WEBHOOK_POLL_MS, then: never when a module first
 * loads, for the process runs several files and apps). `opts.args` takes `--listen ADDR` and `--debug`, as `svc serve` does.
 * `opts.features` replaces the default feature list (a test of the server without one of them).
 */
export async function startApp(opts: StartOptions & { features?: readonly FeatureFactory[] } = {}): Promise<AppServer> {
  const dir = opts.dir ?? tempDir();
  const config = testConfig(opts.config);
  const configFile = opts.keepConfig ? path.join(dir, 'svc.yaml') : writeConfig(dir, config);
  const { listen, debug } = serveArgs(opts.args ?? []);
  let out = '';
  let app!: App;
  let port = 0;
  let running = false;

  const launch = async () => {
    const env = { ...process.env, NO_COLOR: '1', ...opts.env };
    const restore = setEnv(opts.env ?? {});
    try {
      // Loaded here, not at the top: after the environment is set, and only by files that start one.
      const [{ createApp }, { defaultFeatures }, { loadConfig }, { createLogger }, runtime, { VERSION }] = await Promise.all([
        import('../../src/app.js'),
        import('../../src/features.js'),
        import('../../src/config/load.js'),
        import('../../src/log.js'),
        import('../../src/config/runtime-file.js'),
        import('../../src/version.js'),
      ]);
      const loaded = loadConfig(configFile, env);
      const log = createLogger({ debug, write: (line) => (out += line) });
      app = await createApp(loaded, { log, features: opts.features ?? defaultFeatures });
      let addr: { host: string; port: number };
      try {
        addr = await app.listen(listen ?? loaded.config.server.listen_addr);
      } catch (err) {
        await app.close();
        throw err;
      }
      port = addr.port;
      running = true;
      const url = `http://127.0.0.1:${port}`;
      runtime.writeRuntimeFile(configFile, {
        url,
        pid: process.pid,
        host: os.hostname(),
        network_id: loaded.config.network.id,
        ...(app.ctx.uid !== undefined ? { network_uid: app.ctx.uid } : {}),
        version: VERSION,
        config: configFile,
        started_at: new Date().toISOString(),
      });
      out += `svc listening on ${url} (network ${loaded.config.network.id})\n`;
      for (const w of app.ctx.configWarnings) log('warn', w.message, { code: w.code, action: w.action });
      removeRuntime = () => runtime.removeRuntimeFile(configFile);
    } finally {
      restore();
    }
  };
  let removeRuntime = () => {};
  await launch();

  const server: AppServer = {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    get app() {
      return app;
    },
    dir,
    configFile,
    networkId: String((config.network as { id: string }).id),
    output: () => out,
    ...requester(() => `http://127.0.0.1:${port}`),
    async stop() {
      if (!running) return 0;
      running = false;
      removeRuntime();
      await app.close();
      out += 'svc stopped\n';
      return 0;
    },
    async restart() {
      await server.stop();
      await launch();
    },
    async reload() {
      const { loadConfig } = await import('../../src/config/load.js');
      await app.reload(loadConfig(configFile, { ...process.env, NO_COLOR: '1', ...opts.env }));
    },
    async dispose() {
      await server.stop();
      if (!opts.dir) removeDir(dir);
    },
  };
  return server;
}

/** The `svc serve` flags an in-process server honours; any other is a mistake in the test. */
function serveArgs(args: readonly string[]): { listen?: string; debug: boolean } {
  let listen: string | undefined;
  let debug = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--debug') debug = true;
    else if (args[i] === '--listen' && args[i + 1] !== undefined) listen = args[++i];
    else throw new Error(`startApp does not take the svc serve argument ${args[i]}; use startServer`);
  }
  return { ...(listen !== undefined ? { listen } : {}), debug };
}

/** Sets `vars` in process.env; returns what puts the previous values back. */
function setEnv(vars: Record<string, string>): () => void {
  const before: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    before[k] = process.env[k];
    process.env[k] = v;
  }
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
