// Leases shared by every instance on the schema: one row per key with an owner, a grant id and an
// expiry on the database's clock (instances' clocks may differ). A lease not renewed within its
// ttl can be taken, so a crashed instance's attachments and relay workers are released by time.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Lease, LeaseGrant, Leases } from '../types.js';
import { isUnavailable, storeErrorOf } from './errors.js';
import type { Tables } from './tables.js';

export class PgLeases implements Leases {
  /** Grants this process holds, released at close. */
  private readonly held = new Map<string, { key: string }>();

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
        try {
          const r = await this.pool.query(
            `UPDATE ${this.T.leases} SET expires_at = now() + $3 * interval '1 millisecond' WHERE key = $1 AND grant_id = $2`,
            [key, grant, ttl],
          );
          if (r.rowCount === 1) {
            confirmed = Date.now();
            return true;
          }
          this.held.delete(grant);
          return false;
        } catch (err) {
          // While the database is unreachable nobody can take the lease; once the ttl has passed
          // since the last confirmation, another instance may have it when the database returns.
          if (isUnavailable(err) && Date.now() - confirmed < ttl) return true;
          return false;
        }
      },
      release: async () => {
        if (!this.held.delete(grant)) return;
        await this.pool.query(`DELETE FROM ${this.T.leases} WHERE key = $1 AND grant_id = $2`, [key, grant]).catch(() => {});
      },
    };
  }
}
