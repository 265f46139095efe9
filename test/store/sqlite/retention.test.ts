// Retention's purge in the sqlite backend's files (#40 part 4): thousands of messages purged a batch
// of 100 per write read the same after a crash (the journal replayed) and after worker checkpoints;
// an event seq a purge took is never given again, nor counted; messages purged before the search
// upkeep got to them leave no index rows behind; `svc store copy` carries the seqs a purge took.
// (test/store/message-purge.contract.test.ts holds what every backend shares.)

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery } from '../../../src/protocol/search-text.js';
import type { Message } from '../../../src/protocol/types.js';
import { reactionsPart } from '../../../src/store/reactions/part.js';
import { expiredOf } from '../../../src/store/filters.js';
import { copyToSqlite } from '../../../src/store/sqlite/copy.js';
import { COUNT_CHUNK } from '../../../src/store/sqlite/keep-cuts.js';
import { listJournals } from '../../../src/store/sqlite/engine/journal.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import type { Store } from '../../../src/store/types.js';
import {
  leftAsCrashed,
  artifact,
  createRoom,
  ids,
  inRoom,
  inThread,
  msg,
  reactionChange,
  send,
  waitFor,
} from '../../helpers/store-fixtures.js';

const test = suite('sqlite retention purge');
let dir = '';
let dbPath = '';
let opened: SqliteStore[] = [];

async function open(opts: Partial<Parameters<typeof openSqliteStore>[0]> = {}): Promise<SqliteStore> {
  const s = await openSqliteStore({ path: dbPath, ...opts });
  opened.push(s);
  return s;
}

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-retention-'));
  dbPath = join(dir, 'svc.db');
  opened = [];
});
test.after.each(async () => {
  for (const s of opened) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOTAL = 3000;
const KEEP = 400;
const purge = (list: string[]) => ({ op: 'message.purge' as const, ids: list });
const withText = (m: Message, text: string): Message => ({ ...m, parts: [{ kind: 'text', text }] });

/** Every message id of a conversation, oldest first, page by page. */
async function allIds(s: Store, conv: string): Promise<string[]> {
  const out: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await s.listMessages(conv, { limit: 500, ...(after ? { after } : {}) });
    out.push(...ids(page.items));
    if (!page.has_more) return out;
    after = out[out.length - 1];
  }
}

async function found(s: Store, words: string): Promise<string[]> {
  const r = await s.searchMessages({ terms: parseQuery(words)!, scope: { room_ids: ['r1'], dm_ids: [] }, limit: 1000 });
  return ids(r.items).sort();
}

/** Everything a reader sees of the store below, for comparing two stores. */
async function snapshot(s: SqliteStore) {
  const stats = await s.stats();
  return {
    room: await allIds(s, 'room:r1'),
    thread: await allIds(s, 'thread:th'),
    threadCount: (await s.getThread('th'))?.message_count,
    artifacts: ids((await s.listArtifacts({ room_id: 'r1' }, { limit: 1000 })).items),
    reactions: (await s.part(reactionsPart)!.list(['r0', 'r1', `r${TOTAL - 1}`, 't0', 't9'])).map((r) => r.message_id),
    events: await s.eventsAfter(0, 10 * TOTAL),
    found: [await found(s, 'apple'), await found(s, 'pear')],
    counts: [stats.messages, stats.events, stats.last_event_seq],
  };
}

/**
 * TOTAL room messages (every 100th with an artifact and a reaction, the words `apple`, else `pear`)
 * and ten thread messages, then the room purged down to its newest KEEP, 100 a write, as the
 * retention job does; returns a snapshot.
 */
async function fillAndPurge(s: SqliteStore): Promise<Awaited<ReturnType<typeof snapshot>>> {
  await s.write([createRoom('r1')]);
  for (let i = 0; i < TOTAL; i += 100) {
    const ops = [];
    for (let k = i; k < i + 100; k++) {
      const m = withText(msg(`r${k}`), k % 100 === 0 ? `apple ${k}` : `pear ${k}`);
      ops.push(send(m, k % 100 === 0 ? [artifact(`a${k}`, inRoom(), m.id)] : []));
      if (k % 100 === 0) ops.push(reactionChange(m.id, '👍', 'net1:a1', 'add', 20));
    }
    await s.write(ops);
  }
  for (let k = 0; k < 10; k++) await s.write([send(msg(`t${k}`, inThread('th')))]);
  let batches = 0;
  for (;;) {
    const expired = await s.expiredMessages({ conv: 'room:r1', keep: KEEP, limit: 100 });
    if (expired.length === 0) break;
    assert.ok(expired.length <= 100);
    const r = await s.write([purge(expired)]);
    assert.equal(r.outcomes, [{ op: 'message.purge', purged: expired }]);
    batches++;
  }
  assert.is(batches, (TOTAL - KEEP) / 100);
  // Two of the thread's messages, the newest among them (it holds the newest event).
  await s.write([purge(['t0', 't9'])]);
  return snapshot(s);
}

/** What `fillAndPurge` leaves for a reader. */
function assertPurged(got: Awaited<ReturnType<typeof snapshot>>): void {
  assert.equal(
    got.room,
    Array.from({ length: KEEP }, (_, k) => `r${TOTAL - KEEP + k}`),
  );
  assert.equal(got.thread, ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
  assert.is(got.threadCount, 8);
  assert.equal(got.artifacts, ['a2600', 'a2700', 'a2800', 'a2900']);
  assert.equal(got.reactions, []);
  assert.equal(got.found[0], ['r2600', 'r2700', 'r2800', 'r2900']);
  assert.is(got.found[1]!.length, KEEP - 4);
  // Only the events of the messages kept are left; the last seq given stays.
  const held = got.events.map((e) => e.event.message?.id).filter((x) => x !== undefined);
  assert.equal(held, [...got.room, ...got.thread]);
  assert.equal(got.counts[0], KEEP + 8);
  assert.ok(got.counts[2]! > got.events[got.events.length - 1]!.seq, 'the purged newest event keeps its seq taken');
  assert.is(got.counts[1], got.events.length);
}

test('thousands purged a batch of 100 at a time read the same after a crash (the journal replayed)', async () => {
  const a = await open();
  const before = await fillAndPurge(a);
  assertPurged(before);
  // A second store on the same files while the first never closed: a restart after a crash.
  await leftAsCrashed(a);
  const b = await open();
  assert.equal(await snapshot(b), before);
  // No seq is given again: the next event follows the last one given, not the newest left.
  const r = await b.write([send(msg('after'))]);
  assert.is(r.events[0]!.seq, before.counts[2]! + 1);
  // And after a clean close and open (a checkpoint holds the purge).
  await b.close();
  const c = await open();
  const now = await snapshot(c);
  assert.is(now.counts[2], before.counts[2]! + 1);
  assert.is(now.counts[1], before.counts[1]! + 1);
});

test('purges applied by checkpoints in the worker thread read the same after a crash', async () => {
  const a = await open({ checkpointBytes: 64 * 1024, workerCheckpointBytes: 0, pageTracking: false });
  const before = await fillAndPurge(a);
  assertPurged(before);
  // A checkpoint after the last purge, and every journal before it gone: the worker applied them.
  const last = (await a.stats()).checkpoints!;
  await a.write([send(msg('filler'))]);
  await waitFor(async () => (await a.stats()).checkpoints! > last, 'a worker checkpoint', 60_000);
  await waitFor(async () => listJournals(dbPath).length === 1, 'one journal left', 60_000);
  const b = await open();
  const got = await snapshot(b);
  assert.equal({ ...got, room: got.room.slice(0, -1), events: got.events.slice(0, -1) }, { ...before, counts: got.counts });
  assert.equal(got.room.slice(-1), ['filler']);
  assert.equal(got.counts, [before.counts[0]! + 1, before.counts[1]! + 1, before.counts[2]! + 1]);
});

test('messages purged before the search worker indexed them are never found', async () => {
  const a = await open();
  await a.write([createRoom('r1'), send(msg('first'))]);
  const batch = Array.from({ length: 50 }, (_, k) => send(withText(msg(`p${k}`), `apple ${k}`)));
  // In one tick: nothing is fed to the worker between the write and the purge.
  const written = a.write(batch);
  const purged = a.write([purge(['p0', 'p25'])]);
  await Promise.all([written, purged]);
  const apples = await found(a, 'apple');
  assert.is(apples.length, 48);
  assert.not.ok(apples.includes('p0') || apples.includes('p25'), 'a purged message is never found');
});

test('a message of many words purged while the worker indexes it is not found', async () => {
  const a = await open();
  await a.write([createRoom('r1')]);
  const many = Array.from({ length: 20000 }, (_, k) => `w${k}`).join(' ');
  await a.write([send(withText(msg('big'), many)), send(withText(msg('small'), 'apple'))]);
  await a.write([purge(['big'])]);
  assert.equal(await found(a, 'apple'), ['small']);
  assert.equal(await found(a, 'w19999'), []);
});

test('svc store copy keeps the retention of a room, and the seqs a purge took are not given again in the copy', async () => {
  const a = await open();
  await a.write([createRoom('kept', { retention: { max_age: '30d', max_messages: 100 } })]);
  const before = await fillAndPurge(a);
  const target = join(dir, 'copy', 'svc.db');
  const counts = await copyToSqlite(a, { file: target, pairingIds: [] });
  assert.is(counts.last_seq, before.counts[2]);
  const b = await openSqliteStore({ path: target });
  opened.push(b);
  assert.equal((await b.getRoom('kept'))!.retention, { max_age: '30d', max_messages: 100 });
  assert.equal(await snapshot(b), before);
  const r = await b.write([send(msg('after'))]);
  assert.is(r.events[0]!.seq, before.counts[2]! + 1);
});

test('expiry by count stays exact as messages come and go, counted a few index entries a turn', async () => {
  const chunk = COUNT_CHUNK.entries;
  COUNT_CHUNK.entries = 7;
  try {
    const a = await open();
    await a.write([createRoom('r1')]);
    let n = 0;
    const sendSome = async (k: number) => {
      if (k > 0) await a.write(Array.from({ length: k }, () => send(msg(`c${n++}`))));
    };
    /** What the memory backend's reference (filters.ts) says of the stored messages. */
    const expected = async (keep: number, limit: number) => {
      const all = (await a.listMessages('room:r1', { limit: 100_000 })).items;
      return expiredOf(all, { conv: 'room:r1', keep, limit });
    };
    const check = async (keep: number, limit = 1000) =>
      assert.equal(await a.expiredMessages({ conv: 'room:r1', keep, limit }), await expected(keep, limit), `keep ${keep} after c${n}`);
    await sendSome(40);
    for (const keep of [0, 5, 60]) await check(keep);
    // One keep throughout, as a room's policy: each call after the first counts only what changed.
    for (let round = 0; round < 12; round++) {
      await check(23);
      await sendSome((round * 7) % 19);
      // Purges below the cut (what retention takes), above it, and of the newest.
      const all = ids((await a.listMessages('room:r1', { limit: 100_000 })).items);
      const pick = [all[0], all[Math.floor(all.length / 2)], all[all.length - 1]].filter((x) => x !== undefined) as string[];
      if (round % 3 !== 2) await a.write([purge([...new Set(pick)])]);
      await check(23, 4);
      const batch = await a.expiredMessages({ conv: 'room:r1', keep: 23, limit: 4 });
      if (batch.length > 0) await a.write([purge(batch)]);
    }
    // A purge while a count is under way voids it (it may keep more this once, never fewer) and
    // the next call counts again.
    await sendSome(50);
    const right = await expected(10, 1000);
    const during = a.expiredMessages({ conv: 'room:r1', keep: 10, limit: 1000 });
    await a.write([purge([`c${n - 1}`])]);
    const got = await during;
    assert.ok(got.length < right.length, 'a voided count purges no more than it should');
    await check(10);
    await check(5);
  } finally {
    COUNT_CHUNK.entries = chunk;
  }
});

test('a purge write commits with it (the time the retention job measures holds its COMMIT); a send waits for the turn', async () => {
  const s = await open();
  await s.write([createRoom('r1')]);
  await s.write([send(msg('p0')), send(msg('p1'))]);
  const journal = () => listJournals(dbPath).reduce((n, j) => n + statSync(j.path).size, 0);
  let before = journal();
  const purged = s.write([purge(['p0'])]);
  // Its record reached the journal before the write returned: the turn was committed in it.
  assert.ok(journal() > before, 'the purge record is written with the purge');
  await purged;
  before = journal();
  const sent = s.write([send(msg('p2'))]);
  assert.is(journal(), before, "a send's record is written at the end of its turn, with the turn's others");
  await sent;
  assert.ok(journal() > before);
  assert.equal(await allIds(s, 'room:r1'), ['p1', 'p2']);
});

test.run();
