// The sqlite search index is the search worker's own database (search-worker.ts), fed each write
// once it is durable: a search right after a write still finds it, rolled-back writes are never
// indexed, merges leave every message findable, and whatever a crash or a checkpoint leaves half
// indexed (the search file behind the store, or missing, or damaged) is completed by the next
// start from the store.

import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { msg, send } from '../../helpers/store-fixtures.js';
import type { Message } from '../../../src/protocol/types.js';
import { parseQuery } from '../../../src/protocol/search-text.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import { loadSql } from '../../../src/store/sqlite/engine/image.js';
import { crc32 } from '../../../src/store/sqlite/engine/journal-format.js';
import { ENTRY, encodeHeader, encodeTrailer } from '../../../src/store/sqlite/engine/redo-format.js';
import { SearchDb } from '../../../src/store/sqlite/search-db.js';
import { SEGMENT_LIMIT } from '../../../src/store/sqlite/search-merge.js';
import { BACKGROUND_NICE } from '../../../src/threads.js';

const WORDS = ['amber', 'basalt', 'cobalt', 'dune', 'ermine'];
/** Message i: one shared word, one of its own. */
const textOf = (i: number) => `${WORDS[i % WORDS.length]} solo${i}q`;

/** Filler that makes messages long enough to fill index segments quickly. */
let filler = '';

function message(i: number): Message {
  const m = msg(`m${i}`);
  m.parts = [{ kind: 'text', text: `${textOf(i)}${filler}` }];
  return m;
}

/** Every id a search for `q` gives, newest first, through every page. */
async function searchAll(s: SqliteStore, q: string): Promise<string[]> {
  const out: string[] = [];
  let before: string | undefined;
  for (;;) {
    const r = await s.searchMessages({
      terms: parseQuery(q)!,
      scope: { room_ids: ['r1'], dm_ids: [] },
      limit: 1000,
      ...(before ? { before } : {}),
    });
    out.push(...r.items.map((m) => m.id));
    if (!r.has_more) return out;
    before = out[out.length - 1];
  }
}

/** Exactly messages 0..n-1 are found, word by word, newest first. */
async function assertAllFound(s: SqliteStore, n: number): Promise<void> {
  for (let w = 0; w < WORDS.length; w++) {
    const expected: string[] = [];
    for (let i = n - 1; i >= 0; i--) if (i % WORDS.length === w) expected.push(`m${i}`);
    assert.equal(await searchAll(s, WORDS[w]!), expected, `word ${WORDS[w]}`);
  }
  for (const i of [0, Math.floor(n / 2), n - 1]) assert.equal(await searchAll(s, `solo${i}q`), [`m${i}`]);
}

/** Writes messages from..to-1, `perTurn` of them in each event-loop turn. */
async function writeTurns(s: SqliteStore, from: number, to: number, perTurn: number): Promise<void> {
  for (let i = from; i < to; i += perTurn) {
    const batch = [];
    for (let j = i; j < Math.min(to, i + perTurn); j++) batch.push(s.write([send(message(j))]));
    await Promise.all(batch);
  }
}

/** Waits until the worker has indexed every acknowledged message. */
async function settle(s: SqliteStore): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (s.searchIndexLag() === 0) return;
    await sleep(5);
  }
  assert.unreachable(`the search worker did not catch up: ${s.searchIndexLag()} s behind`);
}

/** The search file and its redo file as they are now (names and modification times). */
const searchFilesNow = (dir: string): string =>
  readdirSync(dir)
    .filter((f) => f.startsWith('svc.db.search'))
    .map((f) => `${f} ${statSync(join(dir, f)).mtimeMs}`)
    .join(', ');

/**
 * Copies the store's files as a crash would leave them (every acknowledged write is in the journal).
 * A checkpoint, or a write of the search file, still running may rename, remove or change one of
 * them while they are copied: then the copy starts over, so it holds the files of one moment.
 */
function crashCopy(from: string, to: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      const before = searchFilesNow(from);
      for (const f of readdirSync(from)) if (f.startsWith('svc.db')) copyFileSync(join(from, f), join(to, f));
      if (searchFilesNow(from) === before) return;
      if (attempt === 20) throw new Error('the search file kept changing while it was copied');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 20) throw err;
    }
    for (const f of readdirSync(to)) rmSync(join(to, f), { force: true });
  }
}

const t = suite<{ dirs: string[] }>('search worker (sqlite)');
t.before.each((c) => {
  c.dirs = [];
});
t.after.each((c) => {
  for (const d of c.dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = (c: { dirs: string[] }) => {
  const d = mkdtempSync(join(tmpdir(), 'svc-upkeep-'));
  c.dirs.push(d);
  return d;
};

t('a search right after each write finds it, before any idle tick could index it', async (c) => {
  const s = await openSqliteStore({ path: join(tmp(c), 'svc.db') });
  try {
    for (let i = 0; i < 40; i++) {
      await s.write([send(message(i))]);
      assert.equal(await searchAll(s, `solo${i}q`), [`m${i}`]);
    }
    await assertAllFound(s, 40);
  } finally {
    await s.close();
  }
});

/** Each thread of this process with its nice value (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended
    }
  }
  return out;
}

t('the search worker yields the CPU to the main thread: on Linux it runs BACKGROUND_NICE lower', async (c) => {
  const s = await openSqliteStore({ path: join(tmp(c), 'svc.db') });
  try {
    await s.write([send(message(1))]);
    assert.equal(await searchAll(s, 'solo1q'), ['m1']);
    const mainNice = getPriority();
    const background = Math.min(19, mainNice + BACKGROUND_NICE);
    if (process.platform === 'linux') {
      const nices = threadNices();
      assert.is(nices.get(process.pid), mainNice, 'the main thread keeps its priority');
      assert.ok([...nices.values()].includes(background), `a thread at nice ${background}: ${[...nices.values()].join(' ')}`);
    } else assert.not.ok(existsSync('/proc/self/task'), 'threads have no priority of their own here');
  } finally {
    await s.close();
  }
});

t('messages written after a failed journal write and after an undone write are indexed as their own rows', async (c) => {
  // Live writes hand the upkeep each message with the seq its row took, counted rather than read:
  // rows rolled back (a turn whose journal write failed, a write undone midway) must not shift it.
  let full = false;
  const logs: string[] = [];
  const s = await openSqliteStore({ path: join(tmp(c), 'svc.db'), faults: { failWrites: () => full }, log: (m) => logs.push(m) });
  try {
    await writeTurns(s, 0, 5, 1);
    await settle(s);
    full = true;
    const failed = await Promise.all([5, 6].map((i) => s.write([send(message(i))]).catch((e: unknown) => e)));
    for (const e of failed) assert.is((e as { code?: string }).code, 'unavailable');
    full = false;
    // The first message's row is written, then the second (an id already stored, marked as minted
    // so that the store does not look first) fails: the write is undone.
    const undone = await s.write([send(message(7)), { ...send(message(0)), minted: true }]).catch((e: unknown) => e);
    assert.is((undone as { code?: string }).code, 'conflict');
    await writeTurns(s, 8, 12, 2);
    for (const i of [0, 1, 2, 3, 4, 8, 9, 10, 11]) assert.equal(await searchAll(s, `solo${i}q`), [`m${i}`], `message ${i}`);
    for (const i of [5, 6, 7]) assert.equal(await searchAll(s, `solo${i}q`), [], `message ${i}`);
    await settle(s);
    assert.equal(
      logs.filter((l) => /search/.test(l)),
      [],
    );
  } finally {
    await s.close();
  }
});

t('thousands of messages over many turns are indexed and merged by the worker, every one found', async (c) => {
  const s = await openSqliteStore({ path: join(tmp(c), 'svc.db') });
  try {
    await writeTurns(s, 0, 1500, 1);
    await writeTurns(s, 1500, 4000, 7);
    await settle(s);
    await assertAllFound(s, 4000);
  } finally {
    await s.close();
  }
});

t('after a crash, the journal replayed at start is indexed and found', async (c) => {
  const dir = tmp(c);
  const s = await openSqliteStore({ path: join(dir, 'svc.db') });
  const copy = tmp(c);
  try {
    await writeTurns(s, 0, 600, 5);
    await settle(s);
    await writeTurns(s, 600, 900, 3);
    crashCopy(dir, copy);
  } finally {
    await s.close();
  }
  const again = await openSqliteStore({ path: join(copy, 'svc.db') });
  try {
    await assertAllFound(again, 900);
    await settle(again);
    await assertAllFound(again, 900);
  } finally {
    await again.close();
  }
});

t('the search database keeps every level below 16 segments, parks full segments unmerged, and finds every message', async () => {
  const SQL = await loadSql();
  const limit = SEGMENT_LIMIT.blocks;
  // One block instead of hundreds and longer messages: the same parking after a few thousand.
  SEGMENT_LIMIT.blocks = 1;
  filler = ' lorem ipsum dolor sit amet consectetur adipiscing elit'.repeat(4);
  const db = SearchDb.empty(SQL, 'e');
  try {
    // Ten messages per transaction (a segment each), merges stepped between as the worker does.
    for (let i = 0; i < 2000; i += 10) {
      db.add(
        Array.from({ length: 10 }, (_, k) => ({ seq: i + k + 1, body: JSON.stringify(message(i + k)) })),
        true,
      );
      db.merge();
    }
    while (db.merge());
    const l: Record<number, number> = {};
    for (const [level, n] of db.raw.exec('SELECT level, count(*) FROM search_index_segdir GROUP BY level')[0]!.values)
      l[level as number] = n as number;
    const parked = Object.entries(l).filter(([level]) => Number(level) >= 512);
    assert.ok(parked.length >= 2, `segments parked on several levels: ${JSON.stringify(l)}`);
    assert.ok(
      Object.values(l).every((n) => n < 8),
      `no level holds enough segments to be merged: ${JSON.stringify(l)}`,
    );
    assert.equal(db.raw.exec("INSERT INTO search_index(search_index) VALUES('integrity-check')"), []);
    assert.is(db.indexedSeq, 2000);
    const all = db.candidates({ match: 'amber', room_ids: ['r1'], dm_ids: [], limit: 5000 });
    assert.is(all.length, 400);
    assert.equal(db.candidates({ match: 'solo77q', room_ids: ['r1'], dm_ids: [], limit: 5 }), [78]);
  } finally {
    db.close();
    SEGMENT_LIMIT.blocks = limit;
    filler = '';
  }
});

for (const where of ['in place', 'in the worker'] as const) {
  t(`checkpoints taken ${where} while messages are still pending are completed by the next start`, async (c) => {
    const dir = tmp(c);
    const copy = tmp(c);
    const s = await openSqliteStore({
      path: join(dir, 'svc.db'),
      checkpointBytes: 16 * 1024,
      workerCheckpointBytes: where === 'in place' ? 1 << 30 : 1,
    });
    try {
      // Big turns and no waiting: checkpoints start while the upkeep is behind.
      await writeTurns(s, 0, 1200, 60);
      for (let i = 0; i < 500 && ((await s.stats()).checkpoints ?? 0) === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(((await s.stats()).checkpoints ?? 0) > 0, 'checkpoints ran');
      crashCopy(dir, copy);
    } finally {
      await s.close();
    }
    const again = await openSqliteStore({ path: join(copy, 'svc.db') });
    try {
      await settle(again);
      await assertAllFound(again, 1200);
    } finally {
      await again.close();
    }
  });
}

t('close leaves nothing running, with messages still on their way to the worker; the next start finds them all', async (c) => {
  const dir = tmp(c);
  const s = await openSqliteStore({ path: join(dir, 'svc.db') });
  await writeTurns(s, 0, 700, 70);
  // The last writes and the close in one turn: no tick feeds the worker between them.
  const last = Promise.all(Array.from({ length: 100 }, (_, k) => s.write([send(message(700 + k))])));
  const closed = s.close();
  await last;
  await closed;
  for (let i = 0; i < 20; i++) await tick();
  assert.ok(existsSync(join(dir, 'svc.db.search')), 'the worker wrote its file at close');
  const again = await openSqliteStore({ path: join(dir, 'svc.db') });
  try {
    await assertAllFound(again, 800);
  } finally {
    await again.close();
  }
});

t('a search file that is missing, damaged, or of another store is built again from the store', async (c) => {
  const dir = tmp(c);
  const file = join(dir, 'svc.db');
  const s = await openSqliteStore({ path: file });
  await writeTurns(s, 0, 300, 30);
  await s.close();
  const good = readFileSync(`${file}.search`);
  for (const [what, damage] of [
    ['missing', () => rmSync(`${file}.search`)],
    ['damaged', () => writeFileSync(`${file}.search`, Buffer.concat([good.subarray(0, 4096), Buffer.alloc(good.length - 4096, 7)]))],
    ['of another store', () => writeFileSync(`${file}.search`, other)],
  ] as const) {
    damage();
    const logs: string[] = [];
    const again = await openSqliteStore({ path: file, log: (m) => logs.push(m) });
    try {
      await assertAllFound(again, 300);
      if (what !== 'missing')
        assert.ok(
          logs.some((l) => /building it again/.test(l)),
          `${what}: ${logs.join('; ')}`,
        );
    } finally {
      await again.close();
    }
  }
});

t(
  'a search file is read on demand and written back as its changed pages, and a write a crash cut short is finished at the next open',
  async (c) => {
    const SQL = await loadSql();
    const file = join(tmp(c), 'svc.db.search');
    const items = (from: number, n: number) =>
      Array.from({ length: n }, (_, k) => ({ seq: from + k + 1, body: JSON.stringify(message(from + k)) }));
    const first = SearchDb.empty(SQL, 'e');
    first.add(items(0, 3000), true);
    await first.write(file);
    first.close();
    const { ino, size } = statSync(file);
    const opened = await SearchDb.open(SQL, file, 'e', 10_000);
    assert.ok(opened instanceof SearchDb, 'the file opens');
    opened.add(items(3000, 10), true);
    await opened.write(file);
    // Written in place through a redo file: the same file, not a new one renamed over it.
    assert.is(statSync(file).ino, ino);
    assert.ok(statSync(file).size >= size);
    assert.not.ok(existsSync(`${file}.pages`), 'the redo file is gone once applied');
    // A redo file left complete (a crash after it was written, before it was applied): the next open applies it.
    const before = readFileSync(file);
    opened.add(items(3010, 10), true);
    await opened.write(file);
    const after = readFileSync(file);
    opened.close();
    writeFileSync(`${file}.pages`, redoOf(before, after));
    writeFileSync(file, before);
    const again = await SearchDb.open(SQL, file, 'e', 10_000);
    assert.ok(again instanceof SearchDb);
    try {
      assert.is(again.indexedSeq, 3020);
      assert.equal(again.candidates({ match: 'solo3019q', room_ids: ['r1'], dm_ids: [], limit: 5 }), [3020]);
      assert.equal(again.candidates({ match: 'solo7q', room_ids: ['r1'], dm_ids: [], limit: 5 }), [8]);
      assert.is(again.candidates({ match: 'amber', room_ids: ['r1'], dm_ids: [], limit: 5000 }).length, 604);
      assert.not.ok(existsSync(`${file}.pages`));
    } finally {
      again.close();
    }
  },
);

/** The redo file that turns database image `before` into `after` (engine/redo-format.ts), as a checkpoint writes it. */
function redoOf(before: Buffer, after: Buffer, pageSize = 4096): Buffer {
  const entries: Buffer[] = [];
  for (let at = 0; at < after.length; at += pageSize) {
    const page = after.subarray(at, at + pageSize);
    if (page.equals(before.subarray(at, at + pageSize))) continue;
    const head = Buffer.alloc(ENTRY);
    head.writeUInt32BE(at / pageSize + 1, 0);
    head.writeUInt32BE(crc32(page), 4);
    entries.push(head, page);
  }
  const header = encodeHeader({ pageSize, pageCount: after.length / pageSize, entries: entries.length / 2 });
  return Buffer.concat([header, ...entries, encodeTrailer(entries.length / 2)]);
}

/** The search file of another store (another epoch), holding 300 messages of other words. */
let other = Buffer.alloc(0);
t.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-upkeep-other-'));
  const s = await openSqliteStore({ path: join(dir, 'svc.db') });
  for (let i = 0; i < 30; i++) await s.write([send({ ...msg(`o${i}`), parts: [{ kind: 'text', text: 'amber elsewhere' }] })]);
  await s.close();
  other = readFileSync(join(dir, 'svc.db.search'));
  rmSync(dir, { recursive: true, force: true });
});

t.run();
