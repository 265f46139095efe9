// The purge (#40 part 4): at each tick, the instance that holds the lease `retention` walks every
// conversation a policy limits (each active room, its threads, and every DM under the network's
// policy) and removes what has expired, a small batch per write, yielding to the event loop between
// batches so that a large backlog never stalls requests. The other instances of a Postgres network
// find the lease taken and do nothing; a lease not renewed (a crashed holder) is taken over.

import { randomUUID } from 'node:crypto';
import type { NetworkContext } from '../network/context.js';
import { commit } from '../network/context.js';
import type { Lease, RoomRecord } from '../store/types.js';
import { limitsOf, type Limits } from './policy.js';

/**
 * Messages removed by one write: small, so one write's stall stays short on a large store (at 1M
 * messages, 100 per write stalled the loop for 82 ms, 25 for 37: docs/retention.md).
 */
export const PURGE_BATCH = 25;
const LEASE_MS = 120_000;
const THREAD_PAGE = 200;

/** What a tick removed, by conversation kind (the metrics' labels). */
export type Purged = Record<'room' | 'thread' | 'dm', number>;

export class RetentionJob {
  private lease: Lease | undefined;
  private running: Promise<Purged> | undefined;
  private closed = false;
  /** Each job its own owner: two apps in one process are two instances. */
  private readonly owner = `retention-${process.pid}-${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly ctx: NetworkContext,
    private readonly onPurged: (kind: keyof Purged, n: number) => void,
  ) {}

  /** Runs one pass, or joins the one running. */
  tick(): Promise<Purged> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => {});
    await this.lease?.release();
    this.lease = undefined;
  }

  private async holds(): Promise<boolean> {
    if (this.lease && (await this.lease.renew())) return true;
    const grant = await this.ctx.store.leases.acquire('retention', this.owner, LEASE_MS);
    this.lease = grant.ok ? grant.lease : undefined;
    return grant.ok;
  }

  private async pass(): Promise<Purged> {
    const purged: Purged = { room: 0, thread: 0, dm: 0 };
    const network = this.ctx.config.server.retention;
    const anyRoom = (await this.ctx.store.listRooms()).filter((r) => limitsOf(network, r.retention) !== undefined);
    const dmLimits = limitsOf(network, undefined);
    if (anyRoom.length === 0 && !dmLimits) return purged;
    if (!(await this.holds())) return purged;
    const now = Date.now();
    for (const room of anyRoom) {
      if (this.closed) break;
      const limits = limitsOf(network, room.retention)!;
      purged.room += await this.purge(`room:${room.id}`, limits, now, 'room');
      purged.thread += await this.purgeThreads(room, limits, now);
    }
    if (dmLimits && !this.closed)
      for (const dm of await this.ctx.store.listDms()) {
        if (this.closed) break;
        purged.dm += await this.purge(`dm:${dm.id}`, dmLimits, now, 'dm');
      }
    return purged;
  }

  private async purgeThreads(room: RoomRecord, limits: Limits, now: number): Promise<number> {
    let n = 0;
    let before: string | undefined;
    for (;;) {
      const page = await this.ctx.store.listThreads(room.id, { limit: THREAD_PAGE, ...(before ? { before } : {}) });
      for (const t of page.items) n += await this.purge(`thread:${t.id}`, limits, now, 'thread');
      if (!page.has_older || page.items.length === 0 || this.closed) return n;
      before = page.items[0]!.id;
    }
  }

  /** Removes a conversation's expired messages, a batch per write. */
  private async purge(conv: string, limits: Limits, now: number, kind: keyof Purged): Promise<number> {
    let n = 0;
    const before = limits.max_age_ms !== undefined ? new Date(now - limits.max_age_ms).toISOString() : undefined;
    while (!this.closed) {
      const ids = await this.ctx.store.expiredMessages({
        conv,
        ...(before !== undefined ? { before } : {}),
        ...(limits.max_messages !== undefined ? { keep: limits.max_messages } : {}),
        limit: PURGE_BATCH,
      });
      if (ids.length === 0) break;
      const r = await commit(this.ctx, [{ op: 'message.purge', ids }]);
      const o = r.outcomes[0];
      const done = o?.op === 'message.purge' ? o.purged.length : 0;
      n += done;
      this.onPurged(kind, done);
      if (done < ids.length || ids.length < PURGE_BATCH) break;
      // Requests go between batches.
      await new Promise((resolve) => setImmediate(resolve));
      if (!(await this.lease?.renew())) break;
    }
    return n;
  }
}
