// Inbound relay rules and the durable outbox, in process against a real memory store.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { Broker } from '../../src/events/broker.js';
import { createMetrics } from '../../src/metrics-registry.js';
import { NO_EXTENSIONS, type NetworkContext } from '../../src/network/context.js';
import type { Principal } from '../../src/auth/principal.js';
import { AppError } from '../../src/errors.js';
import { MemoryStore } from '../../src/store/memory/index.js';
import { PairingManager } from '../../src/pairing/manager.js';
import { remoteSenderCheck } from '../../src/pairing/inbound-rules.js';
import { PairingCursor } from '../../src/pairing/cursor.js';
import { Outbox, type Delivery, type OutboxOptions } from '../../src/pairing/outbox.js';
import type { Message, SendRequest } from '../../src/protocol/types.js';

function contextWith(raw: Record<string, unknown>): { ctx: NetworkContext; logs: string[] } {
  const config: Config = parseConfig(
    { network: { id: 'home' }, store: { backend: 'memory' }, ...raw },
    { baseDir: tmpdir(), env: {} },
  ).config;
  const logs: string[] = [];
  const ctx: NetworkContext = {
    config,
    store: new MemoryStore(),
    broker: new Broker(),
    log: (_l, msg) => logs.push(msg),
    version: 'test',
    configWarnings: [],
    extensions: NO_EXTENSIONS,
  };
  return { ctx, logs };
}

const PAIRINGS = [
  { id: 'bound', remote_network_id: 'away', remote_base_url: 'http://127.0.0.1:9', token: 't1', bound: true },
  { id: 'named', remote_network_id: 'away', remote_base_url: 'http://127.0.0.1:9', token: 't2' },
  { id: 'invited', remote_base_url: 'http://127.0.0.1:9', token: 't3' },
];

function managers(ctx: NetworkContext): Map<string, PairingManager> {
  const metrics = createMetrics();
  return new Map(
    ctx.config.pairings.map((p) => [p.id, new PairingManager(p, { ctx, metrics, answer: async () => ({ status: 500, body: undefined }) })]),
  );
}

const refused = (fn: () => void): string => {
  try {
    fn();
  } catch (err) {
    assert.instance(err, AppError);
    return `${(err as AppError).status} ${(err as AppError).message}`;
  }
  return 'accepted';
};

const b = suite('network binding of pair credentials');

b('a bound credential accepts only its own network', () => {
  const { ctx } = contextWith({ pairings: PAIRINGS });
  const m = managers(ctx).get('bound')!;
  assert.is(
    refused(() => m.admitOrigin('away')),
    'accepted',
  );
  assert.match(
    refused(() => m.admitOrigin('elsewhere')),
    /^403 pairing bound relays for network away, not elsewhere/,
  );
});

b('an unbound credential is pinned to the first network it asserts, with a logged warning', () => {
  const { ctx, logs } = contextWith({ pairings: PAIRINGS });
  const m = managers(ctx).get('invited')!;
  assert.is(
    refused(() => m.admitOrigin('first')),
    'accepted',
  );
  assert.is(
    refused(() => m.admitOrigin('first')),
    'accepted',
  );
  assert.match(
    refused(() => m.admitOrigin('second')),
    /^403 pairing invited is pinned to network first/,
  );
  assert.is(logs.filter((l) => /unbound pairing credential/.test(l)).length, 1);
  // Process-local: a new manager (a restart) has forgotten the pin.
  assert.is(
    refused(() => managers(ctx).get('invited')!.admitOrigin('second')),
    'accepted',
  );
});

b('require_pair_network_binding refuses unbound credentials and keeps bound ones', () => {
  const { ctx } = contextWith({ pairings: PAIRINGS, require_pair_network_binding: true });
  const ms = managers(ctx);
  assert.match(
    refused(() => ms.get('invited')!.admitOrigin('away')),
    /no confirmed bound network/,
  );
  assert.match(
    refused(() => ms.get('named')!.admitOrigin('away')),
    /no confirmed bound network/,
  );
  assert.is(
    refused(() => ms.get('bound')!.admitOrigin('away')),
    'accepted',
  );
});

b('a configured remote id is enforced even on an unbound credential', () => {
  const { ctx } = contextWith({ pairings: PAIRINGS });
  assert.match(
    refused(() => managers(ctx).get('named')!.admitOrigin('elsewhere')),
    /relays for network away/,
  );
});

b.run();

const r = suite('inbound relayed messages');

const pairPrincipal = (id: string): Principal => ({ kind: 'static', tokenId: id, scopes: new Set(['pair']), credentialKey: `token:${id}` });
const relayed = (over: Partial<SendRequest> = {}): SendRequest => ({
  id: 'msg_1',
  target: { kind: 'room', room_id: 'general' },
  from: { type: 'agent', id: 'beta', network_id: 'away' },
  parts: [{ kind: 'text', text: 'hi' }],
  origin: { network_id: 'away', message_id: 'msg_1' },
  ...over,
});

function inbound() {
  const { ctx } = contextWith({
    pairings: PAIRINGS,
    rooms: [
      { id: 'general', federation: { pairings: ['bound'] } },
      { id: 'closed', federation: { pairings: [] } },
    ],
  });
  const ms = managers(ctx);
  const check = remoteSenderCheck(ctx, {
    get: (id) => ms.get(id),
    byRemoteNetwork: (n) => [...ms.values()].find((m) => m.remoteNetworkId === n),
  });
  return { ctx, check };
}

async function withRooms() {
  const x = inbound();
  const t = new Date().toISOString();
  await x.ctx.store.write(
    x.ctx.config.rooms.map((room) => ({
      op: 'room.create' as const,
      room: {
        id: room.id,
        name: room.id,
        members: [],
        visibility: 'public' as const,
        write_policy: 'members' as const,
        federation_pairings: room.federation?.pairings ?? [],
      },
      at: t,
      event: () => ({ id: `evt_${room.id}`, type: 'room.created' as const, network_id: 'home', created_at: t }),
    })),
  );
  const rooms = new Map((await x.ctx.store.listRooms()).map((room) => [room.id, room]));
  // The hook gets the room the send was placed in; these cases name it by id.
  const check = (p: Principal, req: SendRequest, target: { room_id?: string }) =>
    x.check(p, req, target.room_id !== undefined ? { room: rooms.get(target.room_id)! } : {});
  return { ctx: x.ctx, check };
}

r('a federated room accepts a message from its pairing credential with a matching origin', async () => {
  const { check } = await withRooms();
  assert.is(
    refused(() => check(pairPrincipal('bound'), relayed(), { room_id: 'general' })),
    'accepted',
  );
});

r('the room federation is always enforced', async () => {
  const { check } = await withRooms();
  assert.match(
    refused(() => check(pairPrincipal('bound'), relayed(), { room_id: 'closed' })),
    /^403 room closed does not federate with pairing bound/,
  );
  assert.match(
    refused(() => check(pairPrincipal('named'), relayed(), { room_id: 'general' })),
    /does not federate with pairing named/,
  );
});

r('origin is required and must name the sender network', async () => {
  const { check } = await withRooms();
  const { origin: _drop, ...noOrigin } = relayed();
  assert.match(
    refused(() => check(pairPrincipal('bound'), noOrigin, { room_id: 'general' })),
    /^400 body\.origin/,
  );
  assert.match(
    refused(() => check(pairPrincipal('bound'), relayed({ origin: { network_id: 'home', message_id: 'x' } }), { room_id: 'general' })),
    /^403 body\.origin\.network_id/,
  );
});

r('only a pair credential that is a configured pairing may relay remote senders', async () => {
  const { check } = await withRooms();
  const writer: Principal = { kind: 'static', tokenId: 'ops', scopes: new Set(['write', 'admin']), credentialKey: 'token:ops' };
  assert.match(
    refused(() => check(writer, relayed(), { room_id: 'general' })),
    /^403 .*pair credential/,
  );
  assert.match(
    refused(() => check(pairPrincipal('stranger'), relayed(), { room_id: 'general' })),
    /not the credential of a configured pairing/,
  );
  assert.match(
    refused(() => check({ kind: 'anonymous' }, relayed(), { room_id: 'general' })),
    /^403/,
  );
});

r('a relayed DM needs a participant of this network', async () => {
  const { check } = await withRooms();
  const dm = (ids: string[]) => relayed({ target: { kind: 'dm', participant_ids: ids } });
  assert.is(
    refused(() => check(pairPrincipal('bound'), dm(['away:beta', 'home:alpha']), {})),
    'accepted',
  );
  assert.match(
    refused(() => check(pairPrincipal('bound'), dm(['away:beta', 'away:gamma']), {})),
    /needs a participant of this network \(home\)/,
  );
});

r.run();

const o = suite<{ dir: string }>('the outbox');
o.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-outbox-'));
});
o.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

const msg = (id: string, roomId = 'general'): Message => ({
  id,
  network_id: 'home',
  target: { kind: 'room', room_id: roomId },
  from: { type: 'agent', id: 'alpha', network_id: 'home', fqid: 'svc://home/agents/alpha' },
  parts: [{ kind: 'text', text: id }],
  mentions: [],
  created_at: '2030-01-01T00:00:00.000Z',
});

async function append(store: MemoryStore, ...messages: Message[]): Promise<void> {
  for (const m of messages) {
    await store.write([
      {
        op: 'message.insert',
        record: { message: m, conv: `room:${m.target.kind === 'room' ? m.target.room_id : ''}`, event_id: `evt_${m.id}` },
        event: { id: `evt_${m.id}`, type: 'message.created', network_id: 'home', created_at: m.created_at, message: m },
        artifacts: [],
      },
    ]);
  }
}

async function drained(box: Outbox): Promise<void> {
  await box.flush();
  await box.close();
}

const yes = async () => true;
const general = async (m: Message) => m.target.kind === 'room' && m.target.room_id === 'general';
const outbox = (store: MemoryStore, cursor: PairingCursor, o: Pick<OutboxOptions, 'eligible' | 'deliver' | 'canSend'>) =>
  new Outbox({ store, cursor, leaseKey: 'pairing:p1', ...o });

o('a new pairing starts at the end of the log: nothing older is relayed', async () => {
  const store = new MemoryStore();
  await append(store, msg('old1'), msg('old2'));
  const cursor = new PairingCursor(store, 'p1');
  await cursor.loaded;
  assert.equal(await store.getPairingState('p1'), { seq: 2, answered: false });
  const sent: string[] = [];
  await append(store, msg('new1'));
  await drained(
    outbox(store, cursor, {
      eligible: yes,
      deliver: async (m) => {
        sent.push(m.id);
        return 'done' as const;
      },
      canSend: () => true,
    }),
  );
  assert.equal(sent, ['new1']);
});

o('messages wait while the peer is away, then go in order, once, across a restart', async () => {
  const store = new MemoryStore();
  let up = false;
  const sent: string[] = [];
  const deliver = async (m: Message): Promise<Delivery> => {
    if (!up) return 'retry';
    sent.push(m.id);
    return 'done';
  };
  const fresh = new PairingCursor(store, 'p1');
  await fresh.loaded;
  const first = outbox(store, fresh, { eligible: general, deliver, canSend: () => true });
  await append(store, msg('a'), msg('skip', 'elsewhere'), msg('b'));
  await drained(first);
  assert.equal(sent, []);
  assert.equal((await store.getPairingState('p1'))!.seq, 0);
  // The process restarts: a new cursor read from the store, the peer is back.
  up = true;
  let failAfter = 1;
  const flaky = async (m: Message): Promise<Delivery> => (failAfter-- > 0 ? deliver(m) : 'retry');
  const cursor = new PairingCursor(store, 'p1');
  await drained(outbox(store, cursor, { eligible: general, deliver: flaky, canSend: () => true }));
  assert.equal(sent, ['a']);
  // Past 'a' and the ineligible message after it; 'b' waits.
  assert.is(cursor.seq, 2);
  await append(store, msg('c'));
  await drained(outbox(store, new PairingCursor(store, 'p1'), { eligible: general, deliver, canSend: () => true }));
  assert.equal(sent, ['a', 'b', 'c']);
  assert.equal((await store.getPairingState('p1'))!.seq, 4);
});

o('nothing is sent while sending is not possible, and pending counts what waits', async () => {
  const store = new MemoryStore();
  await store.write([{ op: 'pairing.state', pairing_id: 'p1', set: { seq: 0, answered: false } }]);
  await append(store, msg('x'), msg('y'));
  const box = outbox(store, new PairingCursor(store, 'p1'), {
    eligible: yes,
    deliver: async (): Promise<Delivery> => {
      assert.unreachable('sent');
      return 'done';
    },
    canSend: () => false,
  });
  await drained(box);
  assert.is(await box.pending(), 2);
});

o('only the holder of the pairing lease relays: another process sharing the store waits', async () => {
  const store = new MemoryStore();
  await store.write([{ op: 'pairing.state', pairing_id: 'p1', set: { seq: 0, answered: false } }]);
  await append(store, msg('x'));
  const other = await store.leases.acquire('pairing:p1', 'another-process', 60_000);
  assert.ok(other.ok);
  const sent: string[] = [];
  const box = () =>
    outbox(store, new PairingCursor(store, 'p1'), {
      eligible: yes,
      deliver: async (m) => {
        sent.push(m.id);
        return 'done' as const;
      },
      canSend: () => true,
    });
  await drained(box());
  assert.equal(sent, []);
  if (other.ok) await other.lease.release();
  await drained(box());
  assert.equal(sent, ['x']);
});

o('a forgotten cursor is gone from the store', async () => {
  const store = new MemoryStore();
  const c = new PairingCursor(store, 'p1');
  await c.commit({ answered: true });
  assert.equal(await store.getPairingState('p1'), { seq: 0, answered: true });
  await c.forget();
  assert.is(await store.getPairingState('p1'), undefined);
});

o('a cursor file of an earlier release is taken over once, then removed', async ({ dir }) => {
  const store = new MemoryStore();
  const file = path.join(dir, 'pairing-p1.cursor');
  writeFileSync(file, JSON.stringify({ seq: 7, answered: true }));
  const c = new PairingCursor(store, 'p1', file);
  await c.loaded;
  assert.equal([c.seq, c.answered], [7, true]);
  assert.equal(await store.getPairingState('p1'), { seq: 7, answered: true });
  assert.not.ok(existsSync(file));
});

o.run();
