// Real live clients for black-box tests: an SSE reader over node:http (it sees comments, ids and
// can stop reading) and an attachment client over the ws package.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import WebSocket from 'ws';
import type { HttpServer, Json, TestServer } from './server.js';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  /** Parsed `data`. */
  json?: Json;
}

/** Waits for an item of a growing list; `from` moves past what earlier waits consumed. */
class Inbox<T> {
  readonly items: T[] = [];
  private read = 0;
  private waiters: (() => void)[] = [];

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  /** The next item after the last one returned that matches. */
  async next(match: (x: T) => boolean, ms: number, what: string, done: () => string | undefined): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      while (this.read < this.items.length) {
        const x = this.items[this.read++]!;
        if (match(x)) return x;
      }
      const over = done();
      if (over !== undefined) throw new Error(`${what}: stream ended (${over}) before a match`);
      const left = end - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

export interface SseOptions {
  token?: string;
  lastEventId?: string;
  query?: string;
  headers?: Record<string, string>;
}

export class SseClient {
  readonly frames = new Inbox<SseFrame>();
  readonly comments: string[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  /** The body of a non-200 answer. */
  body = '';
  ended: string | undefined;
  private req!: http.ClientRequest;
  private res: http.IncomingMessage | undefined;
  private buf = '';

  static open(s: HttpServer, o: SseOptions = {}): Promise<SseClient> {
    const c = new SseClient();
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'text/event-stream', ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      if (o.lastEventId !== undefined) headers['last-event-id'] = o.lastEventId;
      c.req = http.get(`${s.url}/v1/events/stream${o.query ? `?${o.query}` : ''}`, { headers, agent: false }, (res) => {
        c.res = res;
        c.status = res.statusCode ?? 0;
        c.headers = res.headers;
        res.setEncoding('utf8');
        if (c.status !== 200) {
          res.on('data', (d: string) => (c.body += d));
          res.on('end', () => resolve(c));
          return;
        }
        res.on('data', (d: string) => c.onData(d));
        res.on('close', () => {
          c.ended ??= 'closed';
          c.frames.wake();
        });
        resolve(c);
      });
      c.req.on('error', (err) => {
        c.ended = err.message;
        c.frames.wake();
        if (!c.res) reject(err);
      });
    });
  }

  private onData(d: string): void {
    this.buf += d;
    let i: number;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      const f: SseFrame = {};
      let any = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments.push(line.slice(1).trim());
          continue;
        }
        const at = line.indexOf(':');
        const key = at < 0 ? line : line.slice(0, at);
        const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
        if (key === 'id' || key === 'event' || key === 'data') {
          f[key] = value;
          any = true;
        }
      }
      if (!any) {
        this.frames.wake();
        continue;
      }
      if (f.data !== undefined) f.json = JSON.parse(f.data);
      this.frames.push(f);
    }
  }

  /** The next frame (after the last one returned) that matches. */
  next(match: (f: SseFrame) => boolean = () => true, ms = 5000, what = 'an SSE frame'): Promise<SseFrame> {
    return this.frames.next(match, ms, what, () => this.ended);
  }

  /** The next frame of this event type. */
  nextOf(type: string, ms = 5000): Promise<SseFrame> {
    return this.next((f) => f.event === type, ms, `an SSE ${type} frame`);
  }

  /** The next message.created frame whose text is `text`. */
  message(text: string, ms = 5000): Promise<SseFrame> {
    return this.next((f) => f.event === 'message.created' && f.json?.message?.parts?.[0]?.text === text, ms, `message "${text}"`);
  }

  get all(): SseFrame[] {
    return this.frames.items;
  }

  /** Stops reading: the server's socket buffer fills. */
  pause(): void {
    this.res?.pause();
  }

  resume(): void {
    this.res?.resume();
  }

  close(): void {
    this.req.destroy();
    this.res?.destroy();
  }
}

export interface AttachOptions {
  token?: string;
  headers?: Record<string, string>;
  /** Answer server PINGs (default true). */
  autoPong?: boolean;
}

export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upgrade refused with ${status}: ${body}`);
  }
}

export class AttachClient {
  readonly frames = new Inbox<Json>();
  closeInfo: { code: number; reason: string } | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;
  autoPong: boolean;

  private constructor(
    readonly ws: WebSocket,
    o: AttachOptions,
  ) {
    this.autoPong = o.autoPong ?? true;
    ws.on('message', (d, isBinary) => {
      const f = isBinary ? { op: '(binary)' } : JSON.parse(d.toString());
      if (f.op === 'PING' && this.autoPong) this.send({ op: 'PONG' });
      this.frames.push(f);
    });
    ws.on('error', () => {});
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        this.frames.wake();
        resolve(this.closeInfo);
      }),
    );
  }

  /** Opens the WebSocket; rejects with UpgradeRefused when the server answers with HTTP. */
  static open(s: HttpServer, o: AttachOptions = {}): Promise<AttachClient> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/v1/attach`, { headers, maxPayload: 64 * 1024 * 1024 });
    const c = new AttachClient(ws, o);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(c));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => reject(new UpgradeRefused(res.statusCode ?? 0, body)));
      });
      ws.once('error', (err) => reject(err));
    });
  }

  send(f: unknown): void {
    this.ws.send(typeof f === 'string' ? f : JSON.stringify(f));
  }

  /** The next frame (after the last one returned) that matches; `op` string or predicate. */
  next(match: string | ((f: Json) => boolean), ms = 5000): Promise<Json> {
    const fn = typeof match === 'string' ? (f: Json) => f.op === match : match;
    return this.frames.next(fn, ms, typeof match === 'string' ? `a ${match} frame` : 'a frame', () =>
      this.closeInfo ? `close ${this.closeInfo.code} ${this.closeInfo.reason}` : undefined,
    );
  }

  /** The next EVENT frame holding message.created with this text. */
  message(text: string, ms = 5000): Promise<Json> {
    return this.next((f) => f.op === 'EVENT' && f.event?.type === 'message.created' && f.event.message?.parts?.[0]?.text === text, ms);
  }

  /** Every EVENT frame received so far. */
  get events(): Json[] {
    return this.frames.items.filter((f) => f.op === 'EVENT');
  }

  /** HELLO, IDENTIFY; resolves with READY (or throws with the ERROR frame's text). */
  async identify(fields: Record<string, Json>): Promise<Json> {
    await this.next('HELLO');
    this.send({ op: 'IDENTIFY', ...fields });
    const f = await this.next((x) => x.op === 'READY' || x.op === 'ERROR');
    if (f.op === 'ERROR') throw new Error(`IDENTIFY rejected: ${f.code}: ${f.error}`);
    return f;
  }

  ack(cursor: string | number): void {
    this.send({ op: 'ACK', cursor });
  }

  async close(): Promise<void> {
    if (!this.closeInfo) this.ws.close(1000);
    const t = setTimeout(() => this.ws.terminate(), 2000);
    await this.closed;
    clearTimeout(t);
  }
}

/** Opens an attachment and identifies; returns the client and its READY frame. */
export async function attachAs(
  s: HttpServer,
  fields: Record<string, Json>,
  o: AttachOptions = {},
): Promise<{ c: AttachClient; ready: Json }> {
  const c = await AttachClient.open(s, o);
  try {
    return { c, ready: await c.identify(fields) };
  } catch (err) {
    await c.close();
    throw err;
  }
}

/** Opens an attachment, identifies and expects an ERROR before READY; returns it and the close. */
export async function rejectedIdentify(
  s: HttpServer,
  fields: Record<string, Json>,
  o: AttachOptions = {},
): Promise<{ error: Json; close: { code: number; reason: string }; frames: Json[] }> {
  const c = await AttachClient.open(s, o);
  await c.next('HELLO');
  c.send({ op: 'IDENTIFY', ...fields });
  const error = await c.next((x) => x.op === 'ERROR' || x.op === 'READY');
  const close = await c.closed;
  return { error, close, frames: c.frames.items };
}

/** Reads `/metrics` with a token and returns the value of one series (labels as written). */
export async function metricValue(s: HttpServer, token: string, series: string): Promise<number | undefined> {
  const r = await s.get('/metrics', token);
  for (const line of r.text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

/** Resident set of a server process in MiB (Linux). */
export function rssMiB(s: TestServer): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.proc.pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** Opens GET /v1/events/stream (resumed after `lastEventId`, with `token` if given) on a raw socket that never reads. */
export function stalledStream(s: HttpServer, lastEventId: string, token?: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(s.port, '127.0.0.1', () => {
      const auth = token ? `authorization: Bearer ${token}\r\n` : '';
      sock.write(`GET /v1/events/stream HTTP/1.1\r\nhost: x\r\n${auth}last-event-id: ${lastEventId}\r\n\r\n`);
      sock.pause();
      resolve(sock);
    });
    // Later errors (the server closing a stalled stream) are expected: only a failed connect rejects.
    sock.on('error', reject);
  });
}

/** What a stream read delivered: its event ids, and whether a replay gap frame came. */
export interface StreamRead {
  ids: string[];
  gap: boolean;
}

/** Reads GET /v1/events/stream until `until` holds for the event ids seen so far, or `ms` pass. */
export async function readEventIds(
  s: HttpServer,
  headers: Record<string, string>,
  until: (ids: string[]) => boolean,
  ms: number,
): Promise<StreamRead> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const out: StreamRead = { ids: [], gap: false };
  try {
    const r = await fetch(`${s.url}/v1/events/stream`, { headers, signal: ac.signal });
    const reader = r.body!.getReader();
    const dec = new TextDecoder();
    let partial = '';
    while (!until(out.ids)) {
      const { value, done } = await reader.read();
      if (done) break;
      // Line by line as it arrives: the frames are large, rescanning everything would be quadratic.
      const lines = (partial + dec.decode(value, { stream: true })).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('id: ')) out.ids.push(line.slice(4));
        else if (line === 'event: stream.replay_gap') out.gap = true;
      }
    }
  } catch {
    // timed out: what arrived is the answer
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return out;
}
