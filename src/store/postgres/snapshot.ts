// Store.snapshot on Postgres (#40 part 5, an export while writes go on): the store's own reads
// (reads.ts, the kv table, the parts' reads) over one connection in a REPEATABLE READ READ ONLY
// transaction, so every query of the export sees the state of its first one, whatever commits
// meanwhile. The reads take a pool; they are given one that hands out this connection only, and a
// pg client runs the queries it is given one after another.

import type pg from 'pg';
import type { AnyPart } from '../part.js';
import type { NetworkSource, StoreSnapshot } from '../types.js';
import { KV_TABLE, PgKv } from '../kv/postgres.js';
import { Reads } from './reads.js';
import type { Tables } from './tables.js';

/** A pool of one: every query and every "connection" is `client`, inside its transaction. */
function poolOf(client: pg.PoolClient): pg.Pool {
  const one = { query: client.query.bind(client), release: () => {} };
  return { query: client.query.bind(client), connect: async () => one } as unknown as pg.Pool;
}

/** Runs `work` on a snapshot read through one connection of `pool`. */
export async function pgSnapshot<T>(
  pool: pg.Pool,
  T: Tables,
  parts: readonly AnyPart[],
  work: (s: StoreSnapshot) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const one = poolOf(client);
    const reads = new Reads(one, T);
    const partReads = new Map<AnyPart, unknown>();
    const source: NetworkSource = {
      kv: new PgKv(one, T.table(KV_TABLE)),
      async stats() {
        const [c, last] = [await reads.counts(), await reads.lastEventSeq()];
        return { backend: 'postgres', messages: c.messages, events: c.events, last_event_seq: last };
      },
      eventsAfter: (seq, limit) => reads.eventsAfter(seq, limit),
      getMessage: (id) => reads.getMessage(id),
      messageVersions: (id) => reads.messageVersions(id),
      lastEventSeq: () => reads.lastEventSeq(),
      listRooms: () => reads.listRooms(),
      getRoom: (id) => reads.getRoom(id),
      listThreads: (roomId, q) => reads.listThreads(roomId, q),
      listDms: () => reads.listDms(),
      listArtifacts: (f, q) => reads.listArtifacts(f, q),
      getPairingState: (id) => reads.getPairingState(id),
      listAgents: () => reads.listAgents(),
      getAgentReadState: (id) => reads.getAgentReadState(id),
      part(p) {
        if (!parts.includes(p)) return undefined;
        let r = partReads.get(p);
        if (r === undefined) partReads.set(p, (r = p.postgres.reads((text, values) => reads.rows(text, values), T)));
        return r as never;
      },
    };
    const result = await work({ kind: 'reads', source });
    await client.query('COMMIT');
    return result;
  } catch (err) {
    failed = err as Error;
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    // A client whose transaction failed is discarded rather than reused.
    client.release(failed);
  }
}
