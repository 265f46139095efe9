// Leases shared by every instance on the schema: one row per key with an owner, a grant id and an
// expiry on the database's clock (instances' clocks may differ). A lease not renewed within its
// ttl can be taken, so a crashed instance's attachments and relay workers are released by time.
// Renewals asked for in one turn go to the database as one statement: every attachment renews its
// lease each heartbeat, and the heartbeat wheel beats a slot's attachments together (an UPDATE each
// was a transaction per attached agent every 30 s, per-agent load on the database that grew with
// the agents, not the messages).

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Lease, LeaseGrant, Leases } from '../types.js';
import { isUnavailable, storeErrorOf } from './errors.js';
import type { Tables } from './tables.js';

/** A renewal waiting for its turn's statement. */
interface Renewal {
  key: string;
  grant: string;
  ttl: number;
  done: (renewed: boolean | Error) => void;
}

export class PgLeases implements Leases {
  /** Grants this process holds, released at close. */
  private readonly held = new Map<string, { key: string }>();
  private renewals: Renewal[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly T: Tables,
  ) {}

  async acquire(key: string, owner: string, ttlMs: number): Promise<LeaseGrant> {
    const grant = randomUUID();
    const ttl = Math.max(1, Math.floor(ttlMs));
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const took = await this.pool.query(
          `INSERT INTO ${this.T.leases} (key, owner, grant_id, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond') ` +
            'ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, grant_id = EXCLUDED.grant_id, expires_at = EXCLUDED.expires_at ' +
            `WHERE ${this.T.leases}.expires_at <= now() RETURNING grant_id`,
          [key, owner, grant, ttl],
        );
        if (took.rowCount === 1) return { ok: true, lease: this.leaseOf(key, owner, grant, ttl) };
        const cur = await this.pool.query<{ owner: string }>(`SELECT owner FROM ${this.T.leases} WHERE key = $1`, [key]);
        // Released between the two statements: try again.
        if (cur.rows[0]) return { ok: false, owner: cur.rows[0].owner };
      }
      return { ok: false, owner: 'unknown' };
    } catch (err) {
      throw storeErrorOf(err);
    }
  }

  /** Releases every lease this process holds (shutdown). */
  async releaseAll(): Promise<void> {
    const grants = [...this.held.keys()];
    this.held.clear();
    if (grants.length === 0) return;
    await this.pool.query(`DELETE FROM ${this.T.leases} WHERE grant_id = ANY($1)`, [grants]).catch(() => {});
  }

  private leaseOf(key: string, owner: string, grant: string, ttl: number): Lease {
    this.held.set(grant, { key });
    let confirmed = Date.now();
    return {
      key,
      owner,
      renew: async () => {
        if (!this.held.has(grant)) return false;
        const r = await this.renewInTurn(key, grant, ttl);
        if (r === true) {
          confirmed = Date.now();
          return true;
        }
        if (r === false) {
          this.held.delete(grant);
          return false;
        }
        // While the database is unreachable nobody can take the lease; once the ttl has passed
        // since the last confirmation, another instance may have it when the database returns.
        return isUnavailable(r) && Date.now() - confirmed < ttl;
      },
      release: async () => {
        if (!this.held.delete(grant)) return;
        await this.pool.query(`DELETE FROM ${this.T.leases} WHERE key = $1 AND grant_id = $2`, [key, grant]).catch(() => {});
      },
    };
  }

  /** Extends the lease with the other renewals of this turn: whether it was still this grant's, or what failed. */
  private renewInTurn(key: string, grant: string, ttl: number): Promise<boolean | Error> {
    return new Promise((done) => {
      if (this.renewals.length === 0) setImmediate(() => void this.renewAll());
      this.renewals.push({ key, grant, ttl, done });
    });
  }

  private async renewAll(): Promise<void> {
    const batch = this.renewals;
    this.renewals = [];
    try {
      const r = await this.pool.query<{ grant_id: string }>(
        `UPDATE ${this.T.leases} AS l SET expires_at = now() + r.ttl * interval '1 millisecond' ` +
          'FROM unnest($1::text[], $2::text[], $3::bigint[]) AS r(key, grant_id, ttl) ' +
          'WHERE l.key = r.key AND l.grant_id = r.grant_id RETURNING l.grant_id',
        [batch.map((b) => b.key), batch.map((b) => b.grant), batch.map((b) => b.ttl)],
      );
      const renewed = new Set(r.rows.map((row) => row.grant_id));
      for (const b of batch) b.done(renewed.has(b.grant));
    } catch (err) {
      for (const b of batch) b.done(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
