// The server's side of a relay pairing: one WebSocket to the relay room, reconnected with backoff
// and jitter. HTTP requests travel both ways as frames (the contract, Relay):
//   {op: 'request', id, method, path, headers, body}  ->  {op: 'response', id, status, body}
// Inbound requests are answered by `answer` (this server's own HTTP handler, see inbound.ts).

import WebSocket from 'ws';
import { newId } from '../protocol/ids.js';
import { RELAY_ACCESS_HEADER } from '../protocol/relay.js';
import {
  describeNetworkError,
  parseBody,
  REQUEST_TIMEOUT_MS,
  TransportError,
  type PairMethod,
  type PairResponse,
  type PairTransport,
} from './transport.js';

export interface RequestFrame {
  op: 'request';
  id: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface ResponseFrame {
  op: 'response';
  id: string;
  status: number;
  body?: unknown;
}

export interface RelayClientOptions {
  /** The relay endpoint, e.g. ws://relay.example/v1/relay (the room is added as ?room=). */
  url: string;
  room: string;
  /** Opens the relay socket. */
  relayToken: string;
  /** The relay-wide access token, when the relay requires one. */
  accessToken?: string;
  /** Bearer credential put on outbound request frames. */
  pairingToken: string;
  answer: (frame: RequestFrame) => Promise<PairResponse>;
  /** The peer joined (true) or left (false) the room. */
  onPeer?: (present: boolean) => void;
  /** The relay socket opened (true) or closed (false). */
  onSocket?: (open: boolean, detail?: string) => void;
  onFrame?: (direction: 'in' | 'out') => void;
  maxFrameBytes?: number;
  timeoutMs?: number;
  backoff?: { initialMs: number; maxMs: number };
}

interface Pending {
  resolve: (r: PairResponse) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** Largest frame sent to a relay (the default relay limit, svc relay --max-frame-bytes). */
export const FRAME_BUDGET = 2 * 1024 * 1024;

/** Delay before reconnect attempt `n` (0-based): exponential, capped, with +-50% jitter. */
export function backoffDelay(n: number, initialMs: number, maxMs: number, rand = Math.random): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(n, 20));
  return Math.round(base * (0.5 + rand()));
}

export class RelayClient implements PairTransport {
  readonly kind = 'relay' as const;
  private ws: WebSocket | undefined;
  private peerPresent = false;
  private attempts = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly pending = new Map<string, Pending>();
  /** Why the last connection attempt failed (no secrets: a status code or a socket error code). */
  lastError: string | undefined;

  constructor(private readonly o: RelayClientOptions) {}

  start(): void {
    this.connect();
  }

  ready(): boolean {
    return !this.closed && this.ws?.readyState === WebSocket.OPEN && this.peerPresent;
  }

  get socketOpen(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  request(method: PairMethod, path: string, body?: unknown): Promise<PairResponse> {
    if (this.closed) return Promise.reject(new TransportError('closed', 'the pairing is closing'));
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(
        new TransportError(
          'unreachable',
          `not connected to the relay${this.lastError ? `: ${relayWords(this.lastError)}` : ''}`,
          this.lastError,
        ),
      );
    }
    if (!this.peerPresent) return Promise.reject(new TransportError('peer_absent', 'the peer is not connected to the relay room'));
    const id = newId('rq');
    const frame: RequestFrame = {
      op: 'request',
      id,
      method,
      path,
      headers: { authorization: `Bearer ${this.o.pairingToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body } : {}),
    };
    return new Promise<PairResponse>((resolve, reject) => {
      const timeoutMs = this.o.timeoutMs ?? REQUEST_TIMEOUT_MS;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new TransportError('timeout', `no answer through the relay in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.send(frame);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.failPending(new TransportError('closed', 'the pairing is closing'));
    const ws = this.ws;
    this.ws = undefined;
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          ws.terminate();
          resolve();
        }, 1000);
        ws.once('close', () => {
          clearTimeout(t);
          resolve();
        });
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(1001, 'server closing');
      });
    }
  }

  private connect(): void {
    if (this.closed) return;
    const u = new URL(this.o.url);
    u.searchParams.set('room', this.o.room);
    const ws = new WebSocket(u, {
      headers: {
        authorization: `Bearer ${this.o.relayToken}`,
        ...(this.o.accessToken ? { [RELAY_ACCESS_HEADER]: this.o.accessToken } : {}),
      },
      maxPayload: this.o.maxFrameBytes ?? 4 * 1024 * 1024,
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    });
    this.ws = ws;
    ws.on('unexpected-response', (_req, res) => {
      this.lastError = `relay refused the connection: HTTP ${res.statusCode}`;
      res.resume();
      ws.terminate();
    });
    ws.on('open', () => {
      this.attempts = 0;
      this.lastError = undefined;
      this.o.onSocket?.(true);
    });
    ws.on('message', (data, binary) => {
      if (binary) return;
      this.o.onFrame?.('in');
      this.onMessage(String(data));
    });
    ws.on('error', (err) => {
      this.lastError ??= (err as NodeJS.ErrnoException).code ?? 'socket error';
    });
    ws.on('close', () => {
      if (this.ws !== ws) return;
      const wasPresent = this.peerPresent;
      this.peerPresent = false;
      this.failPending(new TransportError('unreachable', 'the relay connection closed'));
      if (wasPresent) this.o.onPeer?.(false);
      this.o.onSocket?.(false, this.lastError);
      if (this.closed) return;
      const delay = backoffDelay(this.attempts++, this.o.backoff?.initialMs ?? 250, this.o.backoff?.maxMs ?? 10_000);
      this.retry = setTimeout(() => this.connect(), delay);
      this.retry.unref();
    });
  }

  private onMessage(text: string): void {
    let frame: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(text);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return;
      frame = v as Record<string, unknown>;
    } catch {
      return;
    }
    switch (frame.op) {
      case 'relay.peer': {
        // Reported even when unchanged: the first frame after connecting says whether the peer is there.
        const present = frame.connected === true;
        const left = this.peerPresent && !present;
        this.peerPresent = present;
        if (left) this.failPending(new TransportError('peer_absent', 'the peer left the relay room'));
        this.o.onPeer?.(present);
        return;
      }
      case 'response': {
        const p = typeof frame.id === 'string' ? this.pending.get(frame.id) : undefined;
        if (!p) return;
        this.pending.delete(frame.id as string);
        clearTimeout(p.timer);
        const status = typeof frame.status === 'number' ? frame.status : 502;
        p.resolve({ status, body: typeof frame.body === 'string' ? parseBody(frame.body) : frame.body });
        return;
      }
      case 'request': {
        const req = asRequest(frame);
        if (!req) return;
        this.o
          .answer(req)
          .catch(
            (): PairResponse => ({ status: 502, body: { error: 'the server could not answer the relayed request', code: 'bad_gateway' } }),
          )
          .then((r) => this.send({ op: 'response', id: req.id, status: r.status, ...(r.body !== undefined ? { body: r.body } : {}) }));
        return;
      }
    }
  }

  private send(frame: RequestFrame | ResponseFrame): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    let text = JSON.stringify(frame);
    // A frame over the relay's limit would get this socket closed; answer with an error instead.
    if (Buffer.byteLength(text) > FRAME_BUDGET && frame.op === 'response') {
      text = JSON.stringify({
        op: 'response',
        id: frame.id,
        status: 502,
        body: { error: 'the answer is too large to pass through the relay', code: 'bad_gateway' },
      });
    }
    ws.send(text);
    this.o.onFrame?.('out');
  }

  private failPending(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
      this.pending.delete(id);
    }
  }
}

/** A well-formed request frame, or undefined. */
export function asRequest(f: Record<string, unknown>): RequestFrame | undefined {
  if (typeof f.id !== 'string' || f.id.length === 0 || f.id.length > 128) return undefined;
  if (typeof f.method !== 'string' || typeof f.path !== 'string' || !f.path.startsWith('/')) return undefined;
  const headers: Record<string, string> = {};
  if (f.headers !== null && typeof f.headers === 'object' && !Array.isArray(f.headers)) {
    for (const [k, v] of Object.entries(f.headers as Record<string, unknown>)) if (typeof v === 'string') headers[k.toLowerCase()] = v;
  }
  return {
    op: 'request',
    id: f.id,
    method: f.method.toUpperCase(),
    path: f.path,
    headers,
    ...(f.body !== undefined ? { body: f.body } : {}),
  };
}

/** Why the relay connection failed, in words (the raw code stays in `lastError` for the log). */
function relayWords(lastError: string): string {
  const refused = /^relay refused the connection: HTTP (\d+)$/.exec(lastError);
  if (refused?.[1] === '401') return 'the relay refused the connection: its access token is missing or wrong';
  if (refused?.[1] === '403') return 'the relay room is bound to another token';
  if (refused?.[1] === '429') return 'the relay limits new rooms from this address; retrying';
  if (refused) return `the relay refused the connection (HTTP ${refused[1]})`;
  return describeNetworkError(lastError, 'the relay');
}
