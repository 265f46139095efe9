import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JournalWriter, journalPath, listJournals, readJournal } from '../../../src/store/sqlite/engine/journal.js';
import { crc32, decodeRecords, encodeRecord } from '../../../src/store/sqlite/engine/journal-format.js';

const test = suite('journal');
let dir = '';

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-journal-'));
});
test.after.each(() => {
  rmSync(dir, { recursive: true, force: true });
});

const lines = (...payloads: string[]): Buffer => Buffer.concat(payloads.map(encodeRecord));

test('crc32 matches the standard check values', () => {
  assert.is(crc32(Buffer.from('123456789')), 0xcbf43926);
  assert.is(crc32(Buffer.alloc(0)), 0);
  assert.is(crc32(Buffer.from('The quick brown fox jumps over the lazy dog')), 0x414fa339);
});

test('a record is one line: crc hex, a tab, the json and a newline', () => {
  assert.is(encodeRecord('123456789').toString('utf8'), 'cbf43926\t123456789\n');
  assert.is(encodeRecord('{}').toString('utf8').slice(8), '\t{}\n');
});

test('records round-trip, including non-ascii text and escaped newlines', () => {
  const values = [{ ops: [] }, { text: 'héllo ✓ 🐙', nl: 'a\nb' }, [1, 2, 3], 'x'];
  const buf = lines(...values.map((v) => JSON.stringify(v)));
  const d = decodeRecords(buf);
  assert.equal(d.records, values);
  assert.is(d.validBytes, buf.length);
  assert.is(d.problem, undefined);
});

test('an empty journal decodes to nothing', () => {
  assert.equal(decodeRecords(Buffer.alloc(0)), { records: [], validBytes: 0 });
});

test('a torn last record is dropped and the valid prefix kept', () => {
  const good = lines('{"n":1}', '{"n":2}');
  const torn = encodeRecord('{"n":3}').subarray(0, 7);
  const d = decodeRecords(Buffer.concat([good, torn]));
  assert.equal(d.records, [{ n: 1 }, { n: 2 }]);
  assert.is(d.validBytes, good.length);
  assert.match(d.problem ?? '', /torn/);
});

test('a record missing only its newline is torn', () => {
  const rec = encodeRecord('{"n":1}');
  const d = decodeRecords(rec.subarray(0, rec.length - 1));
  assert.equal(d.records, []);
  assert.is(d.validBytes, 0);
});

test('decoding stops at a checksum mismatch even when later records are valid', () => {
  const first = encodeRecord('{"n":1}');
  const bad = Buffer.from(encodeRecord('{"n":2}'));
  bad[bad.length - 3] = '3'.charCodeAt(0); // {"n":3} under the crc of {"n":2}
  const d = decodeRecords(Buffer.concat([first, bad, encodeRecord('{"n":4}')]));
  assert.equal(d.records, [{ n: 1 }]);
  assert.is(d.validBytes, first.length);
  assert.match(d.problem ?? '', /checksum/);
});

test('decoding stops at a line that is not framed', () => {
  const first = encodeRecord('{"n":1}');
  const d = decodeRecords(Buffer.concat([first, Buffer.from('garbage\n')]));
  assert.equal(d.records, [{ n: 1 }]);
  assert.is(d.validBytes, first.length);
});

test('decoding stops at a framed line whose payload is not json', () => {
  const d = decodeRecords(encodeRecord('{"n":'));
  assert.equal(d.records, []);
  assert.match(d.problem ?? '', /not JSON/);
});

test('journals are listed by generation, numerically', () => {
  const db = join(dir, 'svc.db');
  for (const gen of [10, 2, 1]) writeFileSync(journalPath(db, gen), '');
  writeFileSync(join(dir, 'svc.db.journal.x'), '');
  writeFileSync(join(dir, 'other.db.journal.3'), '');
  assert.equal(
    listJournals(db).map((j) => j.gen),
    [1, 2, 10],
  );
});

test('a missing journal file reads as empty', () => {
  assert.equal(readJournal(join(dir, 'nope')), { records: [], validBytes: 0, fileBytes: 0 });
});

test('appended records are readable once sync resolves', async () => {
  const file = join(dir, 'j.1');
  const w = new JournalWriter();
  w.switchTo(1, file);
  w.append('{"n":1}');
  w.append('{"n":2}');
  await w.sync();
  assert.equal(readJournal(file).records, [{ n: 1 }, { n: 2 }]);
  assert.is(w.currentBytes, readFileSync(file).length);
  await w.close();
});

test('writes arriving together share one group sync', async () => {
  const file = join(dir, 'j.1');
  const w = new JournalWriter();
  w.switchTo(1, file);
  const done: number[] = [];
  const all = [1, 2, 3].map((n) => {
    w.append(JSON.stringify({ n }));
    return w.sync().then(() => done.push(n));
  });
  await Promise.all(all);
  assert.equal(done, [1, 2, 3]);
  await w.close();
});

test('a failed append leaves no partial record and later appends follow the last good one', async () => {
  const file = join(dir, 'j.1');
  let fail = false;
  const w = new JournalWriter({ failWrites: () => fail });
  w.switchTo(1, file);
  w.append('{"n":1}');
  fail = true;
  try {
    w.append('{"n":2,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}');
    assert.unreachable('append should fail');
  } catch (err) {
    assert.is((err as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  fail = false;
  w.append('{"n":3}');
  await w.sync();
  const d = readJournal(file);
  assert.equal(d.records, [{ n: 1 }, { n: 3 }]);
  assert.is(d.problem, undefined);
  await w.close();
});

/** Builds one record in the writer's frame, as the store does for each write of a turn. */
function stage(w: JournalWriter, json: string): void {
  w.frame.start();
  w.frame.text(json);
  w.frame.finish();
}

test("a turn's records are written with one write call, framed as appends would be", async () => {
  const file = join(dir, 'j.1');
  let calls = 0;
  const w = new JournalWriter({
    failWrites: () => {
      calls++;
      return false;
    },
  });
  w.switchTo(1, file);
  w.append('{"n":0}');
  stage(w, '{"n":1}');
  stage(w, '{"n":"ü🦜"}');
  stage(w, '{"n":3}');
  const synced = w.sync();
  w.flush();
  await synced;
  assert.is(calls, 2);
  assert.equal(readFileSync(file), lines('{"n":0}', '{"n":1}', '{"n":"ü🦜"}', '{"n":3}'));
  await w.close();
});

test('a failed turn write leaves the file as before; only the waiters for its records are failed, later turns follow', async () => {
  const file = join(dir, 'j.1');
  let fail = false;
  const w = new JournalWriter({ failWrites: () => fail });
  w.switchTo(1, file);
  w.append('{"n":1}');
  const earlier = w.sync();
  stage(w, '{"n":2}');
  stage(w, '{"n":3,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}');
  const failed = w.sync();
  fail = true;
  try {
    w.flush();
    assert.unreachable('flush should fail');
  } catch (err) {
    assert.is((err as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  fail = false;
  assert.is(w.currentBytes, encodeRecord('{"n":1}').length);
  assert.is(readFileSync(file).length, w.currentBytes);
  // The store fails the turn itself: its waiters now wait only for the record before it.
  await earlier;
  await failed;
  stage(w, '{"n":4}');
  const later = w.sync();
  w.flush();
  await later;
  const d = readJournal(file);
  assert.equal(d.records, [{ n: 1 }, { n: 4 }]);
  assert.is(d.problem, undefined);
  await w.close();
});

test('records built and never flushed by their owner are written by the group sync, and its failure rejects their waiters', async () => {
  const file = join(dir, 'j.1');
  let fail = true;
  const w = new JournalWriter({ failWrites: () => fail });
  w.switchTo(1, file);
  stage(w, '{"n":1}');
  try {
    await w.sync();
    assert.unreachable('sync should fail');
  } catch (err) {
    assert.is((err as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  fail = false;
  stage(w, '{"n":2}');
  await w.sync();
  assert.equal(readJournal(file).records, [{ n: 2 }]);
  await w.close();
});

test('a record synced after a group that the fdatasync in flight settled waits for an fdatasync of its own', async () => {
  const file = join(dir, 'j.1');
  let fail = false;
  const w = new JournalWriter({ failSyncs: () => fail });
  w.switchTo(1, file);
  w.append('{"n":1}');
  const first = w.sync();
  while (!w.syncing) await new Promise((r) => setImmediate(r));
  // Made while that fdatasync runs, for the record it covers: settled by it.
  await Promise.all([first, w.sync()]);
  fail = true;
  w.append('{"n":2}');
  try {
    await w.sync();
    assert.unreachable('the record was acknowledged without an fdatasync');
  } catch (err) {
    assert.is((err as NodeJS.ErrnoException).code, 'EIO');
  }
  fail = false;
  await w.close();
});

test('a failed fsync rejects its waiters and the next sync retries', async () => {
  const file = join(dir, 'j.1');
  let fail = true;
  const w = new JournalWriter({ failSyncs: () => fail });
  w.switchTo(1, file);
  w.append('{"n":1}');
  try {
    await w.sync();
    assert.unreachable('sync should fail');
  } catch (err) {
    assert.is((err as NodeJS.ErrnoException).code, 'EIO');
  }
  fail = false;
  await w.sync();
  await w.close();
});

test('after a switch, old and new generations are both synced before acknowledging', async () => {
  const a = join(dir, 'j.1');
  const b = join(dir, 'j.2');
  const w = new JournalWriter();
  w.switchTo(1, a);
  w.append('{"n":1}');
  w.switchTo(2, b);
  w.append('{"n":2}');
  await w.sync();
  assert.equal(readJournal(a).records, [{ n: 1 }]);
  assert.equal(readJournal(b).records, [{ n: 2 }]);
  assert.is(w.currentBytes, encodeRecord('{"n":2}').length);
  await w.close();
});

test('switching to an existing file keeps only the given prefix', async () => {
  const file = join(dir, 'j.1');
  const good = encodeRecord('{"n":1}');
  writeFileSync(file, Buffer.concat([good, Buffer.from('half a rec')]));
  const w = new JournalWriter();
  w.switchTo(1, file, good.length);
  w.append('{"n":2}');
  await w.sync();
  assert.equal(readJournal(file), {
    records: [{ n: 1 }, { n: 2 }],
    validBytes: readFileSync(file).length,
    fileBytes: readFileSync(file).length,
  });
  await w.close();
});

test.run();
