// The crash workload: concurrent clients that send room, thread and DM messages, register agents
// and change members against a server that may vanish at any moment. Every operation carries what
// makes a retry safe (a client message id, a requested agent id, a set-like member change) and is
// retried until acknowledged; `verify` then checks the acknowledged state against the server.

import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { dmIdFor } from '../../src/network/messages.js';

/** mulberry32: a small seeded PRNG, so a failing run can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const ROOMS = ['r0', 'r1', 'r2', 'r3'];
export const AGENTS = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'];
/** The attached agent of the crash run: a member of every workload room. */
export const WATCHER = 'watcher';

/**
 * Creates the workload's rooms over HTTP. Not declared in the config: declared rooms are
 * reconciled at every start, which would undo the workload's member changes.
 */
export async function createRooms(s: TestServer): Promise<void> {
  for (const id of ROOMS) {
    const r = await s.post('/v1/rooms', { id, name: id, members: [...AGENTS, WATCHER] }, TOKENS.admin.value);
    assert.is(r.status, 200, r.text);
  }
}

/** Where a server can be reached; `down()` is called when it is being killed. */
export class Gate {
  private open = true;
  private waiters: (() => void)[] = [];
  constructor(readonly server: TestServer) {}
  get isOpen(): boolean {
    return this.open;
  }
  down(): void {
    this.open = false;
  }
  up(): void {
    this.open = true;
    for (const w of this.waiters.splice(0)) w();
  }
  wait(): Promise<void> {
    return this.open ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }
}

interface Op {
  method: string;
  path: string;
  body: Json;
}

export interface Acked {
  /** message id -> conversation key (room:x, thread:x, dm:x) */
  messages: Map<string, string>;
  agents: Set<string>;
  /** `room|member` -> present after the last acknowledged change */
  members: Map<string, boolean>;
  /** Operations that needed at least one retry. */
  retried: number;
  /** Attempts refused with 503 (the store could not write). */
  unavailable: number;
  ops: number;
}

export function emptyAcked(): Acked {
  return { messages: new Map(), agents: new Set(), members: new Map(), retried: 0, unavailable: 0, ops: 0 };
}

/** Sends one op until it is acknowledged with a 2xx; any other answer fails the run. Ops in flight when the run stops are still retried to the end. */
async function untilAcked(gate: Gate, op: Op, acked: Acked): Promise<Json> {
  let tries = 0;
  for (;;) {
    await gate.wait();
    if (++tries > 600) throw new Error(`${op.method} ${op.path} ${JSON.stringify(op.body)} was never acknowledged`);
    if (tries === 2) acked.retried++;
    let res: Response;
    try {
      res = await fetch(`${gate.server.url}${op.path}`, {
        method: op.method,
        headers: { authorization: `Bearer ${TOKENS.admin.value}`, 'content-type': 'application/json' },
        body: JSON.stringify(op.body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      // Killed mid-request or not yet listening: the outcome is unknown, so retry the same op.
      await sleep(20);
      continue;
    }
    const text = await res.text().catch(() => undefined);
    if (text === undefined) {
      await sleep(20);
      continue;
    }
    if (res.status === 503) {
      acked.unavailable++;
      await sleep(50);
      continue;
    }
    if (res.status < 200 || res.status > 299)
      throw new Error(`${op.method} ${op.path} ${JSON.stringify(op.body)} -> ${res.status} ${text}`);
    return JSON.parse(text);
  }
}

/** Runs `workers` clients until `stop()`; each op is retried until acknowledged. */
export async function runWorkload(gate: Gate, seed: number, workers: number, stop: () => boolean, acked: Acked): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const rand = rng(seed * 31 + w);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      let n = 0;
      while (!stop()) {
        n++;
        const id = `w${w}-${n}`;
        const from = pick(AGENTS);
        const text = `${id} from ${from}`;
        const roll = rand();
        acked.ops++;
        if (roll < 0.4) {
          const room = pick(ROOMS);
          const body = { id, target: { kind: 'room', room_id: room }, from: { type: 'agent', id: from }, parts: [{ kind: 'text', text }] };
          const r = await untilAcked(gate, { method: 'POST', path: '/v1/messages', body }, acked);
          assert.is(r.message_id, id);
          acked.messages.set(id, `room:${room}`);
        } else if (roll < 0.6) {
          const room = pick(ROOMS);
          const thread = `t${w}-${room}-${Math.floor(rand() * 3)}`;
          const body = {
            id,
            target: { kind: 'thread', room_id: room, thread_id: thread },
            from: { type: 'agent', id: from },
            parts: [
              { kind: 'text', text },
              { kind: 'url', url: `https://example.test/${id}` },
            ],
          };
          await untilAcked(gate, { method: 'POST', path: '/v1/messages', body }, acked);
          acked.messages.set(id, `thread:${thread}`);
        } else if (roll < 0.75) {
          const to = pick(AGENTS.filter((a) => a !== from));
          const body = {
            id,
            target: { kind: 'dm', participant_ids: [to] },
            from: { type: 'agent', id: from },
            parts: [{ kind: 'text', text }],
          };
          await untilAcked(gate, { method: 'POST', path: '/v1/messages', body }, acked);
          acked.messages.set(id, `dm:${dmIdFor([`testnet:${from}`, `testnet:${to}`])}`);
        } else if (roll < 0.85) {
          const agent = `g-${id}`;
          const r = await untilAcked(
            gate,
            { method: 'POST', path: '/v1/agents/register', body: { requested_agent_id: agent, name: `Agent ${id}` } },
            acked,
          );
          assert.is(r.agent_id, agent);
          acked.agents.add(agent);
        } else {
          const room = pick(ROOMS);
          const member = `m${w}-${Math.floor(rand() * 4)}`;
          const add = rand() < 0.6;
          const body = add ? { add: [member], remove: [] } : { add: [], remove: [member] };
          const r = await untilAcked(gate, { method: 'PATCH', path: `/v1/rooms/${room}/members`, body }, acked);
          assert.is(r.members.includes(member), add);
          acked.members.set(`${room}|${member}`, add);
        }
      }
    }),
  );
}

async function getJson(s: TestServer, p: string): Promise<Json> {
  const r = await s.get(p, TOKENS.admin.value);
  assert.is(r.status, 200, `${p}: ${r.text}`);
  return r.body;
}

/** Every message of a conversation, walking `before` pages from the newest. */
export async function allMessages(s: TestServer, base: string): Promise<Json[]> {
  const out: Json[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await getJson(s, `${base}?limit=500${before ? `&before=${encodeURIComponent(before)}` : ''}`);
    out.unshift(...page.messages);
    if (!page.page.has_more) return out;
    before = page.page.next_before;
  }
}

/** Every stored message id, with its conversation, and the thread/DM counters checked. */
export async function storedMessages(s: TestServer): Promise<Map<string, string[]>> {
  const seen = new Map<string, string[]>();
  const add = (id: string, conv: string) => seen.set(id, [...(seen.get(id) ?? []), conv]);
  for (const room of ROOMS) {
    for (const m of await allMessages(s, `/v1/rooms/${room}/messages`)) add(m.id, `room:${room}`);
    let before: string | undefined;
    for (;;) {
      const page = await getJson(s, `/v1/rooms/${room}/threads?limit=500${before ? `&before=${before}` : ''}`);
      for (const th of page.threads) {
        const msgs = await allMessages(s, `/v1/threads/${th.id}/messages`);
        assert.is(th.message_count, msgs.length, `thread ${th.id} counts ${th.message_count} messages but holds ${msgs.length}`);
        for (const m of msgs) add(m.id, `thread:${th.id}`);
      }
      if (!page.page.has_more) break;
      before = page.page.next_before;
    }
  }
  let before: string | undefined;
  for (;;) {
    const page = await getJson(s, `/v1/dms?limit=500${before ? `&before=${before}` : ''}`);
    for (const dm of page.dms) {
      const msgs = await allMessages(s, `/v1/dms/${dm.id}/messages`);
      assert.is(dm.message_count, msgs.length, `dm ${dm.id} counts ${dm.message_count} messages but holds ${msgs.length}`);
      for (const m of msgs) add(m.id, `dm:${dm.id}`);
    }
    if (!page.page.has_more) break;
    before = page.page.next_before;
  }
  return seen;
}

/** Checks that every acknowledged write is present exactly once and nothing else was stored. */
export async function verify(s: TestServer, acked: Acked): Promise<void> {
  const stored = await storedMessages(s);
  for (const [id, convs] of stored) {
    assert.is(convs.length, 1, `message ${id} is stored ${convs.length} times (${convs.join(', ')})`);
  }
  for (const [id, conv] of acked.messages) {
    const at = stored.get(id);
    assert.ok(at, `acknowledged message ${id} (${conv}) is missing`);
    assert.is(at![0], conv, `message ${id} is in ${at![0]}, not ${conv}`);
  }
  for (const id of stored.keys()) assert.ok(acked.messages.has(id), `message ${id} is stored but was never acknowledged`);
  const agents = new Set<string>();
  let before: string | undefined;
  for (;;) {
    const page = await getJson(s, `/v1/agents?limit=500${before ? `&before=${before}` : ''}`);
    for (const a of page.agents) agents.add(a.id);
    if (!page.page?.has_more) break;
    before = page.page.next_before;
  }
  for (const id of acked.agents) assert.ok(agents.has(id), `acknowledged agent ${id} is missing`);
  const rooms = new Map<string, string[]>();
  for (const room of ROOMS) rooms.set(room, (await getJson(s, `/v1/rooms/${room}`)).members);
  for (const [key, present] of acked.members) {
    const [room, member] = key.split('|') as [string, string];
    assert.is(rooms.get(room)!.includes(member), present, `member ${member} of ${room} should be ${present ? 'present' : 'absent'}`);
  }
}

/**
 * An attached agent that lives through the kills: it ACKs every EVENT, and after each drop
 * reconnects with IDENTIFY.cursor set to the last cursor it processed. Records every
 * message.created it was given and every cursor that went backwards or repeated.
 */
export class Watcher {
  lastCursor: number | undefined;
  readonly seen = new Map<string, number>();
  readonly problems: string[] = [];
  sessions = 0;
  private ws: WebSocket | undefined;
  private stopped = false;
  private done: Promise<void> | undefined;

  constructor(
    private readonly gate: Gate,
    readonly agent: string,
    private readonly token: string,
  ) {}

  start(): void {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ws?.terminate();
    await this.done;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.gate.wait();
      if (this.stopped) return;
      await this.session();
      if (!this.stopped) await sleep(30);
    }
  }

  /** One connection, until it closes. */
  private session(): Promise<void> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${this.gate.server.port}/v1/attach`, { headers: { authorization: `Bearer ${this.token}` } });
      this.ws = ws;
      ws.on('error', () => {});
      ws.on('close', () => resolve());
      ws.on('message', (data) => {
        const f = JSON.parse(data.toString()) as Json;
        if (f.op === 'HELLO') {
          ws.send(
            JSON.stringify({
              op: 'IDENTIFY',
              network_id: 'testnet',
              agent: { id: this.agent },
              ...(this.lastCursor !== undefined ? { cursor: String(this.lastCursor) } : {}),
            }),
          );
        } else if (f.op === 'READY') {
          this.sessions++;
          if (this.lastCursor !== undefined && Number(f.cursor) !== this.lastCursor) {
            this.problems.push(`READY resumes after ${f.cursor}, not after the processed cursor ${this.lastCursor}`);
          }
          // Delivery starts after READY.cursor: resume from there even if no event comes before a kill.
          this.lastCursor ??= Number(f.cursor);
        } else if (f.op === 'EVENT') {
          const c = Number(f.cursor);
          if (this.lastCursor !== undefined && !(c > this.lastCursor)) this.problems.push(`cursor ${c} after ${this.lastCursor}`);
          this.lastCursor = c;
          if (f.event?.type === 'message.created') {
            const id = f.event.message.id as string;
            this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
          }
          ws.send(JSON.stringify({ op: 'ACK', cursor: f.cursor }));
        } else if (f.op === 'PING') {
          ws.send('{"op":"PONG"}');
        } else if (f.op === 'ERROR') {
          this.problems.push(`ERROR frame: ${f.code}: ${f.error}`);
        }
      });
    });
  }
}
