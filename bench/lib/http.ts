// A lean HTTP/1.1 keep-alive client for load generation: one request in flight per connection,
// responses parsed just enough (status, content-length, body). Node's own client costs several
// times more CPU per request, and on a 2-core machine the load generator shares the cores with
// the server under test.

import net from 'node:net';
import { nowMs, Samples, sleep } from './stats.js';

export interface HttpReply {
  status: number;
  body: Buffer;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** One keep-alive connection to host:port. */
export class Conn {
  private readonly socket: net.Socket;
  private buf: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (r: HttpReply) => void; reject: (e: Error) => void } | undefined;
  private closedError: Error | undefined;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      this.parse();
    });
    const fail = (err: Error) => {
      this.closedError ??= err;
      const w = this.waiting;
      this.waiting = undefined;
      w?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static open(port: number, host = '127.0.0.1'): Promise<Conn> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, host);
      s.once('connect', () => {
        s.off('error', reject);
        resolve(new Conn(s));
      });
      s.once('error', reject);
    });
  }

  /** Sends one raw request (bytes) and resolves with its response. */
  request(raw: Buffer | string): Promise<HttpReply> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(raw);
    });
  }

  private parse(): void {
    const end = this.buf.indexOf(CRLFCRLF);
    if (end < 0) return;
    const head = this.buf.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    const len = m ? Number(m[1]) : 0;
    if (this.buf.length < end + 4 + len) return;
    const body = this.buf.subarray(end + 4, end + 4 + len);
    this.buf = this.buf.subarray(end + 4 + len);
    const w = this.waiting;
    this.waiting = undefined;
    w?.resolve({ status, body });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Bytes of a POST with a JSON body. */
export function postBytes(path: string, body: string, token?: string): Buffer {
  const b = Buffer.from(body);
  const auth = token ? `authorization: Bearer ${token}\r\n` : '';
  return Buffer.concat([
    Buffer.from(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${auth}content-type: application/json\r\ncontent-length: ${b.length}\r\n\r\n`),
    b,
  ]);
}

/** Bytes of a GET. */
export function getBytes(path: string, token?: string): string {
  const auth = token ? `authorization: Bearer ${token}\r\n` : '';
  return `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${auth}\r\n`;
}

export interface LoadResult {
  /** Accepted (2xx) responses per second over the run. */
  rate: number;
  ok: number;
  errors: number;
  /** First non-2xx status and body seen, for the notes. */
  firstError?: string;
  latency: Samples;
  seconds: number;
}

/**
 * Closed-loop load: `clients` connections each send `make(i)` back to back for `seconds`.
 * Latency is from write to full response.
 */
export async function closedLoop(
  port: number,
  clients: number,
  seconds: number,
  make: (i: number) => Buffer | string,
): Promise<LoadResult> {
  const conns = await Promise.all(Array.from({ length: clients }, () => Conn.open(port)));
  const latency = new Samples();
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  let seq = 0;
  const start = nowMs();
  const end = start + seconds * 1000;
  await Promise.all(
    conns.map(async (c) => {
      while (nowMs() < end) {
        const t0 = nowMs();
        let r: HttpReply;
        try {
          r = await c.request(make(seq++));
        } catch (err) {
          errors++;
          firstError ??= String(err);
          return;
        }
        const t1 = nowMs();
        if (r.status >= 200 && r.status < 300) {
          ok++;
          latency.push(t1 - t0);
        } else {
          errors++;
          firstError ??= `${r.status} ${r.body.toString().slice(0, 200)}`;
          if (r.status === 429 || r.status >= 500) await sleep(5);
        }
      }
    }),
  );
  const elapsed = (nowMs() - start) / 1000;
  for (const c of conns) c.close();
  return { rate: ok / elapsed, ok, errors, ...(firstError ? { firstError } : {}), latency, seconds: elapsed };
}

export interface PacedResult {
  sent: number;
  ok: number;
  errors: number;
  firstError?: string;
  /** Achieved send rate (messages/s). */
  rate: number;
  seconds: number;
  latency: Samples;
}

/**
 * Open-loop publishing at `rate` per second for `seconds` (rate 0: as fast as `inflight`
 * connections allow). `make(i, t)` builds request i stamped with send time `t` (ms, nowMs clock).
 */
export async function paced(
  port: number,
  opts: { rate: number; seconds: number; inflight: number; max?: number; until?: () => boolean },
  make: (i: number, t: number) => Buffer | string,
): Promise<PacedResult> {
  const conns = await Promise.all(Array.from({ length: opts.inflight }, () => Conn.open(port)));
  const idle = [...conns];
  const latency = new Samples();
  let sent = 0;
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  const start = nowMs();
  const end = start + opts.seconds * 1000;
  const max = opts.max ?? Infinity;
  let wake: (() => void) | undefined;
  const send = (c: Conn) => {
    const t = nowMs();
    const i = sent++;
    c.request(make(i, t)).then(
      (r) => {
        if (r.status >= 200 && r.status < 300) {
          ok++;
          latency.push(nowMs() - t);
        } else {
          errors++;
          firstError ??= `${r.status} ${r.body.toString().slice(0, 200)}`;
        }
        idle.push(c);
        wake?.();
      },
      (err: unknown) => {
        errors++;
        firstError ??= String(err);
        wake?.();
      },
    );
  };
  while (nowMs() < end && sent < max && !opts.until?.()) {
    const due = opts.rate > 0 ? Math.min(max, Math.floor(((nowMs() - start) / 1000) * opts.rate) + 1) : max;
    // Oldest idle connection first: taken last-in-first-out, the ones at the bottom sat idle past
    // the server's keep-alive timeout (5 s), were closed, and failed the request sent on them.
    while (sent < due && idle.length > 0) send(idle.shift()!);
    if (opts.rate > 0 && sent >= due) await sleep(1);
    else await new Promise<void>((r) => (wake = r));
    wake = undefined;
  }
  const elapsed = (nowMs() - start) / 1000;
  while (idle.length < conns.length && ok + errors < sent) await new Promise<void>((r) => (wake = r));
  for (const c of conns) c.close();
  return { sent, ok, errors, ...(firstError ? { firstError } : {}), rate: ok / elapsed, seconds: elapsed, latency };
}
