// In-process leases: one Map, enough when a single process uses the store. Expiry still applies,
// so holders renew exactly as they must with a shared backend.
//
// A grant is one small object with its methods on the prototype (it is also what the Map holds,
// so identity tells a released or retaken lease from the current one): one per attachment, and
// there may be thousands.

import type { Lease, LeaseGrant, Leases } from './types.js';

class LocalLease implements Lease {
  constructor(
    private readonly leases: LocalLeases,
    readonly key: string,
    readonly owner: string,
    readonly ttlMs: number,
    /** When it lapses unless renewed (clock milliseconds). */
    public expires: number,
  ) {}

  async renew(): Promise<boolean> {
    return this.leases.renew(this);
  }

  async release(): Promise<void> {
    this.leases.release(this);
  }
}

export class LocalLeases implements Leases {
  private readonly held = new Map<string, LocalLease>();

  constructor(private readonly clock: () => number = Date.now) {}

  async acquire(key: string, owner: string, ttlMs: number): Promise<LeaseGrant> {
    const now = this.clock();
    const cur = this.held.get(key);
    if (cur && cur.expires > now) return { ok: false, owner: cur.owner };
    const lease = new LocalLease(this, key, owner, ttlMs, now + ttlMs);
    this.held.set(key, lease);
    return { ok: true, lease };
  }

  /** @internal A released or expired-and-retaken lease cannot touch the new one. */
  renew(lease: LocalLease): boolean {
    if (this.held.get(lease.key) !== lease) return false;
    lease.expires = this.clock() + lease.ttlMs;
    return true;
  }

  /** @internal */
  release(lease: LocalLease): void {
    if (this.held.get(lease.key) === lease) this.held.delete(lease.key);
  }
}
