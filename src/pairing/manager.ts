// One pairing at run time: its transport (relay or direct), its status with the transitions of
// the spec (checks on start, periodically and after failures), its outbox, and what inbound relay
// needs to know (bound or pinned remote network). Emits pairing.updated when the status changes.

import path from 'node:path';
import { forbidden } from '../errors.js';
import type { PairingConfig } from '../config/types.js';
import type { Metrics } from '../metrics-registry.js';
import { commit, newEvent, now, type NetworkContext } from '../network/context.js';
import type { Message, Pairing, PairingDiagnostics, PairingStatus } from '../protocol/types.js';
import { evaluateRemote } from './compat.js';
import { PairingCursor } from './cursor.js';
import { Outbox } from './outbox.js';
import { RefusalTally } from './refusals.js';
import { type RelayDelivery, relayDelivery, remoteStatusMessage } from './relay-delivery.js';
import { backoffDelay, RelayClient, type RequestFrame } from './relay-client.js';
import { canRelay, nextStatus } from './status.js';
import { DirectTransport, displayUrl, TransportError, type PairMethod, type PairResponse, type PairTransport } from './transport.js';

/** The wire view of a pairing plus which transport it uses (never a token, never the relay room). */
export interface PairingView extends Pairing {
  transport: 'relay' | 'direct';
  relay_url?: string;
}

/** The kv kind of the remote network ids checks learned, by pairing id. */
const LEARNED_KIND = 'pairing.remote';

export interface ManagerDeps {
  ctx: NetworkContext;
  metrics: Metrics;
  /** Answers a request that arrived over the relay (this server's own HTTP handler). */
  answer: (frame: RequestFrame) => Promise<PairResponse>;
}

/** A pairing's remote call failed before or at the remote (502 to the caller). */
export class RemoteFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteFailure';
  }
}

export class PairingManager {
  private status: PairingStatus = 'unknown';
  /** The raw cause last logged for a transport failure (logged again only when it changes). */
  private lastFailureDetail: string | undefined;
  private diagnostics: PairingDiagnostics | undefined;
  private remote: { network_id: string; name?: string; direct_messages: boolean } | undefined;
  /** Unbound credentials: the remote network first seen (check or inbound origin); forgotten on restart. */
  private pinned: string | undefined;
  /**
   * The remote network id a check last learned, kept in the store (every instance, a restart and a
   * `svc store copy` see it) for display only: the pin above keeps its own rules.
   */
  private learned: string | undefined;
  private readonly transport: PairTransport;
  private readonly relay: RelayClient | undefined;
  private readonly cursor: PairingCursor;
  private readonly outbox: Outbox;
  private readonly relayed: RelayDelivery;
  /** Relayed messages the remote refused for good (process-local, since start). */
  private readonly refusals = new RefusalTally();
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private checking = false;
  private recheck = false;
  private closed = false;
  private running = false;

  constructor(
    readonly config: PairingConfig,
    private readonly d: ManagerDeps,
  ) {
    const c = config;
    const { ctx } = d;
    const label = { pairing: c.id };
    if (c.relay) {
      this.relay = new RelayClient({
        url: c.relay.url,
        room: c.relay.room,
        relayToken: c.relay.token ?? c.token,
        ...(c.relay.access_token ? { accessToken: c.relay.access_token } : {}),
        pairingToken: c.token,
        answer: d.answer,
        onPeer: (present) => this.onPeer(present),
        onSocket: (open, detail) => {
          d.metrics.relayConnections.set(label, open ? 1 : 0);
          ctx.log(open ? 'info' : 'debug', open ? 'pairing relay connected' : 'pairing relay disconnected', {
            pairing: c.id,
            relay: displayUrl(c.relay!.url),
            ...(detail ? { detail } : {}),
          });
        },
        onFrame: (direction) => d.metrics.relayFrames.inc({ pairing: c.id, direction }),
      });
      this.transport = this.relay;
    } else {
      this.transport = new DirectTransport(c.remote_base_url!, c.token);
    }
    if (c.remote_network_id === undefined)
      void ctx.store.kv.get(LEARNED_KIND, c.id).then(
        (e) => {
          if (e && this.learned === undefined) this.learned = JSON.parse(e.value) as string;
        },
        () => {},
      );
    // Earlier releases kept the cursor in a file beside the database: read once, then dropped.
    this.cursor = new PairingCursor(ctx.store, c.id, path.join(path.dirname(ctx.config.store.path), `pairing-${c.id}.cursor`));
    const relayed = (this.relayed = relayDelivery({
      id: c.id,
      ctx,
      metrics: d.metrics,
      transport: this.transport,
      refusals: this.refusals,
      remoteNetworkId: () => this.remoteNetworkId,
      remoteDirectMessages: () => this.remote?.direct_messages === true,
      transportFailed: (err) => this.transportFailed(err),
      failed: (reason, message) => this.failed(reason, message),
      backOff: () => this.schedule(backoffDelay(this.failures, 500, ctx.config.server.pairing_check_interval_ms)),
    }));
    this.outbox = new Outbox({
      store: ctx.store,
      cursor: this.cursor,
      leaseKey: `pairing:${c.id}`,
      eligible: relayed.eligible,
      deliver: relayed.deliver,
      events: { eligible: relayed.eventEligible, deliver: relayed.deliverEvent },
      canSend: () => !this.closed && canRelay(this.status) && this.transport.ready(),
      onPending: (n) => d.metrics.relayOutboxPending.set(label, n),
    });
  }

  get id(): string {
    return this.config.id;
  }

  /** The remote network id: configured, else learned from the peer (process-local). */
  get remoteNetworkId(): string | undefined {
    return this.config.remote_network_id ?? this.pinned;
  }

  get currentStatus(): PairingStatus {
    return this.status;
  }

  start(): void {
    if (this.running || this.closed) return;
    this.running = true;
    const interval = this.d.ctx.config.server.pairing_check_interval_ms;
    if (this.relay) {
      this.relay.start();
      // The relay announces the peer as soon as the socket opens; this only covers a relay that never answers.
      this.schedule(Math.min(interval, 5_000));
    } else {
      this.schedule(0);
    }
  }

  /** Stops everything; `forget` (the pairing was removed) also drops its cursor, so a re-added pairing starts fresh (no backfill). */
  async close(opts: { forget?: boolean } = {}): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    // Transport first: it fails the request a drain may be waiting on, so the drain ends at once.
    await this.transport.close();
    await this.outbox.close();
    if (opts.forget) {
      await this.cursor.forget();
      await this.d.ctx.store.kv.delete(LEARNED_KIND, this.id).catch(() => false);
    }
    this.d.metrics.relayConnections.set({ pairing: this.id }, 0);
  }

  view(): PairingView {
    const c = this.config;
    const refused = this.refusals.view();
    return {
      id: c.id,
      remote_network_id: this.remoteNetworkId ?? this.learned ?? '',
      remote_network_name: c.remote_network_name ?? this.remote?.name ?? this.remoteNetworkId ?? this.learned ?? '',
      remote_base_url: c.remote_base_url ? displayUrl(c.remote_base_url) : '',
      status: this.status,
      ...(this.diagnostics ? { diagnostics: this.diagnostics } : {}),
      ...(refused ? { refused } : {}),
      transport: c.relay ? 'relay' : 'direct',
      ...(c.relay ? { relay_url: displayUrl(c.relay.url) } : {}),
    };
  }

  /** Whether a local message goes to this pairing (its files are then the peer's to fetch: peer-files.ts). */
  relays(m: Message): Promise<boolean> {
    return this.relayed.eligible(m);
  }

  /** The way to the peer, for fetching one of its files (peer-files.ts). */
  get peer(): PairTransport {
    return this.transport;
  }

  /** A locally accepted message: relay it if it is this pairing's. */
  notify(): void {
    this.outbox.kick();
  }

  /** Calls the remote for a read route; failures count toward the status and become RemoteFailure. */
  async call(method: PairMethod, p: string, body?: unknown): Promise<PairResponse> {
    let r: PairResponse;
    try {
      r = await this.transport.request(method, p, body);
    } catch (err) {
      const words = this.transportFailed(err);
      throw new RemoteFailure(`pairing ${this.id}: ${words}`);
    }
    if (r.status === 401 || r.status === 403 || r.status >= 500) {
      this.failed(r.status >= 500 ? 'remote_error' : 'unauthorized', remoteStatusMessage(r.status));
      throw new RemoteFailure(`pairing ${this.id}: ${remoteStatusMessage(r.status)}`);
    }
    return r;
  }

  /**
   * Inbound relay: may this pairing's credential assert messages from `origin`? Bound credentials
   * name their network; unbound ones are refused under require_pair_network_binding, else pinned to
   * the first network they assert (until restart), with a logged warning.
   */
  admitOrigin(origin: string): void {
    const c = this.config;
    if (c.remote_network_id !== undefined && origin !== c.remote_network_id) {
      throw forbidden(`pairing ${c.id} relays for network ${c.remote_network_id}, not ${origin}`);
    }
    if (c.bound === true && c.remote_network_id !== undefined) return;
    if (this.d.ctx.config.require_pair_network_binding) {
      throw forbidden(`pairing ${c.id}: its credential has no confirmed bound network and require_pair_network_binding is on`);
    }
    if (this.pinned === undefined) {
      this.pinned = origin;
      this.d.ctx.log('warn', 'accepting relayed messages on an unbound pairing credential; pinned to this network until restart', {
        pairing: c.id,
        network: origin,
      });
    } else if (this.pinned !== origin) {
      throw forbidden(`pairing ${c.id} is pinned to network ${this.pinned} (first seen); refusing origin ${origin}`);
    }
  }

  /** Runs a check now (or right after the one in flight). */
  checkSoon(): void {
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), ms);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    if (this.closed) return;
    if (this.checking) {
      this.recheck = true;
      return;
    }
    this.checking = true;
    const interval = this.d.ctx.config.server.pairing_check_interval_ms;
    let ok = false;
    try {
      const r = await this.transport.request('GET', '/v1/network');
      if (this.closed) return;
      if (r.status !== 200) {
        this.failed(r.status === 401 || r.status === 403 ? 'unauthorized' : 'remote_error', remoteStatusMessage(r.status));
      } else {
        ok = true;
        this.checked(r.body);
      }
    } catch (err) {
      if (!this.closed) this.transportFailed(err);
    } finally {
      this.checking = false;
    }
    if (this.closed) return;
    if (ok) this.failures = 0;
    const next = this.recheck ? 0 : ok ? interval : Math.min(interval, backoffDelay(this.failures, 500, interval));
    this.recheck = false;
    this.schedule(next);
  }

  private checked(doc: unknown): void {
    const c = this.config;
    const res = evaluateRemote({ doc, expected: this.remoteNetworkId, localNetworkId: this.d.ctx.config.network.id, checkedAt: now() });
    if (res.remote) {
      this.remote = res.remote;
      if (c.remote_network_id === undefined && this.pinned === undefined) this.pinned = res.remote.network_id;
      if (c.remote_network_id === undefined && this.learned !== res.remote.network_id) this.keepLearned(res.remote.network_id);
    }
    this.diagnostics = res.diagnostics;
    this.setStatus(
      nextStatus({ status: this.status, answered: this.cursor.answered }, { kind: 'checked', status: res.status }).status,
      true,
    );
    if (canRelay(this.status)) this.outbox.kick();
  }

  /**
   * The transport could not ask the peer: the status and the answer get words, the raw cause (error
   * code, address) goes to the log only. Returns the words.
   */
  private transportFailed(err: unknown): string {
    const t = err instanceof TransportError ? err : undefined;
    const words = t?.message ?? 'the paired network could not be reached';
    const detail = t ? t.detail : String((err as Error)?.message ?? err);
    // Once per change of cause: health checks and outbox retries repeat the same failure.
    if (!this.closed && detail && detail !== this.lastFailureDetail)
      this.d.ctx.log('warn', 'pairing request failed', { pairing: this.id, reason: t?.reason ?? 'unreachable', error: detail });
    this.lastFailureDetail = detail;
    this.failed(t?.reason ?? 'unreachable', words);
    return words;
  }

  /** A pairing request failed: pending until the peer has answered once, error after. */
  private failed(reason: string, message: string): void {
    if (this.closed) return;
    this.failures++;
    this.d.metrics.relayFailures.inc({ pairing: this.id });
    const prev = this.diagnostics ?? {};
    this.diagnostics = { ...prev, checked_at: now(), reason, message };
    this.setStatus(nextStatus({ status: this.status, answered: this.cursor.answered }, { kind: 'failed' }).status, false);
  }

  private setStatus(next: PairingStatus, answered: boolean): void {
    if (answered && !this.cursor.answered) {
      this.cursor
        .commit({ answered: true })
        .catch((err: unknown) =>
          this.d.ctx.log('warn', 'could not write the pairing cursor', { pairing: this.id, error: (err as Error).message }),
        );
    }
    if (next === this.status) return;
    const prev = this.status;
    this.status = next;
    const view = this.view();
    this.d.ctx.log(next === 'error' || next === 'incompatible' ? 'warn' : 'info', `pairing ${this.id}: ${prev} -> ${next}`, {
      pairing: this.id,
      ...(view.diagnostics?.reason ? { reason: view.diagnostics.reason } : {}),
    });
    commit(this.d.ctx, [{ op: 'event.append', event: newEvent(this.d.ctx, 'pairing.updated', { pairing: view }) }]).catch(
      (err: unknown) => {
        if (!this.closed) this.d.ctx.log('warn', 'could not record pairing.updated', { pairing: this.id, error: (err as Error).message });
      },
    );
  }

  /** Keeps the remote network id a check learned (an invite's pairing has none in the config). */
  private keepLearned(id: string): void {
    this.learned = id;
    this.d.ctx.store.kv.put({ kind: LEARNED_KIND, id: this.id, value: JSON.stringify(id) }).catch((err: unknown) => {
      this.d.ctx.log('warn', 'cannot keep the paired network id', { pairing: this.id, error: (err as Error).message });
    });
  }

  private onPeer(present: boolean): void {
    if (present) this.checkSoon();
    else this.failed('peer_absent', 'the peer is not connected to the relay room');
  }
}
