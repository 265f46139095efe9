// The purge (#40 part 4): at each tick, the instance that holds the lease `retention` walks every
// conversation a policy limits (each active room, its threads, and every DM under the network's
// policy) and removes what has expired, a small batch per write (sized to a time budget:
// nextBatch), yielding to the event loop between batches and between a batch's read and its write,
// so that a large backlog never stalls requests. The other instances of a Postgres network find the
// lease taken and do nothing; a lease not renewed (a crashed holder) is taken over.

import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { NetworkContext } from '../network/context.js';
import { commit } from '../network/context.js';
import type { Lease, RoomRecord } from '../store/types.js';
import { limitsOf, type Limits } from './policy.js';

/**
 * How a purge sizes its writes. Each write holds the event loop for as long as it takes to apply,
 * and what a message costs to purge depends on the store (its size, its backend, which of its
 * pages are in memory) and on how busy the host is: at 1M messages on sqlite a message took
 * 0.05 ms where earlier purges had touched its pages and up to 0.5 ms in the first purge after a
 * start (docs/retention.md), more on a busy host. So no fixed count keeps the stall short: the job measures each write's synchronous part (what the loop waited for) and sizes the
 * next one to take `budgetMs` at the cost per message seen so far (an average that follows the
 * last writes), between `min` and `max` messages, growing at most twofold a write. The first
 * write of a job takes `first`. Between writes the job waits long enough that its writes take at
 * most `share` of the loop, so that a large backlog slows other writes by as little (pauseAfter).
 */
export const PURGE_BATCH = { first: 25, min: 1, max: 50, budgetMs: 4, share: 0.25 };

/** How long to wait after a write whose synchronous part took `ms` (PURGE_BATCH.share). */
export const pauseAfter = (ms: number): number => Math.max(0, ms) * (1 / PURGE_BATCH.share - 1);

/** What the cost per message moves by at each write (the share of the last one). */
const COST_WEIGHT = 0.3;

/**
 * The size of the next purge write, after one of `size` messages whose synchronous part took `ms`,
 * and the cost per message the job goes on with (`cost`: the average so far, undefined at first).
 */
export function nextBatch(size: number, ms: number, cost: number | undefined): { size: number; cost: number } {
  const seen = Math.max(ms, 0) / Math.max(size, 1);
  const avg = cost === undefined ? seen : cost + COST_WEIGHT * (seen - cost);
  const fit = avg > 0 ? Math.floor(PURGE_BATCH.budgetMs / avg) : PURGE_BATCH.max;
  return { size: Math.max(PURGE_BATCH.min, Math.min(PURGE_BATCH.max, size * 2, fit)), cost: avg };
}

const LEASE_MS = 120_000;
const THREAD_PAGE = 200;

/** What a tick removed, by conversation kind (the metrics' labels). */
export type Purged = Record<'room' | 'thread' | 'dm', number>;

/** What the job reports as it goes (the feature's metrics). */
export interface PurgeReport {
  purged(kind: keyof Purged, n: number): void;
  /** A write's synchronous part, in ms: the stall it caused. */
  wrote(ms: number): void;
}

export class RetentionJob {
  private lease: Lease | undefined;
  private running: Promise<Purged> | undefined;
  private closed = false;
  /** Each job its own owner: two apps in one process are two instances. */
  private readonly owner = `retention-${process.pid}-${randomUUID().slice(0, 8)}`;
  /** The next write's size and the cost per message it was sized on (nextBatch). */
  private batch = PURGE_BATCH.first;
  private cost: number | undefined;

  constructor(
    private readonly ctx: NetworkContext,
    private readonly report: PurgeReport,
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

  /** Removes a conversation's expired messages, a batch per write, each sized to a time budget. */
  private async purge(conv: string, limits: Limits, now: number, kind: keyof Purged): Promise<number> {
    let n = 0;
    const before = limits.max_age_ms !== undefined ? new Date(now - limits.max_age_ms).toISOString() : undefined;
    while (!this.closed) {
      const limit = this.batch;
      const ids = await this.ctx.store.expiredMessages({
        conv,
        ...(before !== undefined ? { before } : {}),
        ...(limits.max_messages !== undefined ? { keep: limits.max_messages } : {}),
        limit,
      });
      if (ids.length === 0) break;
      // On sqlite the read is synchronous too: the write waits for the next turn, so the loop never
      // holds both (with the requests that came meanwhile) in one stretch.
      await nextTurn();
      if (this.closed) break;
      // The write's synchronous part (resolving, applying and committing it, on sqlite) is what
      // stalls the loop; the wait for its durability does not.
      const started = performance.now();
      const pending = commit(this.ctx, [{ op: 'message.purge', ids }]);
      const ms = performance.now() - started;
      this.report.wrote(ms);
      ({ size: this.batch, cost: this.cost } = nextBatch(ids.length, ms, this.cost));
      const r = await pending;
      const o = r.outcomes[0];
      const done = o?.op === 'message.purge' ? o.purged.length : 0;
      n += done;
      this.report.purged(kind, done);
      if (done < ids.length || ids.length < limit) break;
      // Requests go between batches: the job waits three times as long as its write held the loop.
      await sleep(pauseAfter(ms));
      if (!(await this.lease?.renew())) break;
    }
    return n;
  }
}
