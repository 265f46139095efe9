// Copying a network from the sqlite store into Postgres, and from Postgres into a new sqlite store,
// keeps everything a client can read, with the same event sequence numbers, and refuses a target
// that already holds a network.

import { reactionsPart } from '../../src/store/reactions/part.js';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../src/store/open.js';
import { copyToPostgres } from '../../src/store/postgres/copy.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/index.js';
import { copyToSqlite } from '../../src/store/sqlite/copy.js';
import { parseQuery } from '../../src/protocol/search-text.js';
import type { Store } from '../../src/store/types.js';
import { progressLine } from '../../src/cli/commands/store/copy.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import {
  artifact,
  claim,
  codeOf,
  createRoom,
  event,
  inDm,
  inRoom,
  inThread,
  members,
  msg,
  removeRoom,
  send,
} from '../helpers/store-fixtures.js';

const test = suite('store copy into postgres');
let dir = '';
let pgs: PgSchema;
let source: Store;

test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-copy-'));
  pgs = await freshSchema();
  source = await openStore({ backend: 'sqlite', path: join(dir, 'svc.db'), checkpoint_bytes: 64 * 1024 * 1024 });
});
test.after.each(async () => {
  await source.close();
  await pgs.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function network(s: Store): Promise<void> {
  await s.write([createRoom('r1'), createRoom('r2', { visibility: 'private', members: ['a1', 'b2'] }), createRoom('gone')]);
  await s.write([claim('a1', 'agent:hash-of-a1-token', 'Alpha'), claim('b2', 'token:b2')]);
  await s.write([send(msg('m1', inRoom('r1')), [artifact('art1', inRoom('r1'), 'm1')])]);
  await s.write([send(msg('m2', inThread('t1', 'r1')))]);
  await s.write([send(msg('m3', inThread('t1', 'r1')))]);
  await s.write([send(msg('m4', inDm('d1')))]);
  await s.write([send(msg('m5', inRoom('gone')))]);
  await s.write([removeRoom('gone'), members('r2', ['c3'])]);
  await s.write([{ op: 'pairing.state', pairing_id: 'p1', set: { seq: 5, answered: true } }]);
  // MCP read states of a registered agent and of a room member acting through a static token.
  const init = { cursor: 3, since: '2026-01-01T00:00:00.000Z', read: { 'room:r1': { id: 'm1', at: '2026-01-01T00:00:01.000Z' } } };
  await s.write([
    { op: 'agent.read_state', agent_id: 'a1', init },
    { op: 'agent.read_state', agent_id: 'c3', init: { ...init, cursor: 6 } },
  ]);
  // Reactions (#28), one of them taken back.
  const react = (message_id: string, emoji: string, by: string, action: 'add' | 'remove' = 'add') => ({
    op: 'reaction.change' as const,
    reaction: { message_id, emoji, by },
    action,
    max_distinct: 20,
    at: '2026-01-02T00:00:00.000Z',
    event: () => event('reaction.updated'),
  });
  await s.write([react('m1', '👍', 'net1:a1'), react('m1', '👍', 'net1:b2'), react('m4', ':ship:', 'net1:a1')]);
  await s.write([react('m1', '🎉', 'net1:b2'), react('m1', '👍', 'net1:a1', 'remove')]);
}

async function snapshot(s: Store) {
  return {
    rooms: await s.listRooms(),
    gone: await s.getRoom('gone'),
    agents: await s.listAgents(),
    byCredential: await s.findAgentsByCredential('agent:hash-of-a1-token'),
    r1: await s.listMessages('room:r1', { limit: 50 }),
    t1: await s.listMessages('thread:t1', { limit: 50 }),
    goneMessages: await s.listMessages('room:gone', { limit: 50 }),
    threads: await s.listThreads('r1', { limit: 50 }),
    dms: await s.listDms(),
    d1: await s.listMessages('dm:d1', { limit: 50 }),
    artifacts: await s.listArtifacts({ room_id: 'r1' }, { limit: 50 }),
    events: await s.eventsAfter(0, 1000),
    last: await s.lastEventSeq(),
    pairing: await s.getPairingState('p1'),
    readStates: [await s.getAgentReadState('a1'), await s.getAgentReadState('c3')],
    reactions: await s.part(reactionsPart)!.list(['m1', 'm2', 'm4']),
  };
}

test('a copied network reads the same on postgres, with the same event sequence numbers', async () => {
  await network(source);
  const seen: number[] = [];
  const counts = await copyToPostgres(source, {
    url: pgs.url,
    schema: pgs.schema,
    pairingIds: ['p1', 'p2'],
    onProgress: (n) => seen.push(n),
  });
  assert.equal(
    [counts.rooms, counts.agents, counts.messages, counts.threads, counts.dms, counts.artifacts, counts.pairings],
    [3, 2, 5, 1, 1, 1, 1],
  );
  assert.is(counts.last_seq, await source.lastEventSeq());
  assert.is(seen[seen.length - 1], 5);
  const target = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  try {
    assert.equal(await snapshot(target), await snapshot(source));
    // The copy continues the sequence: the next event follows the copied ones.
    const r = await target.write([send(msg('after', inRoom('r1')))]);
    assert.equal(
      r.events.map((e) => e.seq),
      [counts.last_seq + 1],
    );
    assert.is((await target.getThread('t1'))?.message_count, 2);
  } finally {
    await target.close();
  }
});

test("a room's retention (#40 part 4) is copied into postgres", async () => {
  const mem = await openStore({ backend: 'memory', path: '', checkpoint_bytes: 0 });
  try {
    await mem.write([createRoom('kept', { retention: { max_messages: 3, max_age: '30d' } }), createRoom('plain')]);
    await copyToPostgres(mem, { url: pgs.url, schema: pgs.schema, pairingIds: [] });
  } finally {
    await mem.close();
  }
  const target = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  try {
    assert.equal((await target.getRoom('kept'))?.retention, { max_messages: 3, max_age: '30d' });
    assert.is((await target.getRoom('plain'))?.retention, undefined);
    assert.not.ok('retention' in (await target.getRoom('plain'))!);
  } finally {
    await target.close();
  }
});

test('a target that already holds a network is refused and left unchanged', async () => {
  await network(source);
  const other = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  await other.write([createRoom('theirs')]);
  await other.close();
  assert.is(await codeOf(() => copyToPostgres(source, { url: pgs.url, schema: pgs.schema, pairingIds: [] })), 'conflict');
  const after = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  try {
    assert.equal(
      (await after.listRooms()).map((r) => r.id),
      ['theirs'],
    );
  } finally {
    await after.close();
  }
});

/** The source network, copied into Postgres, opened there. */
async function onPostgres(): Promise<PostgresStore> {
  await network(source);
  await copyToPostgres(source, { url: pgs.url, schema: pgs.schema, pairingIds: ['p1'] });
  return openPostgresStore({ url: pgs.url, schema: pgs.schema });
}

test('a network copied from postgres into a new sqlite store reads the same, continues its sequence and is searchable', async () => {
  const pg = await onPostgres();
  const file = join(dir, 'back', 'svc.db');
  const seen: number[] = [];
  let back: Store | undefined;
  try {
    const counts = await copyToSqlite(pg, { file, pairingIds: ['p1'], onProgress: (n) => seen.push(n) });
    assert.equal(
      [counts.rooms, counts.agents, counts.messages, counts.threads, counts.dms, counts.artifacts, counts.pairings, counts.last_seq],
      [3, 2, 5, 1, 1, 1, 1, await source.lastEventSeq()],
    );
    assert.is(seen[seen.length - 1], 5);
    back = await openStore({ backend: 'sqlite', path: file, checkpoint_bytes: 64 * 1024 * 1024 });
    assert.equal(await snapshot(back), await snapshot(source));
    const found = await back.searchMessages({ terms: parseQuery('m3')!, scope: { room_ids: ['r1'], dm_ids: [] }, limit: 10 });
    assert.equal(
      found.items.map((m) => m.id),
      ['m3'],
    );
    const r = await back.write([send(msg('after', inRoom('r1')))]);
    assert.equal(
      r.events.map((e) => e.seq),
      [counts.last_seq + 1],
    );
  } finally {
    await back?.close();
    await pg.close();
  }
});

test('a sqlite target where a store exists is refused and left unchanged', async () => {
  const pg = await onPostgres();
  try {
    const file = join(dir, 'taken.db');
    writeFileSync(file, 'not ours');
    assert.is(await codeOf(() => copyToSqlite(pg, { file, pairingIds: [] })), 'conflict');
    assert.is(readFileSync(file, 'utf8'), 'not ours');
    // A journal alone is a store too (one that has not checkpointed yet).
    const fresh = join(dir, 'fresh.db');
    writeFileSync(`${fresh}.journal.1`, '');
    assert.is(await codeOf(() => copyToSqlite(pg, { file: fresh, pairingIds: [] })), 'conflict');
    assert.not.ok(existsSync(fresh));
  } finally {
    await pg.close();
  }
});

test('the progress line shows the share copied and the rate', () => {
  assert.is(progressLine(50, 100, 1000, 10), '[#####.....] 50/100 messages, 50/s');
  assert.is(progressLine(0, 0, 0, 4), '[####] 0/0 messages, 0/s');
});

test.run();
