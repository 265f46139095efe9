// Checkpoints that write only the changed pages (page-hook.ts, page-file.ts): the database opens
// whole after a crash at every step of one, the file matches the in-memory database byte for byte (pages in use),
// and a checkpoint after a small write is small.

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '../../../src/protocol/types.js';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../../../src/store/sqlite/index.js';
import { pagesPath, type PageStep } from '../../../src/store/sqlite/engine/page-file.js';
import { StoreError, type Store } from '../../../src/store/types.js';
import { leftAsCrashed, createRoom, ids, inRoom, inThread, msg, send, waitFor } from '../../helpers/store-fixtures.js';

const t = suite('sqlite checkpoints of changed pages');
let dir = '';
let dbPath = '';
let opened: SqliteStore[] = [];

t.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-pages-'));
  dbPath = join(dir, 'svc.db');
  opened = [];
});
t.after.each(async () => {
  for (const s of opened) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(opts: Partial<SqliteStoreOptions> = {}): Promise<SqliteStore> {
  const s = await openSqliteStore({ path: dbPath, ...opts });
  opened.push(s);
  return s;
}

// What a crash leaves stays reachable until the test process ends, as a killed process's open
// files stay open until it is gone: a store (and a checkpoint frozen in a hook) that the garbage
// collector found would have its file handles closed behind the test's back (Node's DEP0137).
const crashed: unknown[] = [];

/**
 * A store left as a crash would leave it: never closed, never touched again. Its search index is
 * dropped with it, as a killed process's threads are (alive, it would go on writing its file).
 */
async function abandon(s: SqliteStore): Promise<void> {
  opened = opened.filter((x) => x !== s);
  crashed.push(s);
  await leftAsCrashed(s);
}

/** A hook's answer that never comes: the checkpoint waiting on it is frozen for good. */
function never(): Promise<never> {
  const p = new Promise<never>(() => {});
  crashed.push(p);
  return p;
}

const PAGE = 4096;

/** The freelist's leaf pages of a database image (its trunk pages, which SQLite reads, are not). */
function freelistLeaves(db: Buffer): Set<number> {
  const leaves = new Set<number>();
  for (let trunk = db.readUInt32BE(32); trunk !== 0; ) {
    const at = (trunk - 1) * PAGE;
    const n = db.readUInt32BE(at + 4);
    for (let k = 0; k < n; k++) leaves.add(db.readUInt32BE(at + 8 + 4 * k));
    trunk = db.readUInt32BE(at);
  }
  return leaves;
}

/** The background checkpoint running now, if any. */
function backgroundCheckpoint(s: SqliteStore): Promise<void> | undefined {
  return (s as unknown as { checkpointer: { running?: Promise<void> } }).checkpointer.running;
}

async function sendMany(s: Store, from: number, n: number): Promise<Message[]> {
  const ms: Message[] = [];
  for (let i = from; i < from + n; i++) {
    const m = msg(`m${i}`, i % 3 ? inRoom('r1') : inThread('t1'), 'a1');
    m.parts = [{ kind: 'text', text: `message ${i} about checkpoint number ${i % 17}` }];
    ms.push(m);
  }
  // Bursts of 20: each burst's writes share a turn, and checkpoints start between bursts.
  for (let i = 0; i < ms.length; i += 20) await Promise.all(ms.slice(i, i + 20).map((m) => s.write([send(m)])));
  return ms;
}

async function assertHolds(s: Store, ms: Message[]): Promise<void> {
  assert.equal(ids(await s.listRooms()), ['r1']);
  const room = (await s.listMessages('room:r1', { limit: 1000 })).items;
  const thread = (await s.listMessages('thread:t1', { limit: 1000 })).items;
  assert.equal(ids([...room, ...thread]).sort(), ids(ms).sort());
  assert.is((await s.stats()).messages, ms.length);
  // Search (the worker's own file, caught up from the store at open) finds every one.
  const found = await s.searchMessages({
    terms: { words: ['checkpoint'], prefix: false },
    limit: 1000,
    scope: { room_ids: ['r1'], dm_ids: [] },
  });
  assert.is(found.items.length, ms.length);
}

const STEPS: PageStep[] = ['writing-redo', 'redo-slice', 'redo-written', 'applying', 'applied'];

for (const step of STEPS) {
  t(`a crash at "${step}" of a checkpoint leaves a database that opens with every write`, async () => {
    const a = await open();
    await a.write([createRoom('r1')]);
    const ms = await sendMany(a, 0, 300);
    await a.close();
    await abandon(a);
    // A checkpoint freezes at `step` for good: what a SIGKILL there leaves on disk.
    let frozen = false;
    const b = await open({
      checkpointBytes: 16 * 1024,
      // Slices of 4 pages: a checkpoint has several, so a crash can land between two.
      checkpointCopyBatch: 4,
      pageStep: async (at) => {
        if (at !== step) return;
        frozen = true;
        await never();
      },
    });
    await abandon(b);
    ms.push(...(await sendMany(b, 300, 200)));
    await waitFor(() => frozen, `a checkpoint reaching ${step}`);
    const partial = step === 'writing-redo' || step === 'redo-slice';
    assert.ok(existsSync(partial ? `${pagesPath(dbPath)}.tmp` : pagesPath(dbPath)));
    const c = await open();
    assert.not.ok(existsSync(pagesPath(dbPath)), 'the open finished or dropped the redo file');
    assert.not.ok(existsSync(`${pagesPath(dbPath)}.tmp`));
    await assertHolds(c, ms);
    await c.close();
    await abandon(c);
    // And once more from svc.db alone, after a clean close.
    const d = await open();
    await assertHolds(d, ms);
  });
}

t('svc.db after a checkpoint is the in-memory database byte for byte, page by page in use', async () => {
  let image: Buffer | undefined;
  let file: Buffer | undefined;
  let a: SqliteStore | undefined;
  a = await open({
    checkpointBytes: 32 * 1024,
    pageStep: async (at) => {
      // Nothing is written between the close's snapshot and here: the database is the snapshot.
      // (A background checkpoint still running at the close is not that: writes may follow its snapshot.)
      if (at !== 'applied' || !a?.closed || backgroundCheckpoint(a)) return;
      image = Buffer.from(a.db.raw.export());
      file = readFileSync(dbPath);
    },
  });
  await a.write([createRoom('r1')]);
  await sendMany(a, 0, 400);
  await waitFor(async () => (await a!.stats()).checkpoints! >= 2, 'two checkpoints');
  await sendMany(a, 400, 50);
  // The close's own checkpoint runs once the background one is done, and has a write to take.
  await backgroundCheckpoint(a);
  await sendMany(a, 450, 1);
  await a.close();
  await abandon(a);
  assert.ok(image && file, 'the close wrote a checkpoint of pages');
  // An export (sqlite's backup) bumps the copy's change counter and schema cookie: those header
  // fields aside, the bytes must be the same.
  for (const at of [24, 40, 92]) image.copy(file, at, at, at + 4);
  assert.is(file.length, image.length);
  // SQLite never reads what a page on the freelist holds, and under load such a page was seen to
  // differ (an emptied leaf in memory, its cells on disk) with no write of it reported: those are
  // left out. Every page in use must be the same.
  const free = freelistLeaves(image);
  const differ: number[] = [];
  for (let pgno = 1; pgno * PAGE <= file.length; pgno++) {
    const at = (pgno - 1) * PAGE;
    if (!free.has(pgno) && !file.subarray(at, at + PAGE).equals(image.subarray(at, at + PAGE))) differ.push(pgno);
  }
  assert.equal(differ, [], `svc.db differs from the database it was checkpointed from on pages ${differ.join(', ')}`);
});

t('a checkpoint after a small write writes a few pages, not the database', async () => {
  const a = await open();
  await a.write([createRoom('r1')]);
  await sendMany(a, 0, 2000);
  await a.close();
  await abandon(a);
  const whole = statSync(dbPath).size;
  let redo = 0;
  const b = await open({
    pageStep: async (at) => {
      if (at === 'redo-written') redo = statSync(pagesPath(dbPath)).size;
    },
  });
  await sendMany(b, 2000, 1);
  await b.close();
  await abandon(b);
  assert.ok(redo > 0, 'the close wrote a checkpoint of pages');
  assert.ok(redo * 10 < whole, `the checkpoint wrote ${redo} bytes for a ${whole}-byte database`);
});

t('a reopened store reads the pages it did not write from svc.db, and what it wrote from memory', async () => {
  const a = await open();
  await a.write([createRoom('r1')]);
  const ms = await sendMany(a, 0, 500);
  await a.close();
  await abandon(a);
  const b = await open();
  assert.ok(b.pages?.base, 'the reopened store reads svc.db on demand');
  assert.equal(b.engine, { page_tracking: true, on_demand_reads: true });
  // Rewrites pages that were read from the file (same rooms and indexes), then reads both kinds.
  ms.push(...(await sendMany(b, 500, 300)));
  await assertHolds(b, ms);
  assert.equal((await b.getMessage('m17'))?.message.id, 'm17');
});

t('writes during a checkpoint copy the pages it has not copied yet, and the result opens whole', async () => {
  // The first checkpoint gets writes between its slices (from its own hook, so that they land
  // there whatever the machine's load); once it has applied, svc.db as it then is, alone (the
  // state at its snapshot), goes to `alone` while the checkpoint waits.
  const alone = join(dir, 'alone');
  let captured = false;
  let betweenSlices = false;
  const ms: Message[] = [];
  let n = 0;
  const big = async () => {
    const m = msg(`big${n++}`, inRoom('r1'), 'a1');
    m.parts = [{ kind: 'text', text: `checkpoint ${'x'.repeat(3000)} ${n}` }];
    ms.push(m);
    await a!.write([send(m)]);
  };
  let a: SqliteStore | undefined;
  a = await open({
    checkpointBytes: 2 * 1024 * 1024,
    checkpointCopyBatch: 1,
    pageStep: async (at) => {
      if (at === 'redo-slice' && !betweenSlices) {
        betweenSlices = true;
        for (let i = 0; i < 20; i++) await big();
      }
      if (at !== 'applied' || captured || !betweenSlices) return;
      captured = true;
      mkdirSync(alone);
      copyFileSync(dbPath, join(alone, 'svc.db'));
    },
  });
  await abandon(a);
  await a.write([createRoom('r1')]);
  while (!captured && n < 5000) await big();
  assert.ok(captured, `no checkpoint applied (${n} writes)`);
  assert.ok(a.pages!.savedOnWrite > 0, 'no write landed on a page the checkpoint had not copied yet');
  // A page that changed after the snapshot but went into the checkpoint anyway would leave tables
  // and indexes out of step in svc.db.
  const snap = await openSqliteStore({ path: join(alone, 'svc.db') });
  try {
    assert.equal(snap.db.one('PRAGMA integrity_check'), ['ok']);
    const count = (await snap.stats()).messages;
    assert.is(Number(snap.db.one('SELECT count(*) FROM messages INDEXED BY messages_by_conv WHERE conv > ?', [''])![0]), count);
  } finally {
    await snap.close();
  }
  // And the store itself, closed and reopened.
  await a.close();
  const b = await open();
  assert.equal(b.db.one('PRAGMA integrity_check'), ['ok']);
  assert.is((await b.stats()).messages, ms.length);
});

t('a damaged redo file stops the open with an error naming it', async () => {
  const a = await open();
  await a.write([createRoom('r1')]);
  await sendMany(a, 0, 20);
  await a.close();
  await abandon(a);
  const b = await open({ pageStep: (at) => (at === 'redo-written' ? never() : Promise.resolve()) });
  await abandon(b);
  await sendMany(b, 20, 5);
  void b.close();
  await waitFor(() => existsSync(pagesPath(dbPath)), 'the redo file');
  const redo = readFileSync(pagesPath(dbPath));
  redo[redo.length - 100] ^= 0xff;
  writeFileSync(pagesPath(dbPath), redo);
  const err = await openSqliteStore({ path: dbPath }).catch((e: unknown) => e);
  assert.instance(err, StoreError);
  assert.is((err as StoreError).code, 'corrupt');
  assert.match((err as StoreError).message, /svc\.db\.pages is damaged \(checksum of page \d+\)/);
});

t('without page tracking checkpoints write whole images and keep everything', async () => {
  const a = await open({ checkpointBytes: 16 * 1024, pageTracking: false });
  assert.equal(a.engine, { page_tracking: false, on_demand_reads: false, problem: 'turned off by the caller' });
  await a.write([createRoom('r1')]);
  const ms = await sendMany(a, 0, 300);
  await waitFor(async () => (await a.stats()).checkpoints! >= 2, 'two checkpoints');
  await a.close();
  await abandon(a);
  assert.not.ok(existsSync(pagesPath(dbPath)));
  await assertHolds(await open(), ms);
});

t('a tracker that missed a write falls back to one whole export, then pages again', async () => {
  // Opened from an existing svc.db: the export reads the pages not written since from the file.
  const first = await open();
  await first.write([createRoom('r1')]);
  const ms = await sendMany(first, 0, 300);
  await first.close();
  await abandon(first);
  const a = await open({ checkpointBytes: 16 * 1024 });
  ms.push(...(await sendMany(a, 300, 100)));
  await waitFor(async () => (await a.stats()).checkpoints! >= 1, 'a checkpoint');
  a.pages!.lost = 'simulated';
  const before = (await a.stats()).checkpoints!;
  ms.push(...(await sendMany(a, 400, 200)));
  await waitFor(async () => (await a.stats()).checkpoints! >= before + 2, 'an export and a checkpoint of pages');
  assert.is(a.pages!.lost, undefined);
  ms.push(...(await sendMany(a, 600, 20)));
  await a.close();
  await abandon(a);
  await assertHolds(await open(), ms);
});

t.run();
