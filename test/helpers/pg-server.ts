// Test servers on a Postgres store (`svc serve` processes, or the app in the test process): several
// on one schema are one network.

import { startServer, type Json, type StartOptions, type TestServer } from './server.js';
import { startApp, type AppServer } from './app.js';
import type { PgSchema } from './pg.js';

/** The store section for a schema (the URL is given through the environment, as a secret would be). */
export function pgStore(s: Pick<PgSchema, 'schema'>): Record<string, Json> {
  return { backend: 'postgres', url_env: 'SVC_TEST_STORE_URL', schema: s.schema };
}

/** Starts one instance on the schema, with `config` merged over the test defaults. */
export function startPgServer(
  s: Pick<PgSchema, 'url' | 'schema'>,
  config: Record<string, Json> = {},
  opts: Omit<StartOptions, 'config'> = {},
): Promise<TestServer> {
  return startServer({ ...opts, config: { ...config, store: pgStore(s) }, env: { ...opts.env, SVC_TEST_STORE_URL: s.url } });
}

/** Starts the app in the test process on the schema (test/helpers/app.ts), `config` merged over the test defaults. */
export function startPgApp(
  s: Pick<PgSchema, 'url' | 'schema'>,
  config: Record<string, Json> = {},
  opts: Omit<StartOptions, 'config'> = {},
): Promise<AppServer> {
  return startApp({ ...opts, config: { ...config, store: pgStore(s) }, env: { ...opts.env, SVC_TEST_STORE_URL: s.url } });
}

/** Starts `n` instances on one schema, one after the other (the first migrates). */
export async function startPgServers(
  n: number,
  s: Pick<PgSchema, 'url' | 'schema'>,
  config: Record<string, Json> = {},
): Promise<TestServer[]> {
  const out: TestServer[] = [];
  for (let i = 0; i < n; i++) out.push(await startPgServer(s, config));
  return out;
}
