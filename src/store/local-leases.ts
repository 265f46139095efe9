// In-process leases: one Map, enough when a single process uses the store. Expiry still applies,
// so holders renew exactly as they must with a shared backend.

import type { Lease, LeaseGrant, Leases } from './types.js';

interface Held {
  owner: string;
  expires: number;
  /** Identifies this grant: a released or expired-and-retaken lease cannot touch the new one. */
  grant: object;
}

export class LocalLeases implements Leases {
  private readonly held = new Map<string, Held>();

  constructor(private readonly clock: () => number = Date.now) {}

  async acquire(key: string, owner: string, ttlMs: number): Promise<LeaseGrant> {
    const now = this.clock();
    const cur = this.held.get(key);
    if (cur && cur.expires > now) return { ok: false, owner: cur.owner };
    const h: Held = { owner, expires: now + ttlMs, grant: {} };
    this.held.set(key, h);
    const lease: Lease = {
      key,
      owner,
      renew: async () => {
        if (this.held.get(key) !== h) return false;
        h.expires = this.clock() + ttlMs;
        return true;
      },
      release: async () => {
        if (this.held.get(key) === h) this.held.delete(key);
      },
    };
    return { ok: true, lease };
  }
}
