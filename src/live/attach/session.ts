// One attachment, as a state machine: awaiting IDENTIFY -> identifying -> ready -> closed.
// HELLO on open; IDENTIFY registers or resolves the agent (rejections travel in an ERROR frame
// before READY); then EVENT frames from the feed, ACKs that settle wakes, PING/PONG and a read
// deadline of two heartbeat intervals.
//
// Memory: ten thousand of these may be open at once, so one costs only what it must hold. The
// socket calls its session with no listener registered (attach-socket.ts), the agent's names are
// matched in place (agent-events.ts wakeOf), the heartbeat is a slot in one wheel (heartbeat.ts),
// and the wake ledger and the followers of what reached the agent are made on first use.

import type { Duplex } from 'node:stream';
import type { RawData } from 'ws';
import { AppError } from '../../errors.js';
import { mayAssertAgent, type Principal } from '../../auth/principal.js';
import { registerAgent, type Registered } from '../../network/agents.js';
import type { AttachmentDeliveries } from '../../network/reached.js';
import type { Lease, StoredEvent } from '../../store/types.js';
import { presenceEvent, wakeOf, type AttachedAgent, type LifecycleReason } from '../agent-events.js';
import { ATTACH_RECORD_TTL_MS, attachedByOf, type AttachedBy } from '../../network/delivery.js';
import { attachFrame } from '../encode.js';
import type { Closable, LiveHub } from '../hub.js';
import { ALL_CAPABILITIES, attachmentWants, type Capabilities } from '../visibility.js';
import { memberIsLocalAgent } from '../../auth/visibility.js';
import { Feed, type FeedSink } from './feed.js';
import {
  capabilitiesOf,
  cursorOf,
  errorFrame,
  FrameError,
  helloFrame,
  parseClientFrame,
  PING_FRAME,
  PONG_FRAME,
  readyFrame,
  type AttachErrorCode,
  type ClientFrame,
} from './frames.js';
import { WakeDelivery, type WakeSocket } from './wake-delivery.js';
import type { Beating, HeartbeatWheel } from './heartbeat.js';
import type { AttachSocket, SocketOwner } from './attach-socket.js';
import { inUseMessage, type AttachHolder } from './holder.js';

type State = 'awaiting_identify' | 'identifying' | 'ready' | 'closed';

/** WebSocket close codes (README, Attachment errors). */
export const CLOSE = { normal: 1000, goingAway: 1001, rejected: 1008, readTimeout: 4000 } as const;

const TEXT = { binary: false } as const;
/** After we start a close, a peer that does not finish the handshake is cut off. */
const CLOSE_GRACE_MS = 1000;

export interface SessionOptions {
  hub: LiveHub;
  ws: AttachSocket;
  /** The upgraded socket, for corking batches and watching congestion. */
  socket: Duplex;
  principal: Principal;
  /** The heartbeats of this server's attachments. */
  wheel: HeartbeatWheel;
  /** The runtime at the other end (holder.ts peerOf). */
  peer: AttachHolder;
}

export class AttachSession implements Closable, Beating, FeedSink, SocketOwner {
  private state: State = 'awaiting_identify';
  private lastSeen = Date.now();
  private readonly hub: LiveHub;
  private readonly ws: AttachSocket;
  private readonly socket: Duplex;
  /** Needed until IDENTIFY is answered, then let go. */
  private principal: Principal | undefined;
  private readonly wheel: HeartbeatWheel;
  wheelSlot = -1;
  private killTimer: NodeJS.Timeout | undefined;
  private agent: AttachedAgent | undefined;
  /** The attachment lease of the agent (one active attachment per agent, across processes). */
  private lease: Lease | undefined;
  /** The runtime at the other end; in hub.holders once ready. */
  private peer: AttachHolder;
  private caps: Capabilities = ALL_CAPABILITIES;
  private acked = 0;
  /** The cursor delivery started after (what follows the deliveries counts from it). */
  private start = 0;
  private wakes: WakeDelivery | undefined;
  /** What follows the message events sent and the ACKs (network/reached.ts), once something does. */
  private deliveries: AttachmentDeliveries | undefined;
  private readonly feed: Feed;
  private reason: LifecycleReason | undefined;
  private detail: string | undefined;
  private finished: Promise<void> | undefined;
  /** The last EVENT frame's write callback, one per session: a broadcast's allocations outlive its loop. */
  private writeDone: ((err?: Error) => void) | undefined;

  constructor(o: SessionOptions) {
    this.hub = o.hub;
    this.ws = o.ws;
    this.socket = o.socket;
    this.principal = o.principal;
    this.wheel = o.wheel;
    this.peer = o.peer;
    this.feed = new Feed(o.hub, o.socket, this);
  }

  private get heartbeatMs(): number {
    return this.wheel.intervalMs;
  }

  /** What holds this attachment, for the delivery records (from the runtime's User-Agent). */
  private get by(): AttachedBy {
    return attachedByOf(this.peer.client);
  }

  /** Sends HELLO and starts the heartbeat. */
  begin(): void {
    const { ws, hub } = this;
    hub.open.add(this);
    ws.owner = this;
    this.send(helloFrame(this.heartbeatMs));
    this.wheel.add(this);
  }

  /** @internal A frame, PING or PONG arrived. */
  touch(): void {
    this.lastSeen = Date.now();
  }

  /** Server shutdown. */
  close(): Promise<void> {
    this.end('request_context_done', 'the server is shutting down', CLOSE.goingAway, 'server shutting down');
    return this.finished ?? Promise.resolve();
  }

  private closed(): boolean {
    return this.state === 'closed';
  }

  private send(text: string): void {
    this.ws.send(text);
  }

  /** An attachment lease outlives three heartbeats; each heartbeat renews it. */
  private leaseMs(): number {
    return Math.max(3 * this.heartbeatMs, 10_000);
  }

  /** One heartbeat: renews the lease, enforces the read deadline, sends PING. */
  beat(): void {
    if (this.agent)
      this.hub.ctx.extensions.delivery?.renew(this.agent.id, this.by, this.peer.client, this.peer.since, ATTACH_RECORD_TTL_MS);
    if (this.lease) {
      const lease = this.lease;
      void lease.renew().then(
        (held) =>
          held ||
          this.lease !== lease ||
          this.reject('session_in_use', 'another attachment of this agent took over (its lease lapsed)', 'event_stream_closed'),
        () => {},
      );
    }
    if (Date.now() - this.lastSeen > 2 * this.heartbeatMs) {
      this.reject(
        'read_timeout',
        `no frame from the client in ${2 * this.heartbeatMs} ms (two heartbeat intervals)`,
        'read_timeout',
        CLOSE.readTimeout,
      );
      return;
    }
    this.ws.send(PING_FRAME, (err) => err && this.end('heartbeat_write_failed', err.message, CLOSE.goingAway, 'write failed'));
  }

  /** @internal */
  onFrame(data: RawData, isBinary: boolean): void {
    this.lastSeen = Date.now();
    if (this.state === 'closed') return;
    let f: ClientFrame;
    try {
      f = parseClientFrame(data, isBinary);
    } catch (err) {
      if (err instanceof FrameError) return this.reject(err.code, err.message, 'read_error');
      throw err;
    }
    switch (f.op) {
      case 'PING':
        return this.send(PONG_FRAME);
      case 'PONG':
        return;
      case 'ERROR':
        return this.end('client_error', f.error || 'the client reported an error', CLOSE.normal, 'client error');
      case 'IDENTIFY':
        if (this.state !== 'awaiting_identify')
          return this.reject('unexpected_frame', 'IDENTIFY: this session has already sent IDENTIFY', 'read_error');
        this.identify(f).catch((err: unknown) => {
          this.hub.ctx.log('error', 'attachment IDENTIFY failed', { error: String((err as Error)?.stack ?? err) });
          this.reject('internal_error', 'the attachment could not be set up', 'read_error');
        });
        return;
      case 'ACK':
        if (this.state !== 'ready') return this.reject('unexpected_frame', 'ACK: wait for READY before acknowledging events', 'read_error');
        return this.ack(cursorOf(f.cursor) ?? 0);
    }
  }

  private async identify(f: Extract<ClientFrame, { op: 'IDENTIFY' }>): Promise<void> {
    this.state = 'identifying';
    const { hub } = this;
    const p = this.principal;
    if (!p) return;
    const ctx = hub.ctx;
    const networkId = ctx.config.network.id;
    if (f.network_id !== networkId)
      return this.reject('network_mismatch', `IDENTIFY.network_id: this is network ${networkId}, not ${f.network_id}`);
    const id = f.agent.id;
    if (p.kind !== 'anonymous' && !mayAssertAgent(p, id)) {
      const why =
        p.kind === 'agent'
          ? `this agent token belongs to agent ${p.agentId}`
          : `this token may not assert agent ${id} (not in its agents allowlist)`;
      return this.reject('forbidden', `IDENTIFY.agent.id: ${why}`);
    }
    let reg: Registered;
    try {
      reg = await registerAgent(ctx, p, { requested_agent_id: id, ...(f.agent.name ? { name: f.agent.name } : {}) });
    } catch (err) {
      if (this.closed()) return;
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'conflict') {
        return this.reject(
          'conflict',
          p.kind === 'anonymous' ? `agent ${id} is already registered; attach with its agent token` : err.message,
        );
      }
      return this.reject(err.code === 'bad_request' ? 'bad_frame' : 'forbidden', err.message);
    }
    // The client may have left (or the server begun to stop) while the registration was stored.
    if (this.closed()) return;

    const mine = p.kind === 'anonymous' ? reg.record.credential_key : p.credentialKey;
    const grant = await hub.ctx.store.leases.acquire(`attach:${id}`, mine, this.leaseMs());
    if (!grant.ok) {
      if (this.closed()) return;
      return grant.owner === mine
        ? this.reject('session_in_use', inUseMessage(id, hub.holders.get(id), this.leaseMs()))
        : this.reject('conflict', `agent ${id} is attached with another credential`);
    }
    if (this.closed()) {
      void grant.lease.release();
      return;
    }
    this.lease = grant.lease;
    this.principal = undefined;
    const name = reg.record.name ?? f.agent.name;
    this.agent = { id, ...(name ? { name } : {}) };
    this.caps = capabilitiesOf(f.capabilities);
    const start = this.feed.from(cursorOf(f.cursor));
    this.start = start;
    this.state = 'ready';
    this.peer.since = Date.now();
    hub.holders.set(id, this.peer);
    const r = reg.registration;
    this.send(
      readyFrame({
        network_id: networkId,
        agent_id: id,
        actor_uid: r.actor_uid,
        actor_uri: r.actor_uri,
        ...(r.agent_token ? { agent_token: r.agent_token } : {}),
        cursor: String(start),
      }),
    );
    hub.metrics.attachClients.inc();
    ctx.extensions.delivery?.attached(id, this.by, this.peer.client, ATTACH_RECORD_TTL_MS, start);
    void hub.emit([presenceEvent(ctx, 'agent.connected', this.agent, 'attachment_ready')]);
    this.feed.run();
  }

  private ack(cursor: number): void {
    const at = this.feed.position;
    if (cursor > at) return this.reject('bad_cursor', `ACK.cursor: ${cursor} is beyond the last delivered cursor ${at}`, 'read_error');
    if (cursor <= this.acked) return;
    this.acked = cursor;
    this.deliveries?.ackUpTo(cursor);
    if (this.wakes) this.wakes.acked(cursor);
    else this.hub.ctx.extensions.delivery?.acked(this.agent!.id, []);
  }

  /**
   * What follows this attachment's deliveries, asked for on each message sent until something does
   * (nothing while no feature follows, as when the one that would is turned off until a reload).
   */
  private ledger(): AttachmentDeliveries | undefined {
    if (!this.deliveries && this.agent) this.deliveries = this.hub.ctx.extensions.reached.attachment(this.agent.id, this.start);
    return this.deliveries;
  }

  /** The feed's sink: the events this agent wants, as EVENT frames, one corked write per batch (and no array of them). */
  write(events: readonly StoredEvent[]): void {
    if (this.state !== 'ready' || !this.agent) return;
    const { hub, ws, socket } = this;
    const agentId = this.agent.id;
    const networkId = hub.ctx.config.network.id;
    let last: Buffer | undefined;
    let woken: { seq: number; w: NonNullable<ReturnType<typeof wakeOf>> }[] | undefined;
    let removed = false;
    for (const e of events) {
      const ev = e.event;
      if (ev.type === 'agent.removed' && (ev.agent?.agent_id ?? ev.agent_id) === agentId) {
        removed = true;
        break;
      }
      if (!attachmentWants(hub.audienceOf(e), ev, agentId, this.caps, networkId)) continue;
      if (ev.type === 'room.members.updated' && ev.room && (ev.added ?? []).some((m) => memberIsLocalAgent(m, agentId, networkId)))
        this.ledger()?.joinedRoom(ev.room.id, e.seq);
      const frame = attachFrame(e, this.caps.artifacts);
      if (!frame) continue;
      if (last) ws.send(last, TEXT);
      else socket.cork();
      last = frame;
      if (ev.type === 'message.created' && ev.message) this.ledger()?.sent(e.seq, ev.message.target);
      const w = wakeOf(ev, networkId, agentId);
      if (w) (woken ??= []).push({ seq: e.seq, w });
    }
    if (last) {
      ws.send(
        last,
        TEXT,
        (this.writeDone ??= (err) => err && this.end('event_write_failed', err.message, CLOSE.goingAway, 'write failed')),
      );
      socket.uncork();
    }
    if (woken) {
      const wakes = (this.wakes ??= new WakeDelivery(hub, this.agent, this.wakeSocket()));
      for (const { seq, w } of woken) wakes.sent(seq, w);
    }
    if (removed) this.reject('agent_removed', `agent ${agentId} was removed from the network`, 'event_stream_closed');
  }

  /** What a wake sent again needs of this attachment (wake-delivery.ts). */
  private wakeSocket(): WakeSocket {
    return { caps: () => this.caps, closed: () => this.state === 'closed', send: (frame) => this.ws.send(frame, TEXT) };
  }

  /** Sends an ERROR frame, then closes. */
  private reject(code: AttachErrorCode, message: string, reason: LifecycleReason = 'read_error', closeCode: number = CLOSE.rejected): void {
    if (this.state === 'closed') return;
    this.send(errorFrame(code, message));
    this.end(reason, message, closeCode, code);
  }

  /** Records why the session ends (the first cause wins). */
  note(reason: LifecycleReason, detail: string): void {
    this.reason ??= reason;
    this.detail ??= detail;
  }

  private end(reason: LifecycleReason, detail: string, code: number, closeReason: string): void {
    if (this.state === 'closed') return;
    this.note(reason, detail);
    try {
      this.ws.close(code, closeReason.slice(0, 120));
    } catch {
      this.ws.terminate();
    }
    const ws = this.ws;
    this.killTimer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
    this.killTimer.unref();
    void this.finish();
  }

  /** @internal */
  onClose(code: number, reason: string): void {
    clearTimeout(this.killTimer);
    const detail = `connection closed (code ${code}${reason ? `: ${reason}` : ''})`;
    if (code === 1001) this.note('client_going_away', detail);
    else if (code === 1000 || code === 1005) this.note('client_closed', detail);
    else this.note('read_error', detail);
    void this.finish();
  }

  /** Releases everything once; after READY, emits agent.disconnected and fails unacknowledged wakes. */
  private finish(): Promise<void> {
    if (this.finished) return this.finished;
    const wasReady = this.state === 'ready';
    this.state = 'closed';
    this.wheel.remove(this);
    this.feed.stop();
    const { hub } = this;
    hub.open.delete(this);
    if (!wasReady || !this.agent) return (this.finished = Promise.resolve());
    void this.lease?.release();
    if (hub.holders.get(this.agent.id) === this.peer) hub.holders.delete(this.agent.id);
    hub.metrics.attachClients.dec();
    const reason = this.reason ?? 'read_error';
    hub.ctx.extensions.delivery?.detached(this.agent.id, this.by);
    const events = [presenceEvent(hub.ctx, 'agent.disconnected', this.agent, reason, this.detail), ...(this.wakes?.close(reason) ?? [])];
    return (this.finished = hub.emit(events));
  }
}
