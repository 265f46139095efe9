// The traffic: sends (rooms, threads, DMs) and history reads, paced.

import { TOKENS, type Json, type TestServer } from '../../test/helpers/server.js';
import { ADMIN, AGENTS, agentId, rand, ROOMS, roomsOf, sleep } from './options.js';
import { audience, nextNumber, sentAt } from './seen.js';
import { cur, error } from './stats.js';

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

export async function sendOne(s: TestServer): Promise<void> {
  const g = nextNumber();
  const roll = Math.random();
  let body: Json;
  let to: Sent;
  let human = false;
  if (roll < 0.85) {
    const room = rand(ROOMS);
    human = ++roomCount[room]! % 5 === 0;
    const members = Array.from({ length: AGENTS }, (_, i) => i).filter((i) => roomsOf(i).includes(room));
    const from = human ? { type: 'human', id: 'operator' } : { type: 'agent', id: agentId(members[rand(members.length)] ?? 0) };
    const thread = roll < 0.65 ? undefined : `th${room}-${rand(10)}`;
    const target = thread ? { kind: 'thread', room_id: `room${room}`, thread_id: thread } : { kind: 'room', room_id: `room${room}` };
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

export async function readOne(s: TestServer): Promise<void> {
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

/** Runs `fn` about `rps` times a second until `until()`, with bounded concurrency. */
export async function paced(rps: number, concurrency: number, until: () => boolean, fn: () => Promise<void>): Promise<void> {
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
