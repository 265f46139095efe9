// A checkpoint's pages written in slices (page-file.ts) in a temp folder: the file comes out exact
// for any slice size, each turn copies at most one slice, and a crash between slices, while
// applying, or a damaged redo file leaves a database file that is either the old one or finished.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkpointPages, pagesPath, recoverPages, type PageSource, type PageStep } from '../../../src/store/sqlite/engine/page-file.js';
import { StoreError } from '../../../src/store/types.js';

const PS = 512;
let dir = '';
let db = '';

/** A page whose bytes name its number and a version (distinct pages, easy to tell apart). */
function page(pgno: number, version: number): Buffer {
  const b = Buffer.alloc(PS);
  for (let i = 0; i < PS; i += 8) {
    b.writeUInt32BE(pgno, i);
    b.writeUInt32BE(version, i + 4);
  }
  return b;
}

function image(pages: number, version: (pgno: number) => number): Buffer {
  return Buffer.concat(Array.from({ length: pages }, (_, i) => page(i + 1, version(i + 1))));
}

/** A source of version-2 pages that counts its reads, and the most made in one turn. */
function source(pageCount: number, list: number[]): PageSource & { reads: number[]; perTurn(): number; stop(): void } {
  const reads: number[] = [];
  let sinceTick = 0;
  let most = 0;
  let on = true;
  const tick = () => {
    sinceTick = 0;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    pageSize: PS,
    pageCount,
    nums: Uint32Array.from(list),
    reads,
    read(pgno, into) {
      reads.push(pgno);
      most = Math.max(most, ++sinceTick);
      into.set(page(pgno, 2));
    },
    perTurn: () => most,
    stop: () => (on = false),
  };
}

/** Throws at `step`, as a crash there would stop everything after it. */
const crashAt = (step: PageStep) => async (at: PageStep) => {
  if (at === step) throw new Error(`crash at ${step}`);
};

const t = suite('checkpoint pages in slices');

t.before.each(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'svc-page-file-'));
  db = path.join(dir, 'svc.db');
  writeFileSync(
    db,
    image(40, () => 1),
  );
});
t.after.each(() => rmSync(dir, { recursive: true, force: true }));

for (const slice of [1, 3, 256]) {
  t(`changed pages written in slices of ${slice} give the exact file, each page read once and one slice per turn`, async () => {
    // Pages 41 and 45 are past the old end (the database grew): 42-44 read as zeros.
    const nums = [2, 3, 4, 9, 15, 16, 17, 30, 35, 41, 45];
    const src = source(45, nums);
    await checkpointPages(db, src, undefined, slice);
    src.stop();
    const changed = new Set(nums);
    const want = Buffer.concat(
      Array.from({ length: 45 }, (_, i) => (changed.has(i + 1) ? page(i + 1, 2) : i < 40 ? page(i + 1, 1) : Buffer.alloc(PS))),
    );
    assert.ok(readFileSync(db).equals(want));
    assert.equal(src.reads, nums);
    assert.ok(src.perTurn() <= slice, `${src.perTurn()} pages read in one turn with slices of ${slice}`);
    assert.not.ok(existsSync(pagesPath(db)));
    assert.not.ok(existsSync(`${pagesPath(db)}.tmp`));
  });
}

t('a database cut shorter keeps the changed pages and ends at its page count', async () => {
  const src = source(12, [2, 11]);
  await checkpointPages(db, src, undefined, 1);
  src.stop();
  assert.ok(readFileSync(db).equals(image(12, (n) => (n === 2 || n === 11 ? 2 : 1))));
});

t('a checkpoint that changed every page writes a new file in slices', async () => {
  const nums = Array.from({ length: 30 }, (_, i) => i + 1);
  const src = source(30, nums);
  await checkpointPages(db, src, undefined, 7);
  src.stop();
  assert.ok(readFileSync(db).equals(image(30, () => 2)));
  assert.ok(src.perTurn() <= 7);
  assert.not.ok(existsSync(pagesPath(db)));
});

t('a crash between slices of the redo file leaves the old database, and the open drops the partial file', async () => {
  const before = readFileSync(db);
  const src = source(40, [1, 5, 6, 7, 20, 33]);
  const err = await checkpointPages(db, src, crashAt('redo-slice'), 2).catch((e: unknown) => e);
  src.stop();
  assert.match(String(err), /crash at redo-slice/);
  assert.equal(src.reads, [1, 5], 'the crash came after the first slice');
  assert.ok(readFileSync(db).equals(before), 'svc.db was touched before the redo file was whole');
  assert.is(await recoverPages(db), false);
  assert.ok(readFileSync(db).equals(before));
  assert.not.ok(existsSync(`${pagesPath(db)}.tmp`));
});

t('a crash while the pages are applied slice by slice is finished by the next open', async () => {
  const nums = [1, 5, 6, 7, 20, 33];
  const src = source(40, nums);
  const err = await checkpointPages(db, src, crashAt('applying'), 2).catch((e: unknown) => e);
  src.stop();
  assert.match(String(err), /crash at applying/);
  const half = readFileSync(db);
  assert.ok(half.subarray(0, PS).equals(page(1, 2)), 'the first slice was applied');
  assert.ok(half.subarray(19 * PS, 20 * PS).equals(page(20, 1)), 'the last slice was not');
  assert.is(await recoverPages(db), true);
  const changed = new Set(nums);
  assert.ok(readFileSync(db).equals(image(40, (n) => (changed.has(n) ? 2 : 1))));
  assert.not.ok(existsSync(pagesPath(db)));
});

t('a redo file damaged in its last slice stops the open before the database is touched', async () => {
  // More than one slice of the open's own size (256 pages), the damage in the last one.
  writeFileSync(
    db,
    image(700, () => 1),
  );
  const before = readFileSync(db);
  const nums = Array.from({ length: 600 }, (_, i) => i + 1);
  const src = source(700, nums);
  await checkpointPages(db, src, crashAt('redo-written'), 256).catch(() => undefined);
  src.stop();
  const redo = readFileSync(pagesPath(db));
  redo[redo.length - 100] ^= 0xff;
  writeFileSync(pagesPath(db), redo);
  const err = await recoverPages(db).catch((e: unknown) => e);
  assert.instance(err, StoreError);
  assert.is((err as StoreError).code, 'corrupt');
  assert.match((err as StoreError).message, /svc\.db\.pages is damaged \(checksum of page 600\)/);
  assert.ok(readFileSync(db).equals(before), 'a page was applied before the damage was found');
});

t('a redo file cut short is refused as damaged', async () => {
  const src = source(40, [3, 4]);
  await checkpointPages(db, src, crashAt('redo-written')).catch(() => undefined);
  src.stop();
  const redo = readFileSync(pagesPath(db));
  writeFileSync(pagesPath(db), redo.subarray(0, redo.length - 5));
  const err = await recoverPages(db).catch((e: unknown) => e);
  assert.instance(err, StoreError);
  assert.match((err as StoreError).message, /bytes for 2 pages/);
});

t.run();
