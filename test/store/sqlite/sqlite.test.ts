// The sqlite backend's files: what survives a close, a crash, a torn or damaged journal, checkpoints
// and faults. (test/store/store.test.ts holds the contract every backend shares.)

import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import initSqlJs from 'sql.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '../../../src/protocol/types.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import { listJournals } from '../../../src/store/sqlite/engine/journal.js';
import { encodeRecord } from '../../../src/store/sqlite/engine/journal-format.js';
import { repairJournals } from '../../../src/store/sqlite/engine/recovery.js';
import { StoreError, type Store } from '../../../src/store/types.js';
import {
  appendOp,
  artifact,
  claim,
  codeOf,
  createRoom,
  ids,
  inDm,
  inRoom,
  inThread,
  leftAsCrashed,
  msg,
  send,
  waitFor,
} from '../../helpers/store-fixtures.js';

const durable = suite('store (sqlite durability)');
let dir = '';
let dbPath = '';
let opened: SqliteStore[] = [];
let logs: string[] = [];

/** Waits until no background checkpoint is running: two stores must not share files mid-checkpoint. */
async function checkpointsSettled(a: SqliteStore): Promise<void> {
  let seen = -1;
  await waitFor(async () => {
    const now = (await a.stats()).checkpoints!;
    const still = now === seen && listJournals(dbPath).length === 1;
    seen = now;
    return still;
  }, 'checkpoints to settle');
}

/** Opens a store on the temp path; every store opened here is closed after the test, in order. */
async function open(opts: Partial<Parameters<typeof openSqliteStore>[0]> = {}): Promise<SqliteStore> {
  const s = await openSqliteStore({ path: dbPath, log: (m) => logs.push(m), ...opts });
  opened.push(s);
  return s;
}

durable.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
  dbPath = join(dir, 'nested', 'dir', 'svc.db');
  opened = [];
  logs = [];
});
durable.after.each(async () => {
  for (const s of opened) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a little of everything; returns the messages a reopened store must show. */
async function populate(s: Store, n = 5): Promise<Message[]> {
  await s.write([
    createRoom('r1'),
    createRoom('r2'),
    claim('a1'),
    { op: 'pairing.state', pairing_id: 'p1', set: { seq: 3, answered: true } },
  ]);
  const ms: Message[] = [];
  for (let i = 1; i <= n; i++) {
    const m = msg(`m${i}`, i % 2 ? inRoom('r1') : inThread('t1'));
    await s.write([send(m, i === 1 ? [artifact('art1', m.target, m.id)] : [])]);
    ms.push(m);
  }
  return ms;
}

async function assertPopulated(s: Store, ms: Message[]): Promise<void> {
  assert.equal(ids(await s.listRooms()), ['r1', 'r2']);
  assert.equal(ids(await s.listAgents()), ['a1']);
  assert.equal(await s.getPairingState('p1'), { seq: 3, answered: true });
  assert.is((await s.getThread('t1'))?.message_count, ms.filter((m) => m.target.kind === 'thread').length);
  assert.equal(ids((await s.listArtifacts({ room_id: 'r1' }, { limit: 10 })).items), ['art1']);
  assert.equal(
    (await s.listMessages('room:r1', { limit: 100 })).items,
    ms.filter((m) => m.target.kind === 'room'),
  );
  const messages = (await s.eventsAfter(0, 1000)).filter((e) => e.event.type === 'message.created').map((e) => e.event.message);
  assert.equal(messages, ms);
  assert.is((await s.stats()).messages, ms.length);
}

durable('data survives close and reopen, and seqs continue', async () => {
  const a = await open();
  const ms = await populate(a);
  const last = await a.lastEventSeq();
  await a.close();
  assert.ok(existsSync(dbPath));
  assert.equal(listJournals(dbPath), []);
  const b = await open();
  await assertPopulated(b, ms);
  assert.equal(
    (await b.write([send(msg('next'))])).events.map((e) => e.seq),
    [last + 1],
  );
  assert.is(b.feed.head, last + 1);
  assert.ok((await b.stats()).db_bytes! > 0);
});

durable('acknowledged writes survive a crash', async () => {
  const a = await open();
  const ms = await populate(a, 20);
  // A second store on the same files, while the first never closed: what a restart after a crash sees.
  await leftAsCrashed(a);
  const b = await open();
  await assertPopulated(b, ms);
  assert.equal(logs, []);
});

durable('concurrent writes all survive a crash', async () => {
  const a = await open();
  const ms = Array.from({ length: 50 }, (_, i) => msg(`c${i}`, inDm('d1')));
  await Promise.all(ms.map((m) => a.write([send(m)])));
  const b = await open();
  assert.equal((await b.listMessages('dm:d1', { limit: 100 })).items, ms);
  assert.is((await b.getDm('d1'))!.message_count, 50);
});

durable('a torn last journal record is dropped and the database opens', async () => {
  const a = await open();
  const ms = await populate(a, 3);
  const [journal] = listJournals(dbPath);
  const good = statSync(journal!.path).size;
  const half = encodeRecord(
    JSON.stringify({ ops: [{ op: 'message.insert', record: { message: msg('torn'), conv: 'room:r1', event_id: 'x' } }] }),
  );
  appendFileSync(journal!.path, half.subarray(0, half.length >> 1));
  const b = await open();
  await assertPopulated(b, ms);
  assert.is(await b.getMessage('torn'), undefined);
  assert.is(statSync(journal!.path).size, good);
  assert.is(logs.length, 1);
  assert.match(logs[0]!, /torn record.*truncating/);
  await b.write([send(msg('after'))]);
  const c = await open();
  assert.ok(await c.getMessage('after'));
});

durable('a damaged record with intact records after it stops the open and changes no file', async () => {
  const a = await open();
  await populate(a, 6);
  const [journal] = listJournals(dbPath);
  const before = readFileSync(journal!.path);
  const lines = before.toString('latin1').split('\n');
  // Change bytes inside the body of the fourth record (a message), keeping its length.
  lines[3] = lines[3]!.replace('text of', 'TEXT OF');
  const damaged = Buffer.from(lines.join('\n'), 'latin1');
  writeFileSync(journal!.path, damaged);
  const err = await openSqliteStore({ path: dbPath, log: (m) => logs.push(m) }).catch((e: unknown) => e);
  assert.instance(err, StoreError);
  assert.is((err as StoreError).code, 'corrupt');
  assert.match((err as StoreError).message, /record 4 .*checksum mismatch.*3 intact record\(s\) follow.*svc store recover/);
  assert.equal(readFileSync(journal!.path), damaged);

  const reports = await repairJournals(dbPath);
  assert.equal(
    reports.map((r) => [r.kept, r.skipped.map((s) => s.record)]),
    [[6, [4]]],
  );
  assert.equal(readFileSync(reports[0]!.backup), damaged);
  const b = await open();
  // The damaged record was the send of m3: everything else is there.
  assert.equal(ids((await b.listMessages('room:r1', { limit: 10 })).items), ['m1', 'm5']);
  assert.equal(ids((await b.listMessages('thread:t1', { limit: 10 })).items), ['m2', 'm4', 'm6']);
  assert.equal(ids(await b.listRooms()), ['r1', 'r2']);
  await b.write([send(msg('after'))]);
  assert.ok(await b.getMessage('after'));
  assert.equal(readdirSync(dirname(dbPath)).filter((n) => n.includes('.damaged-')).length, 1);
});

durable('a torn tail followed by records in a later journal is damage, not a crash', async () => {
  const a = await open();
  await populate(a, 2);
  const [journal] = listJournals(dbPath);
  appendFileSync(journal!.path, 'garbage without a line end');
  const next = `${dbPath}.journal.${journal!.gen + 1}`;
  appendFileSync(next, encodeRecord(JSON.stringify({ ops: [] })));
  assert.is(await codeOf(() => openSqliteStore({ path: dbPath })), 'corrupt');
  assert.ok(existsSync(next));
});

durable('a journal of only garbage is emptied and the database opens', async () => {
  const a = await open();
  await a.write([createRoom('r1')]);
  await a.close();
  await (await open()).close(); // leaves an empty journal for the current generation
  const [journal] = listJournals(dbPath);
  appendFileSync(journal!.path, 'not a record at all');
  const b = await open();
  assert.equal(ids(await b.listRooms()), ['r1']);
  assert.is(statSync(journal!.path).size, 0);
  assert.is(logs.length, 1);
});

durable('checkpoints retire old journals and a reopen keeps everything', async () => {
  const a = await open({ checkpointBytes: 2048 });
  const ms = await populate(a, 40);
  await waitFor(async () => (await a.stats()).checkpoints! >= 2, 'two checkpoints');
  const gens = listJournals(dbPath).map((j) => j.gen);
  assert.ok(gens.length <= 2, `journals ${gens}`);
  assert.not.ok(gens.includes(1));
  await a.close();
  assert.equal(
    listJournals(dbPath).map((j) => statSync(j.path).size),
    listJournals(dbPath).length ? [0] : [],
  );
  const b = await open();
  await assertPopulated(b, ms);
  assert.equal(logs, []);
});

durable('a crash after checkpoints loses nothing', async () => {
  const a = await open({ checkpointBytes: 2048 });
  const ms = await populate(a, 40);
  await waitFor(async () => (await a.stats()).checkpoints! >= 2, 'two checkpoints');
  await checkpointsSettled(a);
  await leftAsCrashed(a);
  const b = await open();
  await assertPopulated(b, ms);
  assert.equal(logs, []);
});

durable('checkpoints done in the worker thread keep everything, also across a crash', async () => {
  // Whole images are what a worker builds: the checkpoint when pages cannot be tracked.
  const a = await open({ checkpointBytes: 2048, workerCheckpointBytes: 0, pageTracking: false });
  const ms = await populate(a, 40);
  // A worker thread starts and loads sql.js per checkpoint: seconds on a loaded machine (a bound on a hang).
  await waitFor(async () => (await a.stats()).checkpoints! >= 2, 'two worker checkpoints', 60_000);
  await checkpointsSettled(a);
  // A killed server's search thread dies with it; alive, it would write the search file beside the next store's.
  await leftAsCrashed(a);
  const crashed = await open();
  await assertPopulated(crashed, ms);
  await crashed.close();
  await a.close();
  const b = await open();
  await assertPopulated(b, ms);
  // `a` lived on beside the "crashed" store and checkpointed at close, which no killed server
  // does: the search file `crashed` left matches the store no more and is built again (said once).
  assert.equal(
    logs.filter((l) => !/^store: search: .*svc\.db\.search is damaged, unreadable or of another store/.test(l)),
    [],
  );
});

durable('a journal write failure rejects the batch, shows none of it, and later writes succeed', async () => {
  let full = false;
  const a = await open({ faults: { failWrites: () => full } });
  await a.write([send(msg('m1'))]);
  full = true;
  const err = await a.write([createRoom('lost'), send(msg('m2', inThread('t1')))]).catch((e: unknown) => e);
  assert.instance(err, StoreError);
  assert.is((err as StoreError).code, 'unavailable');
  assert.match((err as StoreError).message, /ENOSPC/);
  assert.is(await a.getRoom('lost'), undefined);
  assert.is(await a.getMessage('m2'), undefined);
  assert.is(await a.getThread('t1'), undefined);
  assert.is(await a.lastEventSeq(), 1);
  full = false;
  assert.equal(
    (await a.write([send(msg('m3'))])).events.map((e) => e.seq),
    [2],
  );
  const b = await open();
  assert.equal(ids((await b.listMessages('room:r1', { limit: 10 })).items), ['m1', 'm3']);
  assert.equal(
    logs.filter((l) => /torn|truncat/.test(l)),
    [],
  );
});

durable('an fsync failure rejects the waiting writes and the next write retries', async () => {
  let broken = false;
  const a = await open({ faults: { failSyncs: () => broken } });
  broken = true;
  assert.is(await codeOf(() => a.write([send(msg('m1'))])), 'unavailable');
  broken = false;
  await a.write([send(msg('m2'))]);
  await a.sync();
  // The feed does not stall on the event whose write failed: it is read from the store.
  const got: number[] = [];
  a.feed.subscribe(0, (events) => got.push(...events.map((e) => e.seq)));
  await waitFor(() => got.length === 2, 'both events');
  await a.write([appendOp()]);
  assert.equal(got, [1, 2, 3]);
});

durable('a write made when onWritten wakes shares the group commit of the write that woke it', async () => {
  let groups = 0;
  const counted = () => {
    groups++;
    return false;
  };
  const a = await open({ faults: { failSyncs: counted } });
  await a.write([send(msg('m1'))]);
  const before = groups;
  let woken: Promise<unknown> | undefined;
  // An MCP wait's round: it reads what woke it and moves its cursor (src/mcp-http/read-state.ts).
  a.feed.onWritten(a.feed.head, () => {
    woken = a.listMessages('room:r1', { limit: 10 }).then((page) => a.write([send(msg(`seen ${page.items.length}`))]));
  });
  await a.write([send(msg('m2'))]);
  assert.ok(woken, 'woken before the write that woke it was durable');
  await woken;
  assert.is(groups - before, 1);
  assert.equal(ids((await a.listMessages('room:r1', { limit: 10 })).items), ['m1', 'm2', 'seen 2']);
});

durable('events keep their message by reference, not a second copy', async () => {
  const a = await open();
  await a.write([send(msg('m1'))]);
  await a.close();
  const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
  const db = new SQL.Database(readFileSync(dbPath));
  const [row] = db.exec('SELECT message_id, body FROM events')[0]!.values;
  db.close();
  assert.is(row![0], 'm1');
  assert.is(JSON.parse(row![1] as string).message, null);
});

durable('a reopen without writes leaves the files as they were', async () => {
  const a = await open();
  await populate(a, 2);
  await a.close();
  const size = statSync(dbPath).size;
  const mtime = statSync(dbPath).mtimeMs;
  const b = await open();
  await b.close();
  assert.is(statSync(dbPath).size, size);
  assert.is(statSync(dbPath).mtimeMs, mtime);
});

durable.run();
