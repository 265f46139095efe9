// The server as a value: createApp(loaded, {features}) -> {listen, close, reload}. Tests start many
// on port 0 in one process; `svc serve` adds signals and file watching around one. The app knows
// features only through src/feature.ts; the caller chooses the list (src/features.ts is the default).

import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config, LoadedConfig } from './config/types.js';
import type { App, Declared, Feature, FeatureFactory } from './feature.js';
import { StaticTokens } from './auth/credentials.js';
import type { Authenticator, TokenResolver } from './auth/principal.js';
import { Broker } from './events/broker.js';
import { FeedPump } from './events/pump.js';
import { createLogger, type Logger } from './log.js';
import { NO_EXTENSIONS, type Extensions, type NetworkContext, type Provided } from './network/context.js';
import { applyDeclared, declaredFromConfig } from './network/apply.js';
import { reachedBy } from './network/reached.js';
import { openStore } from './store/open.js';
import type { Store } from './store/types.js';
import { Router } from './http/router.js';
import { createHttpHandler, type HttpDeps } from './http/server.js';
import { clientErrorResponse } from './http/respond.js';
import { answerClientError } from './http/server.js';
import { healthRoutes } from './http/routes/health.js';
import { networkRoutes } from './http/routes/network.js';
import { roomRoutes } from './http/routes/rooms.js';
import { threadRoutes } from './http/routes/threads.js';
import { dmRoutes } from './http/routes/dms.js';
import { artifactRoutes } from './http/routes/artifacts.js';
import { messageRoutes } from './http/routes/messages.js';
import { agentRoutes } from './http/routes/agents.js';
import { applyRoutes } from './http/routes/apply.js';
import { searchRoutes } from './http/routes/search.js';
import { openapiRoutes } from './http/routes/openapi.js';
import { listenOn } from './http/listen.js';
import { VERSION } from './version.js';
import { createMetrics } from './metrics-registry.js';
import { postureWarnings } from './config/posture.js';
import { reloadRefusedWarning } from './network/operator-warnings.js';
import { networkUid } from './network/uid.js';

/** The mutable network context: `config` is swapped on reload, `extensions` set once features exist. */
class Network implements NetworkContext {
  extensions: Extensions = NO_EXTENSIONS;
  constructor(
    public config: Config,
    readonly store: Store,
    readonly broker: Broker,
    readonly log: Logger,
    public configWarnings: LoadedConfig['warnings'],
    readonly uid: string,
    readonly version = VERSION,
  ) {}
}

export interface AppOptions {
  log?: Logger;
  /** The features to run, in start order (`defaultFeatures` of src/features.ts for the full server). */
  features: readonly FeatureFactory[];
}

function authenticatorFor(config: Config, store: Store, resolvers: readonly TokenResolver[]): Authenticator {
  return {
    mode: config.auth.mode,
    resolvers,
    tokens: new StaticTokens(config.auth.tokens),
    agentByCredential: async (key) => (key.startsWith('agent:') ? (await store.findAgentsByCredential(key))[0]?.id : undefined),
  };
}

/** Opens the store, applies the declared network and builds the server with the given features; call listen() to serve. */
export async function createApp(loaded: LoadedConfig, opts: AppOptions): Promise<App> {
  const log = opts.log ?? createLogger();
  const config = loaded.config;
  // openStore takes a Logger (level first); it logs recoveries and failures as warnings. The store
  // keeps what the features declare they store, and nothing for a feature left out.
  const parts = new Set(opts.features.flatMap((f) => f.store ?? []));
  const store = await openStore(config.store, log, [...parts]);
  const ctx = new Network(config, store, new Broker(), log, loaded.warnings, await networkUid(store.kv));
  await applyDeclared(ctx, declaredFromConfig(config), 'config');

  // Filled by combine() from the features; the list object is shared by every authenticator built.
  const resolvers: TokenResolver[] = [];
  let authenticator = authenticatorFor(config, store, resolvers);
  const router = new Router().add(
    ...healthRoutes,
    ...networkRoutes,
    ...roomRoutes,
    ...threadRoutes,
    ...dmRoutes,
    ...artifactRoutes,
    ...messageRoutes,
    ...agentRoutes,
    ...applyRoutes,
    ...searchRoutes,
    ...openapiRoutes(() => router.routes()),
  );
  const deps: HttpDeps = { ctx, router, auth: () => authenticator };
  const server = http.createServer({ requestTimeout: 60_000, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, createHttpHandler(deps));
  const sockets = new Set<Duplex>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(socket, clientErrorResponse(err.code)));

  let bound: { host: string; port: number } | undefined;
  let closing: Promise<void> | undefined;
  const features: Feature[] = [];
  let declared: Declared = { events: [] };

  const metrics = createMetrics();
  const app: App = {
    ctx,
    metrics,
    router,
    http: deps,
    server,
    file: loaded.file,
    get declared() {
      return declared;
    },
    auth: () => authenticator,
    address: () => bound,
    async listen(addr = config.server.listen_addr) {
      bound = await listenOn(server, addr);
      // `--listen` may widen the bind beyond the file's listen_addr: judge the posture on what is bound.
      ctx.config = { ...ctx.config, server: { ...ctx.config.server, listen_addr: addr } };
      ctx.configWarnings = withBindWarnings(ctx.configWarnings, ctx.config);
      for (const f of features) f.started?.(bound);
      return bound;
    },
    async reload(next: LoadedConfig) {
      if (next.config.network.id !== ctx.config.network.id) {
        throw new Error(`network.id changed from ${ctx.config.network.id} to ${next.config.network.id}; restart to change it`);
      }
      // Keep what needs a restart (listen address, store) from the running config.
      ctx.config = {
        ...next.config,
        store: ctx.config.store,
        server: { ...next.config.server, listen_addr: ctx.config.server.listen_addr },
      };
      ctx.configWarnings = withBindWarnings(next.warnings, ctx.config);
      authenticator = authenticatorFor(ctx.config, store, resolvers);
      await applyDeclared(ctx, declaredFromConfig(ctx.config), 'config');
      for (const f of features) f.reloaded?.(ctx.config);
      log('info', 'config reloaded', { file: next.file });
    },
    refuseReload(file: string, reason: string) {
      // Shown where operators look (GET /v1/network, svc doctor, the console), not only in the log;
      // the next successful reload replaces the warnings and so clears it.
      const others = ctx.configWarnings.filter((w) => w.code !== 'config_reload_refused');
      ctx.configWarnings = [...others, reloadRefusedWarning(file, reason, new Date())];
    },
    close() {
      closing ??= (async () => {
        server.close();
        for (const f of [...features].reverse()) await f.close?.();
        for (const s of sockets) s.destroy();
        pump.close();
        combined.unwire();
        await store.close();
      })();
      return closing;
    },
  };

  for (const factory of opts.features) {
    const f = factory(app);
    features.push(f);
    if (f.routes) router.add(...f.routes);
  }
  resolvers.push(...features.flatMap((f) => (f.tokenResolver ? [f.tokenResolver] : [])));
  const combined = combine(app, features);
  declared = combined.declared;
  // Stored events (whoever wrote them) reach the broker through the store's feed.
  const pump = new FeedPump(
    store.feed,
    ctx.broker,
    features.flatMap((f) => (f.prepare ? [f.prepare] : [])),
    (err) => log('warn', 'live delivery could not read the store', { error: err.message }),
  );
  pump.start();
  server.on('upgrade', (req, socket, head) => {
    for (const f of features) if (f.upgrade?.(req, socket, head)) return;
    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  return app;
}

/** Combines the features' contributions into the HTTP handler's and the network's lists, and what they declare for each other. */
function combine(app: App, features: readonly Feature[]): { declared: Declared; unwire: () => void } {
  const all = <K extends keyof Feature>(k: K): NonNullable<Feature[K]>[] => features.flatMap((f) => (f[k] === undefined ? [] : [f[k]!]));
  const observers = features.flatMap((f) => (f.observe ? [f.observe] : []));
  const admits = all('admit');
  const tokens = all('sessionToken');
  const http = observers.flatMap((o) => (o.http ? [o.http] : []));
  if (admits.length > 0) app.http.admit = (req, p, failed) => admits.forEach((a) => a(req, p, failed));
  if (tokens.length > 0) app.http.sessionToken = (req) => tokens.reduce<string | undefined>((t, f) => t ?? f(req), undefined);
  const challenges = all('challenge');
  if (challenges.length > 0) app.http.challenge = (req) => challenges.reduce<string | undefined>((c, f) => c ?? f(req), undefined);
  if (http.length > 0) app.http.observe = (route, method, status, seconds) => http.forEach((o) => o(route, method, status, seconds));
  const waited = observers.flatMap((o) => (o.waited ? [o.waited] : []));
  if (waited.length > 0) app.http.waited = () => waited.forEach((w) => w());
  const remote = all('remoteSenders');
  if (remote.length > 1) throw new Error('two features decide remote senders; only one may');
  const provided: Record<string, unknown> = {};
  for (const p of all('provides'))
    for (const [name, value] of Object.entries(p)) {
      if (name in provided) throw new Error(`two features provide ${name}; only one may`);
      provided[name] = value;
    }
  const declared = declarationsOf(features);
  const ctx = app.ctx as Network;
  ctx.extensions = {
    send: all('send'),
    reached: reachedBy(all('reached')),
    ...(remote[0] ? { checkRemoteSender: remote[0] } : {}),
    observeWrite: observers.flatMap((o) => (o.write ? [o.write] : [])),
    warnings: all('warnings'),
    apply: all('apply'),
    reservedAgents: all('reservedAgents'),
    messages: all('messages'),
    relayed: all('relays').flat(),
    ...(provided as Partial<Provided>),
  };
  const cleanups = [
    ...observers.flatMap((o) => (o.event ? [ctx.broker.subscribe(o.event)] : [])),
    ...observers.flatMap((o) => (o.drop ? [ctx.broker.observeDrops(o.drop)] : [])),
  ];
  return { declared, unwire: () => cleanups.forEach((c) => c()) };
}

/** What the features declare for each other; an event type declared twice is refused. */
function declarationsOf(features: readonly Feature[]): Declared {
  const events = features.flatMap((f) => f.events ?? []);
  const types = new Set<string>();
  for (const e of events) {
    if (types.has(e.type)) throw new Error(`two features declare the event ${e.type}; only one may`);
    types.add(e.type);
  }
  return { events };
}

/** The file's warnings with the bind-posture warning recomputed for the running config. */
function withBindWarnings(warnings: LoadedConfig['warnings'], config: Config): LoadedConfig['warnings'] {
  const posture = postureWarnings(config);
  const codes = new Set(posture.map((w) => w.code).concat('insecure_bind'));
  return [...warnings.filter((w) => !codes.has(w.code)), ...posture];
}
