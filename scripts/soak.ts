// npm run soak: a long mixed-traffic run against a real `svc serve` (sqlite store), not part of
// npm test. Senders post room, thread and DM messages (every fifth message of a room is human, as
// in a staffed network, so the loop guard never has cause to trip); history readers page through
// rooms; SSE observers follow everything; 200 attached agents ACK what they get and drop and
// reconnect at random, resuming from their last processed cursor.
//
// Every minute it prints throughput, error counts, p99 latencies, event delivery lag and the
// server's resident memory. It fails (exit 1) on any error response, any lost or duplicated event,
// or memory that grows after warm-up by more than the data stored since then explains (sql.js
// keeps the database itself in memory).
//
//   npm run soak                       # 10 minutes, 200 agents
//   npm run soak -- --minutes 2 --agents 50 --rate 40

import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { startServer, TOKENS, type Json, type TestServer } from '../test/helpers/server.js';
import { SseClient } from '../test/helpers/live.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : Number(process.env[`SOAK_${name.toUpperCase()}`] ?? fallback);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name}: must be a number`);
  return v;
}

const MINUTES = arg('minutes', 10);
const AGENTS = arg('agents', 200);
const RATE = arg('rate', 60); // messages per second, all senders together
const READ_RATE = arg('reads', 30); // history reads per second
const OBSERVERS = arg('observers', 4);
const ROOMS = 20;
// The SSE replay buffer (server.event_buffer, 10000 events) fills in about two minutes at this
// rate; the JS heap is flat from then on.
const WARMUP_MIN = MINUTES >= 6 ? 3 : Math.max(1, Math.floor(MINUTES / 2));
const ADMIN = TOKENS.admin.value;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (n: number) => Math.floor(Math.random() * n);
const agentId = (i: number) => `ag${i}`;
const roomsOf = (i: number) => [i % ROOMS, (i + 7) % ROOMS];

// ---- per-minute statistics ----

interface Minute {
  sends: number;
  reads: number;
  errors: number;
  sendMs: number[];
  readMs: number[];
  lagMs: number[];
  events: number;
  reconnects: number;
  rss: number;
  /** Lowest JS heap in use seen this minute (after collections), and WASM/Buffer memory. */
  heapLow: number;
  external: number;
  storedBytes: number;
}

const minutes: Minute[] = [];
const newMinute = (): Minute => ({
  sends: 0,
  reads: 0,
  errors: 0,
  sendMs: [],
  readMs: [],
  lagMs: [],
  events: 0,
  reconnects: 0,
  rss: 0,
  heapLow: Infinity,
  external: 0,
  storedBytes: 0,
});
let cur = newMinute();
const errorSamples: string[] = [];
function error(what: string): void {
  cur.errors++;
  if (errorSamples.length < 20) errorSamples.push(what);
}

function p99(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!;
}

// ---- what was sent, by global number ----

/** Global message number -> who should receive it (agent indexes; observers get everything). */
const audience: (number[] | undefined)[] = [];
const sentAt: number[] = [];
let nextG = 0;

/** One consumer's view: a bitset over global message numbers. */
class Seen {
  private bits = new Uint8Array(1 << 16);
  duplicates = 0;
  count = 0;
  add(g: number): void {
    if (g >= this.bits.length * 8) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, (g >> 3) + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (g & 7);
    if (this.bits[g >> 3]! & mask) this.duplicates++;
    else {
      this.bits[g >> 3]! |= mask;
      this.count++;
    }
  }
  has(g: number): boolean {
    return g < this.bits.length * 8 && (this.bits[g >> 3]! & (1 << (g & 7))) !== 0;
  }
}

const gOf = (m: Json): number | undefined => {
  const text = m?.parts?.[0]?.text;
  const x = typeof text === 'string' ? /^soak g=(\d+) /.exec(text) : null;
  return x ? Number(x[1]) : undefined;
};

// ---- attached agents ----

class Agent {
  readonly seen = new Seen();
  cursor: string | undefined;
  private ws: WebSocket | undefined;
  private stopped = false;
  private connected = false;
  readonly problems: string[] = [];
  private running: Promise<void> | undefined;

  constructor(
    readonly index: number,
    private readonly s: TestServer,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  get isConnected(): boolean {
    return this.connected;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ws?.close(1000);
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      // Live for a random while (mean 30 s), then drop and come back within a second.
      const life = -Math.log(1 - Math.random()) * 30_000;
      await this.session(this.stopped ? 0 : life);
      if (this.stopped) return;
      cur.reconnects++;
      await sleep(rand(1000));
    }
  }

  /** One attachment until `life` ms pass (0: until stopped) or it closes. */
  private session(life: number): Promise<void> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${this.s.port}/v1/attach`, { headers: { authorization: `Bearer ${ADMIN}` } });
      this.ws = ws;
      let timer: NodeJS.Timeout | undefined;
      ws.on('error', (err) => {
        if (!this.stopped) error(`attach ${this.index}: ${err.message}`);
      });
      ws.on('close', () => {
        clearTimeout(timer);
        this.connected = false;
        resolve();
      });
      ws.on('message', (data) => {
        const f = JSON.parse(data.toString()) as Json;
        switch (f.op) {
          case 'HELLO':
            ws.send(
              JSON.stringify({
                op: 'IDENTIFY',
                network_id: 'soak',
                agent: { id: agentId(this.index) },
                ...(this.cursor ? { cursor: this.cursor } : {}),
              }),
            );
            break;
          case 'READY':
            this.connected = true;
            if (this.cursor !== undefined && f.cursor !== this.cursor) this.problems.push(`READY at ${f.cursor}, not at ${this.cursor}`);
            // Delivery starts after READY.cursor: resume from there even if no event comes before a drop.
            this.cursor ??= String(f.cursor);
            if (life > 0) timer = setTimeout(() => ws.close(1000), life);
            break;
          case 'EVENT': {
            cur.events++;
            if (this.cursor !== undefined && !(Number(f.cursor) > Number(this.cursor)))
              this.problems.push(`cursor ${f.cursor} after ${this.cursor}`);
            this.cursor = String(f.cursor);
            const g = f.event?.type === 'message.created' ? gOf(f.event.message) : undefined;
            if (g !== undefined) this.seen.add(g);
            ws.send(JSON.stringify({ op: 'ACK', cursor: f.cursor }));
            break;
          }
          case 'PING':
            ws.send('{"op":"PONG"}');
            break;
          case 'ERROR':
            error(`attach ${this.index} ERROR ${f.code}: ${f.error}`);
            break;
        }
      });
    });
  }
}

// ---- traffic ----

interface Sent {
  room?: number;
  dm?: [number, number];
}

async function timed(kind: 'send' | 'read', p: Promise<Response>, what: string): Promise<Json | undefined> {
  const t0 = performance.now();
  try {
    const r = await p;
    const text = await r.text();
    const ms = performance.now() - t0;
    if (kind === 'send') {
      cur.sends++;
      cur.sendMs.push(ms);
    } else {
      cur.reads++;
      cur.readMs.push(ms);
    }
    if (!r.ok) {
      error(`${what} -> ${r.status} ${text.slice(0, 200)}`);
      return undefined;
    }
    return JSON.parse(text);
  } catch (err) {
    error(`${what} -> ${(err as Error).message}`);
    return undefined;
  }
}

const roomCount = new Array<number>(ROOMS).fill(0);

async function sendOne(s: TestServer): Promise<void> {
  const g = nextG++;
  const roll = Math.random();
  let body: Json;
  let to: Sent;
  let human = false;
  if (roll < 0.85) {
    const room = rand(ROOMS);
    human = ++roomCount[room]! % 5 === 0;
    const members = Array.from({ length: AGENTS }, (_, i) => i).filter((i) => roomsOf(i).includes(room));
    const from = human ? { type: 'human', id: 'operator' } : { type: 'agent', id: agentId(members[rand(members.length)] ?? 0) };
    const target =
      roll < 0.65
        ? { kind: 'room', room_id: `room${room}` }
        : { kind: 'thread', room_id: `room${room}`, thread_id: `th${room}-${rand(10)}` };
    body = { target, from, parts: [{ kind: 'text', text: `soak g=${g} ${'x'.repeat(rand(400))}` }] };
    to = { room };
  } else {
    const a = rand(AGENTS);
    const b = (a + 1 + rand(AGENTS - 1)) % AGENTS;
    body = {
      target: { kind: 'dm', participant_ids: [agentId(b)] },
      from: { type: 'agent', id: agentId(a) },
      parts: [{ kind: 'text', text: `soak g=${g} dm` }],
    };
    to = { dm: [a, b] };
  }
  audience[g] = undefined;
  sentAt[g] = Date.now();
  const r = await timed(
    'send',
    fetch(`${s.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    `send ${human ? 'human' : 'agent'} g=${g}`,
  );
  if (!r) return;
  cur.storedBytes += JSON.stringify(body).length;
  audience[g] = to.room !== undefined ? Array.from({ length: AGENTS }, (_, i) => i).filter((i) => roomsOf(i).includes(to.room!)) : to.dm!;
}

async function readOne(s: TestServer): Promise<void> {
  const room = rand(ROOMS);
  const paths = [
    `/v1/rooms/room${room}/messages?limit=${1 + rand(100)}`,
    `/v1/rooms/room${room}/threads`,
    '/v1/agents?limit=100',
    '/v1/dms?limit=50',
    `/v1/artifacts?room_id=room${room}`,
  ];
  const p = paths[rand(paths.length)]!;
  await timed('read', fetch(`${s.url}${p}`, { headers: { authorization: `Bearer ${TOKENS.observer.value}` } }), `read ${p}`);
}

/** An SSE observer that counts every message it is shown and resumes with Last-Event-ID after a drop. */
class Observer {
  readonly seen = new Seen();
  private c: SseClient | undefined;
  private lastId: string | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  reconnects = 0;

  constructor(
    private readonly s: TestServer,
    private readonly measureLag: boolean,
  ) {}

  async start(): Promise<void> {
    await this.open();
    this.running = this.watch();
  }

  private async open(): Promise<void> {
    const c = await SseClient.open(this.s, { token: ADMIN, ...(this.lastId ? { lastEventId: this.lastId } : {}) });
    if (c.status !== 200) throw new Error(`SSE refused: ${c.status} ${c.body}`);
    // Keep no frames: the observer must not be the process that grows.
    c.frames.push = (f) => {
      if (f.id) this.lastId = f.id;
      if (f.event === 'stream.replay_gap') error('SSE replay gap');
      if (f.event !== 'message.created') return;
      const g = gOf(f.json?.message);
      if (g === undefined) return;
      this.seen.add(g);
      if (this.measureLag && sentAt[g] !== undefined) cur.lagMs.push(Date.now() - sentAt[g]!);
    };
    this.c = c;
  }

  private async watch(): Promise<void> {
    while (!this.stopped) {
      await sleep(200);
      if (this.stopped || this.c?.ended === undefined) continue;
      this.reconnects++;
      await this.open().catch((err: unknown) => error(`SSE reconnect: ${(err as Error).message}`));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.c?.close();
    await this.running;
  }
}

/** Runs `fn` about `rps` times a second until `until()`, with bounded concurrency. */
async function paced(rps: number, concurrency: number, until: () => boolean, fn: () => Promise<void>): Promise<void> {
  if (rps <= 0) return;
  const gap = 1000 / rps;
  let next = performance.now();
  const inflight = new Set<Promise<void>>();
  while (!until()) {
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
    next += gap;
    if (inflight.size >= concurrency) await Promise.race(inflight);
    const p: Promise<void> = fn().finally(() => inflight.delete(p));
    inflight.add(p);
  }
  await Promise.all(inflight);
}

/** The server's own view of its memory, from /metrics (prom-client default metrics). */
async function heapOf(s: TestServer): Promise<{ heap: number; external: number } | undefined> {
  try {
    const text = await (await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    return { heap: value('svc_process_nodejs_heap_size_used_bytes'), external: value('svc_process_nodejs_external_memory_bytes') };
  } catch {
    return undefined;
  }
}

function rssOf(s: TestServer): number {
  const status = readFileSync(`/proc/${s.proc.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

const mib = (b: number) => (b / 1048576).toFixed(1);

async function main(): Promise<number> {
  const rooms = Array.from({ length: ROOMS }, (_, r) => ({
    id: `room${r}`,
    members: Array.from({ length: AGENTS }, (_, i) => i)
      .filter((i) => roomsOf(i).includes(r))
      .map(agentId),
  }));
  const s = await startServer({ config: { network: { id: 'soak', name: 'Soak' }, rooms } });
  console.log(
    `soak: ${MINUTES} min, ${AGENTS} attached agents, ${OBSERVERS} SSE observers, ${RATE} sends/s, ${READ_RATE} reads/s; server pid ${s.proc.pid} at ${s.url}`,
  );
  const agents = Array.from({ length: AGENTS }, (_, i) => new Agent(i, s));
  for (const a of agents) a.start();
  while (agents.some((a) => !a.isConnected)) await sleep(100);
  const observers: Observer[] = [];
  for (let i = 0; i < OBSERVERS; i++) {
    const o = new Observer(s, i === 0);
    await o.start();
    observers.push(o);
  }

  const end = Date.now() + MINUTES * 60_000;
  const over = () => Date.now() >= end;
  const report = (m: Minute, secs: number) =>
    console.log(
      `minute ${String(minutes.length).padStart(2)}: ${(m.sends / secs).toFixed(1)} sends/s p99 ${p99(m.sendMs).toFixed(1)} ms, ${(m.reads / secs).toFixed(1)} reads/s p99 ${p99(m.readMs).toFixed(1)} ms, ` +
        `${(m.events / secs).toFixed(0)} attach events/s, delivery lag p99 ${p99(m.lagMs)} ms, ${m.reconnects} reconnects, ${m.errors} errors, ` +
        `rss ${mib(m.rss)} MiB (js heap low ${mib(m.heapLow)}, external ${mib(m.external)})`,
    );
  const sampler = setInterval(() => {
    void heapOf(s).then((h) => {
      if (!h) return;
      cur.heapLow = Math.min(cur.heapLow, h.heap);
      cur.external = h.external;
    });
  }, 5_000);
  let minuteStarted = Date.now();
  const ticker = setInterval(() => {
    cur.rss = rssOf(s);
    minutes.push(cur);
    const m = cur;
    cur = newMinute();
    minuteStarted = Date.now();
    report(m, 60);
  }, 60_000);

  await Promise.all([paced(RATE, 32, over, () => sendOne(s)), paced(READ_RATE, 16, over, () => readOne(s))]);
  clearInterval(ticker);
  clearInterval(sampler);
  // A last partial minute is reported when it is long enough to say something.
  const tail = (Date.now() - minuteStarted) / 1000;
  if (tail >= 10 && cur.heapLow !== Infinity) {
    cur.rss = rssOf(s);
    minutes.push(cur);
    report(cur, tail);
  }

  // Drain: everyone reconnects one last time and catches up.
  const failures: string[] = [];
  const expectedBy = (who: number | 'observer') => {
    const out: number[] = [];
    audience.forEach((aud, g) => {
      if (aud && (who === 'observer' || aud.includes(who))) out.push(g);
    });
    return out;
  };
  const deadline = Date.now() + 60_000;
  const missingOf = (seen: Seen, expected: number[]) => expected.filter((g) => !seen.has(g));
  for (;;) {
    const behind =
      agents.filter((a) => missingOf(a.seen, expectedBy(a.index)).length > 0).length +
      observers.filter((o) => missingOf(o.seen, expectedBy('observer')).length > 0).length;
    if (behind === 0 || Date.now() > deadline) break;
    await sleep(500);
  }
  for (const a of agents) {
    const missing = missingOf(a.seen, expectedBy(a.index));
    if (missing.length > 0) failures.push(`agent ${agentId(a.index)} never got ${missing.length} messages (first g=${missing[0]})`);
    if (a.seen.duplicates > 0) failures.push(`agent ${agentId(a.index)} got ${a.seen.duplicates} messages twice`);
    failures.push(...a.problems.slice(0, 3).map((p) => `agent ${agentId(a.index)}: ${p}`));
  }
  observers.forEach((o, i) => {
    const missing = missingOf(o.seen, expectedBy('observer'));
    if (missing.length > 0) failures.push(`observer ${i} never got ${missing.length} messages`);
    if (o.seen.duplicates > 0) failures.push(`observer ${i} got ${o.seen.duplicates} messages twice`);
  });
  const errors = minutes.reduce((n, m) => n + m.errors, 0);
  if (errors > 0) failures.push(`${errors} error responses or failures, e.g.:\n  ${errorSamples.join('\n  ')}`);

  // Memory after warm-up: the JS heap (connections, subscriptions, buffers) must stay flat; the
  // resident set may grow only by what the data stored since explains (sql.js keeps the database
  // in WASM memory, counted as external).
  const warm = minutes[WARMUP_MIN - 1];
  const last = minutes[minutes.length - 1];
  if (warm && last && minutes.length > WARMUP_MIN) {
    const stored = minutes.slice(WARMUP_MIN).reduce((n, m) => n + m.storedBytes, 0);
    const allowance = 6 * stored + 48 * 1048576;
    const grown = last.rss - warm.rss;
    const heapGrown =
      Math.max(
        ...minutes
          .slice(WARMUP_MIN)
          .map((m) => m.heapLow)
          .filter(Number.isFinite),
      ) - warm.heapLow;
    console.log(
      `memory: rss ${mib(warm.rss)} MiB after warm-up, ${mib(last.rss)} MiB at the end (allowance ${mib(allowance)} MiB for ${mib(stored)} MiB of messages stored since); ` +
        `js heap low ${mib(warm.heapLow)} MiB after warm-up, ${mib(last.heapLow)} MiB at the end`,
    );
    if (grown > allowance)
      failures.push(
        `resident memory grew by ${mib(grown)} MiB after warm-up, more than the ${mib(allowance)} MiB the stored data explains`,
      );
    if (heapGrown > 32 * 1048576) failures.push(`the JS heap grew by ${mib(heapGrown)} MiB after warm-up`);
  }
  const total = minutes.reduce((n, m) => n + m.sends, 0);
  console.log(
    `sent ${total} messages, delivered ${agents.reduce((n, a) => n + a.seen.count, 0)} times to agents; reconnects ${minutes.reduce((n, m) => n + m.reconnects, 0)}`,
  );

  const observerDrops = observers.reduce((n, o) => n + o.reconnects, 0);
  if (observerDrops > 0) console.log(`SSE observers reconnected ${observerDrops} times (resumed with Last-Event-ID)`);
  for (const o of observers) await o.stop();
  await Promise.all(agents.map((a) => a.stop()));
  await s.dispose();
  if (failures.length > 0) {
    console.log(`soak: FAILED\n- ${failures.slice(0, 30).join('\n- ')}`);
    return 1;
  }
  console.log('soak: passed (no error responses, no lost or duplicated events, memory bounded)');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
