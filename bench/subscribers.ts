// A child process holding N live subscribers of one kind, so their parsing does not share an
// event loop with the publisher. Driven over IPC by bench/lib/pool.ts:
//   parent -> {cmd: 'connect', kind, port, n, ...} | {cmd: 'phase', name} | {cmd: 'report'} | {cmd: 'samples'} | {cmd: 'close'}
//   child  -> {type: 'ready', ms} | {type: 'error', error} | {type: 'report', ...} | {type: 'samples', values}
// Every published message's text is `b <phase> <index> <send time ms>`; each subscriber counts the
// messages of the current phase and records publish-to-delivery latency on the shared clock.

import http from 'node:http';
import WebSocket from 'ws';
import { connect, consumerOpts, createInbox, type NatsConnection } from 'nats';
import { nowMs, Samples } from './lib/stats.js';

export type SubscriberKind = 'svc-attach' | 'svc-sse' | 'baseline' | 'nats';

export interface ConnectCommand {
  cmd: 'connect';
  kind: SubscriberKind;
  port: number;
  n: number;
  token?: string;
  network?: string;
  /** NATS subject of the fan-out. */
  subject?: string;
  /** Index of this process's first subscriber: agent ids are `a<first + k>` (several processes share one room). */
  first?: number;
  /** Subscribers connecting at once (default 10): the attach storm uses more. */
  wave?: number;
}

/** The child's answer to connect: every subscriber is ready, after `ms` of connecting. */
export interface Ready {
  type: 'ready';
  ms: number;
}

export interface Report {
  type: 'report';
  /** Messages of the current phase received by each subscriber. */
  received: number[];
  p50_ms: number | null;
  p99_ms: number | null;
  /** nowMs() of the last delivery of the phase (0 when none). */
  lastAt: number;
  errors: string[];
}

const decoder = new TextDecoder();
let phase = '';
let received: number[] = [];
let latency = new Samples();
let lastAt = 0;
let keepLatency = true;
let first = 0;
const errors: string[] = [];
const closers: (() => void)[] = [];

function send(msg: unknown): void {
  process.send?.(msg);
}

const MARK = '"text":"b ';

/**
 * The probe text of a frame, found by search rather than JSON.parse: 100 subscribers at 1,000
 * messages/s are 100,000 frames a second in one process, and a full parse of each would make the
 * probe, not the server, what the latency measures (for every target alike).
 */
function probeText(frame: string): string | undefined {
  const at = frame.indexOf(MARK);
  if (at < 0) return undefined;
  const end = frame.indexOf('"', at + MARK.length);
  return end < 0 ? undefined : frame.slice(at + 8, end);
}

/** Accounts one delivered message text to subscriber `k`. */
function deliver(k: number, text: unknown): void {
  if (typeof text !== 'string' || !text.startsWith('b ')) return;
  const sp1 = text.indexOf(' ', 2);
  if (text.slice(2, sp1) !== phase) return;
  const sp2 = text.indexOf(' ', sp1 + 1);
  const t = Number(text.slice(sp2 + 1));
  const now = nowMs();
  received[k]!++;
  lastAt = now;
  if (keepLatency) latency.push(now - t);
}

function noteError(what: string): void {
  if (errors.length < 20) errors.push(what);
}

async function connectAttach(c: ConnectCommand, k: number, path: string): Promise<void> {
  const ws = new WebSocket(`ws://127.0.0.1:${c.port}${path}`, {
    perMessageDeflate: false,
    skipUTF8Validation: true,
    ...(c.token ? { headers: { authorization: `Bearer ${c.token}` } } : {}),
  });
  closers.push(() => ws.terminate());
  let maxCursor = 0;
  let ackScheduled = false;
  const ack = () => {
    ackScheduled = false;
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ op: 'ACK', cursor: maxCursor }));
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`subscriber ${k}: no READY in 30s`)), 30_000);
    ws.on('error', (err) => {
      clearTimeout(timer);
      noteError(`subscriber ${k}: ${err.message}`);
      reject(err);
    });
    ws.on('close', (code, reason) => {
      clearTimeout(timer);
      if (code !== 1000 && code !== 1005) noteError(`subscriber ${k} closed: ${code} ${reason.toString()}`);
      reject(new Error(`subscriber ${k} closed: ${code} ${reason.toString()}`));
    });
    if (c.kind === 'baseline') {
      ws.on('open', () => {
        clearTimeout(timer);
        resolve();
      });
    }
    ws.on('message', (data: Buffer) => {
      const raw = data.toString();
      // EVENT frames (nearly all of them) are read by search; the few others are parsed.
      if (raw.startsWith('{"op":"EVENT"')) {
        const text = probeText(raw);
        if (text !== undefined) deliver(k, text);
        const m = /"cursor":"?(\d+)/.exec(raw);
        const cursor = m ? Number(m[1]) : 0;
        if (cursor > maxCursor) maxCursor = cursor;
        if (!ackScheduled) {
          ackScheduled = true;
          setImmediate(ack);
        }
        return;
      }
      const f = JSON.parse(raw) as {
        op: string;
        cursor?: number;
        event?: { type?: string; message?: { parts?: { text?: string }[] } };
        error?: string;
      };
      switch (f.op) {
        case 'HELLO':
          ws.send(
            JSON.stringify({
              op: 'IDENTIFY',
              network_id: c.network,
              agent: { id: `a${first + k}`, name: `Agent ${first + k}` },
              capabilities: { rooms: true, dms: false, threads: true, artifacts: false },
            }),
          );
          break;
        case 'READY':
          clearTimeout(timer);
          resolve();
          break;
        case 'EVENT':
          if (f.event?.type === 'message.created') deliver(k, f.event.message?.parts?.[0]?.text);
          if (typeof f.cursor === 'number' && f.cursor > maxCursor) maxCursor = f.cursor;
          if (!ackScheduled) {
            ackScheduled = true;
            setImmediate(ack);
          }
          break;
        case 'PING':
          ws.send(JSON.stringify({ op: 'PONG' }));
          break;
        case 'ERROR':
          noteError(`subscriber ${k}: ERROR ${f.error}`);
          break;
      }
    });
  });
}

function connectSse(c: ConnectCommand, k: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port: c.port,
        path: '/v1/events/stream',
        headers: { accept: 'text/event-stream', ...(c.token ? { authorization: `Bearer ${c.token}` } : {}) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`SSE subscriber ${k}: status ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          buf += chunk;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, end);
            buf = buf.slice(end + 2);
            let data = '';
            let type = '';
            for (const line of frame.split('\n')) {
              if (line.startsWith('data:')) data += line.slice(line[5] === ' ' ? 6 : 5);
              else if (line.startsWith('event:')) type = line.slice(6).trim();
            }
            if (type === 'message.created' && data) deliver(k, probeText(data));
          }
        });
        res.on('error', (err) => noteError(`SSE subscriber ${k}: ${err.message}`));
        resolve();
      },
    );
    req.on('error', reject);
    closers.push(() => req.destroy());
  });
}

async function connectNats(c: ConnectCommand, k: number): Promise<void> {
  const nc: NatsConnection = await connect({ servers: `127.0.0.1:${c.port}`, maxReconnectAttempts: 0 });
  closers.push(() => void nc.close());
  const js = nc.jetstream();
  const opts = consumerOpts();
  opts.deliverTo(createInbox());
  opts.deliverNew();
  opts.ackAll();
  let last: { ack(): void } | undefined;
  let ackScheduled = false;
  opts.callback((err, m) => {
    if (err) {
      noteError(`NATS subscriber ${k}: ${err.message}`);
      return;
    }
    if (!m) return;
    deliver(k, probeText(decoder.decode(m.data)));
    last = m;
    if (!ackScheduled) {
      ackScheduled = true;
      setImmediate(() => {
        ackScheduled = false;
        last?.ack();
      });
    }
  });
  await js.subscribe(c.subject ?? 'bench.fanout', opts);
  await nc.flush();
}

async function connectAll(c: ConnectCommand): Promise<void> {
  received = new Array<number>(c.n).fill(0);
  first = c.first ?? 0;
  const size = Math.max(1, c.wave ?? 10);
  // Connect in small waves so a server's accept queue is not the thing measured.
  for (let i = 0; i < c.n; i += size) {
    const wave = [];
    for (let k = i; k < Math.min(c.n, i + size); k++) {
      if (c.kind === 'svc-attach') wave.push(connectAttach(c, k, '/v1/attach'));
      else if (c.kind === 'baseline') wave.push(connectAttach(c, k, '/ws'));
      else if (c.kind === 'svc-sse') wave.push(connectSse(c, k));
      else wave.push(connectNats(c, k));
    }
    await Promise.all(wave);
  }
}

process.on('message', (msg: { cmd: string; name?: string; keepLatency?: boolean } & Partial<ConnectCommand>) => {
  if (msg.cmd === 'connect') {
    const t0 = nowMs();
    connectAll(msg as ConnectCommand).then(
      () => send({ type: 'ready', ms: nowMs() - t0 } satisfies Ready),
      (err: unknown) => send({ type: 'error', error: String((err as Error)?.message ?? err) }),
    );
  } else if (msg.cmd === 'phase') {
    phase = msg.name ?? '';
    keepLatency = msg.keepLatency !== false;
    received = received.map(() => 0);
    latency = new Samples();
    lastAt = 0;
    send({ type: 'phase' });
  } else if (msg.cmd === 'report') {
    const s = latency.summary();
    const r: Report = { type: 'report', received, p50_ms: s.p50_ms, p99_ms: s.p99_ms, lastAt, errors };
    send(r);
  } else if (msg.cmd === 'samples') {
    // Every latency of the phase, so a parent holding several processes can take one percentile over all.
    send({ type: 'samples', values: Array.from(latency.values()) });
  } else if (msg.cmd === 'close') {
    for (const c of closers) c();
    setTimeout(() => process.exit(0), 200).unref();
  }
});

process.on('disconnect', () => process.exit(0));
