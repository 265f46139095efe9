// `svc doctor` on a Postgres store: is the database reachable, is the schema migrated to this
// build's version, may this role merge the search index off the sends (search-upkeep.ts), and
// which instances have been seen recently. Read only: nothing is migrated.

import pg from 'pg';
import { schemaVersion, SCHEMA_VERSION, quoteIdent } from './schema.js';
import { searchIndexOf } from './search-upkeep.js';

export interface DbCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail' | 'info';
  message: string;
}

/** An instance that has not refreshed its row for this long is not counted as up. */
const RECENT_S = 60;

/** The checks, one line each; stops after the first one the others depend on. `where` names the database without secrets. */
export async function databaseChecks(url: string, schema: string, where: string): Promise<DbCheck[]> {
  const out: DbCheck[] = [];
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, application_name: 'svc doctor' });
  client.on('error', () => {});
  try {
    await client.connect();
    // SHOW names its column after the setting (server_version): ask for it under the name read here.
    const v = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    out.push({ check: 'database reachable', status: 'ok', message: `${where} answers (PostgreSQL ${v.rows[0]?.v ?? '?'})` });
  } catch (err) {
    out.push({ check: 'database reachable', status: 'fail', message: `${where}: ${(err as Error).message}` });
    await client.end().catch(() => {});
    return out;
  }
  try {
    const version = await schemaVersion(client, schema);
    if (version === 0) {
      out.push({
        check: 'database schema',
        status: 'warn',
        message: `schema ${schema} holds no svc tables yet: the first svc serve creates them`,
      });
      return out;
    }
    if (version > SCHEMA_VERSION)
      out.push({
        check: 'database schema',
        status: 'fail',
        message: `schema ${schema} is at version ${version}, newer than this svc (${SCHEMA_VERSION}): upgrade svc`,
      });
    else if (version < SCHEMA_VERSION)
      out.push({
        check: 'database schema',
        status: 'warn',
        message: `schema ${schema} is at version ${version}; the next svc serve migrates it to ${SCHEMA_VERSION}`,
      });
    else out.push({ check: 'database schema', status: 'ok', message: `schema ${schema} migrated (version ${version})` });
    const owner = await searchIndexOwner(client, schema);
    if (owner) out.push(owner);
    const r = await client.query<{ host: string; pid: number; version: string; ago: number }>(
      `SELECT host, pid, version, extract(epoch FROM now() - seen_at)::int AS ago FROM ${quoteIdent(schema)}.instances ` +
        `WHERE seen_at > now() - interval '${RECENT_S} seconds' ORDER BY started_at`,
    );
    if (r.rows.length === 0)
      out.push({ check: 'instances', status: 'info', message: `no svc serve seen on this schema in the last ${RECENT_S} s` });
    else {
      const list = r.rows.map((x) => `${x.host} pid ${x.pid} (${x.version}, ${x.ago} s ago)`).join('; ');
      out.push({ check: 'instances', status: 'ok', message: `${r.rows.length} seen in the last ${RECENT_S} s: ${list}` });
    }
  } catch (err) {
    out.push({ check: 'database schema', status: 'fail', message: `cannot read schema ${schema}: ${(err as Error).message}` });
  } finally {
    await client.end().catch(() => {});
  }
  return out;
}

/**
 * Whether the role svc connects as owns the search index: only its owner may merge the index's
 * pending list, which each instance does off the sends (search-upkeep.ts); else the sends do.
 */
async function searchIndexOwner(client: pg.Client, schema: string): Promise<DbCheck | undefined> {
  const index = searchIndexOf(schema);
  const r = await client.query<{ owns: boolean; owner: string }>(
    "SELECT pg_has_role(current_user, c.relowner, 'USAGE') AS owns, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.oid = to_regclass($1)",
    [index],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return row.owns
    ? { check: 'search index upkeep', status: 'ok', message: `this role owns ${index}: instances merge its new entries off the sends` }
    : {
        check: 'search index upkeep',
        status: 'warn',
        message: `${index} belongs to ${row.owner}, not to this role: sends merge its new entries themselves (a stall each time they fill 32 MB); run svc as ${row.owner} or make this role the index's owner`,
      };
}
