// One outbound webhook's worker. While it holds the webhook's lease (`webhook:<id>`, one holder
// across every instance on the store) it moves the webhook's cursor over the event log, storing a
// delivery for each matching event in the same write (store/webhooks/), and POSTs the deliveries
// that are due, one at a time, recording each attempt before the next. A crash at any point loses
// nothing: an event past the cursor is read again, a delivery not recorded as delivered is sent
// again with the same webhook-id.

import { randomUUID } from 'node:crypto';
import type { WebhookConfig } from '../config/webhooks.js';
import type { Lease, Store } from '../store/types.js';
import type { WebhookDelivery } from '../store/webhooks/records.js';
import { afterFailure } from './backoff.js';
import { deliveryOf, matches } from './events.js';
import type { WebhookMetrics } from './metrics.js';
import type { Resolve } from '../http/outbound.js';
import { postJson } from '../http/outbound-post.js';
import { signedHeaders, USER_AGENT, webhookOf } from './signing.js';
import { outboxOf } from './stored.js';

export interface WorkerDeps {
  store: Store;
  metrics: WebhookMetrics;
  log: (level: 'info' | 'warn', msg: string, fields?: Record<string, unknown>) => void;
  /** How often an idle worker looks for work and renews its lease (tests shorten it). */
  pollMs?: number;
  random?: () => number;
  /** This server's URL (its listen address), for the download links of file parts; none before it listens. */
  filesBase?: () => string | undefined;
  /** How target names are resolved before the private-address check (the system's unless a test gives one). */
  resolve?: Resolve;
}

const BATCH = 200;
const DUE_BATCH = 100;
const LEASE_MS = 15_000;
/** A holder unique to this process. */
const OWNER = `webhooks-${process.pid}-${randomUUID().slice(0, 8)}`;

export class WebhookWorker {
  private lease: Lease | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private renewedAt = 0;
  private triedAt = 0;
  /** When the earliest waiting delivery is due (ms). */
  private nextDue = Number.POSITIVE_INFINITY;
  private readonly signer;
  private readonly pollMs: number;

  constructor(
    readonly hook: WebhookConfig,
    private readonly d: WorkerDeps,
  ) {
    this.signer = webhookOf(hook.secret);
    this.pollMs = d.pollMs ?? 1000;
  }

  start(): void {
    this.kick();
  }

  /** Looks for work now (an event was stored, a delivery was queued or retried). */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.tick()
      .catch((err: unknown) => this.d.log('warn', 'webhook worker failed; trying again', { webhook: this.hook.id, error: String(err) }))
      .finally(() => {
        this.running = undefined;
        if (this.closed) return;
        if (this.again) {
          this.again = false;
          this.kick();
          return;
        }
        // The next retry may be due before the next poll.
        const wait = Math.max(10, Math.min(this.pollMs, this.nextDue - Date.now()));
        this.timer = setTimeout(() => this.kick(), wait);
        this.timer.unref();
      });
  }

  /** Stops after the attempt in flight and gives the lease up. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
    await this.lease?.release();
    this.lease = undefined;
  }

  private async holds(): Promise<boolean> {
    if (!this.lease) {
      // Another instance delivers: ask again at most once a poll, not on every event it wakes us for.
      if (Date.now() - this.triedAt < this.pollMs) return false;
      this.triedAt = Date.now();
      const grant = await this.d.store.leases.acquire(`webhook:${this.hook.id}`, OWNER, LEASE_MS);
      if (!grant.ok) return false;
      this.lease = grant.lease;
      this.renewedAt = Date.now();
      return true;
    }
    if (Date.now() - this.renewedAt < LEASE_MS / 3) return true;
    if (await this.lease.renew()) {
      this.renewedAt = Date.now();
      return true;
    }
    this.lease = undefined;
    return false;
  }

  private async tick(): Promise<void> {
    if (!(await this.holds())) return;
    await this.enqueue();
    await this.deliverDue();
  }

  /** Moves the cursor over every stored event, queueing the matching ones in the same writes. */
  private async enqueue(): Promise<void> {
    const store = this.d.store;
    let cursor = await outboxOf(store).cursor(this.hook.id);
    if (cursor === undefined) {
      // A new webhook starts at the end of the log: it sends what happens from now on.
      cursor = await store.lastEventSeq();
      await store.write([{ op: 'webhook.enqueue', webhook_id: this.hook.id, seq: cursor, deliveries: [] }]);
      this.d.log('info', 'webhook started', { webhook: this.hook.id, seq: cursor });
    }
    while (!this.closed) {
      const batch = await store.eventsAfter(cursor, BATCH);
      if (batch.length === 0) return;
      const at = new Date().toISOString();
      const base = this.d.filesBase?.();
      const deliveries = batch.filter((e) => matches(this.hook, e.event)).map((e) => deliveryOf(this.hook.id, e, at, base));
      cursor = batch[batch.length - 1]!.seq;
      await store.write([{ op: 'webhook.enqueue', webhook_id: this.hook.id, seq: cursor, deliveries }]);
      if (batch.length < BATCH) return;
    }
  }

  /**
   * POSTs the deliveries due now, the longest due first. The store finds them by their next
   * attempt time (an index), so deliveries waiting on a later retry, however many, never hold a
   * newer one back; the gauges and the next wake-up come from the store's counts, not from a page.
   */
  private async deliverDue(): Promise<void> {
    const due = await outboxOf(this.d.store).deliveries({
      webhook_id: this.hook.id,
      status: 'pending',
      due_by: new Date().toISOString(),
      order: 'due',
      limit: DUE_BATCH,
    });
    for (const d of due) {
      if (this.closed || !(await this.holds())) return;
      await this.attempt(d);
    }
    // A full batch: more may be due already; look again at once rather than after a poll.
    if (due.length === DUE_BATCH) this.again = true;
    const stats = await outboxOf(this.d.store).stats(this.hook.id);
    const now = Date.now();
    const oldest = stats.oldest_pending_at ? Math.min(now, Date.parse(stats.oldest_pending_at)) : now;
    this.d.metrics.pending.set({ webhook: this.hook.id }, stats.pending);
    this.d.metrics.lag.set({ webhook: this.hook.id }, (now - oldest) / 1000);
    this.nextDue = stats.next_attempt_at ? Date.parse(stats.next_attempt_at) : Number.POSITIVE_INFINITY;
  }

  private async attempt(d: WebhookDelivery): Promise<void> {
    const at = new Date();
    const headers = { 'user-agent': USER_AGENT, ...signedHeaders(this.signer, d.id, at, d.payload) };
    const r = await postJson(this.hook.url, headers, d.payload, {
      timeoutMs: this.hook.timeout_ms,
      allowPrivate: this.hook.allow_private_network,
      ...(this.d.resolve ? { resolve: this.d.resolve } : {}),
    });
    const attempts = d.attempts + 1;
    const base = { ...d, attempts, last_attempt_at: at.toISOString(), ...(r.status !== undefined ? { last_status: r.status } : {}) };
    let next: WebhookDelivery;
    if (r.ok) {
      const { last_error: _e, ...rest } = base;
      next = { ...rest, status: 'delivered', delivered_at: new Date().toISOString() };
      this.d.metrics.delivered.inc({ webhook: this.hook.id });
    } else {
      this.d.metrics.failed.inc({ webhook: this.hook.id });
      const windowStart = Date.parse(d.window_start ?? d.created_at);
      const after = afterFailure(attempts, windowStart, Date.now(), this.hook.retry, this.d.random ?? Math.random);
      next =
        after.status === 'dead'
          ? { ...base, status: 'dead', last_error: r.error ?? 'failed' }
          : { ...base, status: 'pending', next_attempt_at: new Date(after.at).toISOString(), last_error: r.error ?? 'failed' };
      if (after.status === 'dead') {
        this.d.metrics.dead.inc({ webhook: this.hook.id });
        this.d.log('warn', 'webhook delivery dead-lettered', { webhook: this.hook.id, delivery: d.id, error: r.error });
      }
    }
    await this.d.store.write([{ op: 'webhook.delivery', delivery: next }]);
  }
}
