// The attachment client of `GET /v1/attach`: preflight, HELLO/IDENTIFY/READY, heartbeats, reconnect
// with backoff, resume by cursor, ACKs and a durable cursor store. One object per attached agent;
// events reach `onEvent` once each, in cursor order, also across reconnects.

import WebSocket from 'ws';
import { ATTACH_PROTOCOL, type NetworkDocument, type ServiceEvent } from '../protocol/types.js';
import { AckLedger } from './attach-acks.js';
import { needsHelloCheck, preflightProblem } from './attach-preflight.js';
import {
  AttachError,
  type AttachCapabilities,
  type AttachedEvent,
  type AttachOptions,
  type Attachment,
  type ReadyInfo,
} from './attach-types.js';
import { wakeReasonOf } from './attach-wake.js';
import { CursorFileError, cursorStoreOf, type CursorKey, type CursorStore } from './cursor-store.js';
import { ClientError } from './errors.js';
import { SvcClient } from './svc-client.js';
import { VERSION } from '../version.js';

export type { Attachment } from './attach-types.js';

/** Attaches an agent; connecting starts at once. */
export function attach(opts: AttachOptions): Attachment {
  return new AgentAttachment(opts);
}

const FRAME_MAX = 2 * 1024 * 1024;
const HELLO_TIMEOUT_MS = 15_000;
/** Server codes after which retrying changes nothing. */
const FATAL = new Set(['conflict', 'forbidden', 'network_mismatch', 'agent_removed', 'bad_frame', 'unexpected_frame', 'bad_cursor']);
/** Before the first READY, `session_in_use` is retried this long (a previous process's close may still be in flight). */
const IN_USE_GRACE_MS = 10_000;

class AgentAttachment implements Attachment {
  readonly ready: Promise<ReadyInfo>;
  readonly done: Promise<void>;
  #o: AttachOptions;
  #token: string | undefined;
  #store: CursorStore | undefined;
  #key: CursorKey | undefined;
  #ledger = new AckLedger();
  #net: NetworkDocument | undefined;
  #ws: WebSocket | undefined;
  #live = false;
  #closed = false;
  #everReady = false;
  #sessionReady = false;
  #started = Date.now();
  #wake: (() => void) | undefined;
  #saving: Promise<void> = Promise.resolve();
  #saved: number | undefined;
  #handling: Promise<void> = Promise.resolve();
  #client: SvcClient | undefined;
  #settleReady!: { resolve: (r: ReadyInfo) => void; reject: (e: Error) => void };
  #settleDone!: { resolve: () => void; reject: (e: Error) => void };

  constructor(opts: AttachOptions) {
    this.#o = opts;
    this.#token = opts.token;
    this.ready = new Promise((resolve, reject) => (this.#settleReady = { resolve, reject }));
    this.done = new Promise((resolve, reject) => (this.#settleDone = { resolve, reject }));
    // Callers that only await one of the two must not see an unhandled rejection from the other.
    this.ready.catch(() => undefined);
    this.done.catch(() => undefined);
    void this.#loop();
  }

  get connected(): boolean {
    return this.#live;
  }

  cursor(): string | undefined {
    return this.#saved === undefined ? undefined : String(this.#saved);
  }

  network(): NetworkDocument | undefined {
    return this.#net;
  }

  client(): SvcClient {
    this.#client ??= new SvcClient({ url: this.#o.url, ...(this.#token !== undefined ? { token: this.#token } : {}) });
    return this.#client;
  }

  flush(): Promise<void> {
    return this.#saving;
  }

  async close(): Promise<void> {
    if (this.#closed) return this.done.catch(() => undefined);
    this.#closed = true;
    this.#wake?.();
    this.#ws?.close(1000, 'client closing');
    await this.#saving.catch(() => undefined);
    await this.#client?.close().catch(() => undefined);
    this.#settleReady.reject(new AttachError('closed', 'the attachment was closed before READY'));
    this.#settleDone.resolve();
  }

  async #loop(): Promise<void> {
    let attempt = 0;
    while (!this.#closed) {
      let reason: string;
      try {
        this.#o.onStatus?.({ state: 'connecting', attempt });
        await this.#prepare();
        this.#sessionReady = false;
        reason = await this.#session();
        if (this.#sessionReady) attempt = 0;
      } catch (err) {
        if (this.#closed) break;
        if (this.#fatal(err)) return this.#fail(err as Error);
        reason = (err as Error).message;
      }
      this.#live = false;
      if (this.#closed) break;
      const { minMs = 500, maxMs = 30_000 } = this.#o.reconnect ?? {};
      const delay = Math.round(Math.min(maxMs, minMs * 2 ** attempt) * (0.75 + Math.random() * 0.5));
      attempt++;
      this.#o.onStatus?.({ state: 'disconnected', reason, retryInMs: delay });
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        this.#wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  #fatal(err: unknown): boolean {
    if (err instanceof CursorFileError) return true;
    if (err instanceof AttachError) {
      if (err.code === 'session_in_use') return !this.#everReady && Date.now() - this.#started > IN_USE_GRACE_MS;
      return err.code !== 'retry';
    }
    if (err instanceof ClientError) {
      if (err.status === 401 || err.status === 403 || err.status === 404) return true;
      return !this.#everReady && !this.#o.waitForServer && err.status === undefined;
    }
    return false;
  }

  #fail(err: Error): void {
    this.#closed = true;
    this.#settleReady.reject(err);
    this.#settleDone.reject(err);
    void this.#client?.close().catch(() => undefined);
  }

  /** Preflight (every connection: the server may have been replaced) and the stored cursor (once). */
  async #prepare(): Promise<void> {
    const probe = new SvcClient({ url: this.#o.url, timeoutMs: 10_000, ...(this.#token !== undefined ? { token: this.#token } : {}) });
    let doc: NetworkDocument;
    try {
      doc = await probe.network();
    } finally {
      await probe.close().catch(() => undefined);
    }
    const declaredDms = this.#o.capabilities?.dms === true;
    const problem = preflightProblem(doc, {
      ...(this.#o.networkId !== undefined ? { networkId: this.#o.networkId } : {}),
      dms: declaredDms,
    });
    if (problem) throw new AttachError(problem.code, `preflight: ${problem.message}`);
    this.#net = doc;
    if (this.#key) return;
    this.#key = { network_id: doc.id, ...(doc.uid !== undefined ? { network_uid: doc.uid } : {}), agent_id: this.#o.agent.id };
    this.#store = cursorStoreOf(this.#o.cursorStore, this.#key);
    const start = this.#o.startCursor ?? (await this.#store.load(this.#key));
    if (start !== undefined) {
      if (!/^\d+$/.test(start)) throw new AttachError('bad_cursor', `startCursor: ${start} is not a cursor (a decimal event sequence)`);
      this.#ledger = new AckLedger(Number(start));
      this.#saved = Number(start);
    }
  }

  #capabilities(): AttachCapabilities {
    const c = this.#o.capabilities ?? {};
    return {
      rooms: c.rooms ?? true,
      threads: c.threads ?? true,
      dms: c.dms ?? this.#net?.capabilities?.direct_messages === true,
      artifacts: c.artifacts ?? true,
    };
  }

  /** One connection, until it closes; resolves with why, rejects with a fatal AttachError. */
  #session(): Promise<string> {
    const wsUrl = `${this.#o.url.replace(/\/+$/, '').replace(/^http/, 'ws')}/v1/attach`;
    const headers: Record<string, string> = {
      'user-agent': this.#o.userAgent ?? `svc-client/${VERSION} (pid ${process.pid})`,
      ...(this.#token !== undefined ? { authorization: `Bearer ${this.#token}` } : {}),
    };
    const ws = new WebSocket(wsUrl, { headers, maxPayload: FRAME_MAX, handshakeTimeout: 10_000 });
    this.#ws = ws;
    if (this.#closed) ws.close(1000, 'client closing');
    let heartbeatMs = HELLO_TIMEOUT_MS / 2;
    let deadline: NodeJS.Timeout | undefined;
    let refusal: AttachError | undefined;
    let serverError: { code: string; error: string } | undefined;
    let inbound: Promise<void> = Promise.resolve();
    const alive = () => {
      clearTimeout(deadline);
      // Two silent heartbeat intervals mean a dead connection (the server applies the same rule).
      deadline = setTimeout(() => ws.terminate(), 2 * heartbeatMs + 1000);
    };
    alive();
    const send = (frame: object) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
    };

    const onFrame = async (f: Record<string, unknown>): Promise<void> => {
      switch (f.op) {
        case 'HELLO': {
          heartbeatMs = Number(f.heartbeat_interval_ms) > 0 ? Number(f.heartbeat_interval_ms) : 30_000;
          alive();
          if (this.#net && needsHelloCheck(this.#net) && f.version !== ATTACH_PROTOCOL) {
            refusal = new AttachError(
              'unsupported_protocol',
              `preflight: the server's HELLO.version is ${String(f.version)}, not ${ATTACH_PROTOCOL}`,
            );
            ws.close(1000, 'unsupported protocol');
            return;
          }
          const base = this.#ledger.base;
          send({
            op: 'IDENTIFY',
            network_id: this.#key!.network_id,
            agent: this.#o.agent,
            capabilities: this.#capabilities(),
            ...(base !== undefined ? { cursor: String(base) } : {}),
          });
          return;
        }
        case 'READY': {
          if (typeof f.agent_token === 'string') {
            // Shown once: it must be kept before anything else happens (SPEC, Agent tokens 7).
            await this.#o.onAgentToken?.(f.agent_token);
            this.#token = f.agent_token;
            void this.#client?.close().catch(() => undefined);
            this.#client = undefined;
          }
          const cursor = Number(f.cursor ?? 0);
          const first = this.#ledger.base === undefined;
          this.#ledger.startSession(cursor);
          if (first || this.#ledger.base !== this.#saved) this.#persist();
          const info: ReadyInfo = {
            network_id: String(f.network_id),
            agent_id: String(f.agent_id),
            actor_uid: String(f.actor_uid),
            actor_uri: String(f.actor_uri),
            cursor: String(cursor),
            resumed: this.#everReady,
          };
          this.#live = true;
          this.#sessionReady = true;
          this.#everReady = true;
          this.#settleReady.resolve(info);
          this.#o.onStatus?.({ state: 'ready', info });
          return;
        }
        case 'EVENT':
          return this.#onEvent(String(f.cursor), f.event as ServiceEvent, ws);
        case 'ERROR':
          serverError = { code: String(f.code ?? 'error'), error: String(f.error ?? '') };
          return;
      }
    };

    return new Promise<string>((resolve, reject) => {
      ws.on('message', (data) => {
        alive();
        let f: Record<string, unknown>;
        try {
          f = JSON.parse(data.toString()) as Record<string, unknown>;
        } catch {
          return;
        }
        // Heartbeats skip the queue: a slow handler must not look like a dead connection.
        if (f.op === 'PING') return send({ op: 'PONG' });
        if (f.op === 'PONG') return;
        inbound = inbound
          .then(() => onFrame(f))
          .catch((err: unknown) => {
            send({ op: 'ERROR', error: `runtime handler failed: ${(err as Error)?.message ?? String(err)}` });
            ws.close(1011, 'handler failed');
          });
      });
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => {
          let msg = body;
          try {
            msg = (JSON.parse(body) as { error?: string }).error ?? body;
          } catch {
            // not an error envelope
          }
          const status = res.statusCode ?? 0;
          const text = `GET /v1/attach: ${status}${msg ? ` ${msg}` : ''}`;
          refusal =
            status === 401 || status === 403
              ? new AttachError(status === 401 ? 'unauthorized' : 'forbidden', text)
              : new AttachError('retry', text);
          ws.terminate();
        });
      });
      ws.on('error', () => undefined);
      ws.on('close', (code, why) => {
        clearTimeout(deadline);
        this.#live = false;
        if (this.#ws === ws) this.#ws = undefined;
        if (refusal) return reject(refusal);
        if (serverError) {
          const e = new AttachError(serverError.code, `${serverError.code}: ${serverError.error}`);
          if (FATAL.has(serverError.code) || serverError.code === 'session_in_use') return reject(e);
          return resolve(e.message);
        }
        resolve(`connection closed (code ${code}${why.length ? `: ${why.toString()}` : ''})`);
      });
    });
  }

  #onEvent(cursorText: string, event: ServiceEvent, ws: WebSocket): void {
    const cursor = Number(cursorText);
    const arrival = this.#ledger.arrive(cursor);
    if (arrival !== 'new') return this.#sendAck(ws);
    const wake = this.#key ? wakeReasonOf(event, { network_id: this.#key.network_id, id: this.#o.agent.id }) : undefined;
    let acked = false;
    const ev: AttachedEvent = {
      cursor: cursorText,
      event,
      ...(wake ? { wake } : {}),
      ack: () => {
        if (acked) return;
        acked = true;
        if (this.#ledger.finish(cursor) !== undefined) this.#persist();
      },
    };
    const failed = (err: unknown) => {
      if (acked) return;
      this.#ledger.forget(cursor);
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ op: 'ERROR', error: `runtime handler failed: ${(err as Error)?.message ?? String(err)}` }));
        ws.close(1011, 'handler failed');
      }
    };
    if (this.#o.ackMode === 'manual') {
      try {
        const r = this.#o.onEvent(ev);
        if (r instanceof Promise) r.catch(failed);
      } catch (err) {
        failed(err);
      }
      return;
    }
    this.#handling = this.#handling.then(async () => {
      try {
        await this.#o.onEvent(ev);
        ev.ack();
      } catch (err) {
        failed(err);
      }
    });
  }

  /** Stores the base cursor (coalesced, in order), then ACKs it on the open session. */
  #persist(): void {
    this.#saving = this.#saving.then(async () => {
      const base = this.#ledger.base;
      if (base === undefined || base === this.#saved || !this.#store || !this.#key) return this.#sendAck(this.#ws);
      try {
        await this.#store.save(this.#key, String(base));
        this.#saved = base;
      } catch (err) {
        // The cursor stays in memory: a restart may re-deliver, never skip. Say so once per failure.
        this.#o.onStatus?.({ state: 'disconnected', reason: `cursor store: ${(err as Error).message}`, retryInMs: 0 });
        return;
      }
      this.#sendAck(this.#ws);
    });
  }

  #sendAck(ws: WebSocket | undefined): void {
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.#live) return;
    // Only what is stored is acknowledged: the server then never counts as delivered what a restart would redo.
    const c = this.#ledger.ackToSend(this.#saved ?? -1);
    if (c !== undefined) ws.send(JSON.stringify({ op: 'ACK', cursor: String(c) }));
  }
}
