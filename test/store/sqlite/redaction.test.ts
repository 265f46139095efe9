// A redaction's scrub in the sqlite backend's files (#40 part 3): the search index is rebuilt
// without the message while searches keep finding everything else, a stop in the middle of the
// rebuild resumes at the next open, and once the scrub is done no file of the store holds the
// message's bytes (svc.db, its journals, and the search worker's file). The rebuild's fill reads
// one row per tick, so that it spans many of them.
// (test/message-lifecycle/redact.test.ts holds the HTTP side on every backend.)

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery } from '../../../src/protocol/search-text.js';
import type { Message } from '../../../src/protocol/types.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import { FEED } from '../../../src/store/sqlite/search-index.js';
import type { MessageRedactOp, Store } from '../../../src/store/types.js';
import { at, createRoom, event, ids, msg, send } from '../../helpers/store-fixtures.js';

const test = suite('sqlite redaction scrub');
let dir = '';
let dbPath = '';
let opened: SqliteStore[] = [];
const rows = FEED.rows;

async function open(opts: Partial<Parameters<typeof openSqliteStore>[0]> = {}): Promise<SqliteStore> {
  const s = await openSqliteStore({ path: dbPath, ...opts });
  opened.push(s);
  return s;
}

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-redact-'));
  dbPath = join(dir, 'svc.db');
  opened = [];
  FEED.rows = 1;
});
test.after.each(async () => {
  FEED.rows = rows;
  for (const s of opened) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const redact = (id: string): MessageRedactOp => ({
  op: 'message.redact',
  id,
  at: at(),
  event: (message) => event('message.redacted', { message }),
});

const withText = (id: string, text: string): Message => ({ ...msg(id), parts: [{ kind: 'text', text }] });

async function search(s: Store, words: string): Promise<string[]> {
  const r = await s.searchMessages({ terms: parseQuery(words)!, scope: { room_ids: ['r1'], dm_ids: [] }, limit: 500 });
  return ids(r.items);
}

/** The names of the store's files that hold `needle`. */
function filesHolding(needle: string): string[] {
  return readdirSync(dir).filter((f) => readFileSync(join(dir, f)).includes(needle));
}

async function scrubbed(s: SqliteStore): Promise<void> {
  for (let i = 0; i < 2000 && s.scrubPending(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.not.ok(s.scrubPending(), 'the scrub finished');
}

/** A store of 200 messages about penguins and one secret. */
async function filled(opts: Partial<Parameters<typeof openSqliteStore>[0]> = {}): Promise<SqliteStore> {
  const s = await open(opts);
  await s.write([createRoom('r1')]);
  for (let i = 0; i < 200; i += 20)
    await s.write(Array.from({ length: 20 }, (_, k) => send(withText(`p${i + k}`, `penguin note number ${i + k}`))));
  await s.write([send(withText('secret', 'the passphrase is Zanzibarquokka'))]);
  assert.equal(await search(s, 'zanzibarquokka'), ['secret']);
  return s;
}

test('searches find everything else while the index is rebuilt, and the secret nowhere once it is done', async () => {
  const s = await filled();
  await s.write([redact('secret')]);
  assert.ok(s.scrubPending(), 'the rebuild is under way');
  // Mid-rebuild: the live index still serves every other message, and never the redacted one.
  assert.is((await search(s, 'penguin')).length, 200);
  assert.equal(await search(s, 'zanzibarquokka'), []);
  // A message sent while the rebuild runs is found before and after the swap.
  await s.write([send(withText('late', 'a late penguin'))]);
  assert.ok((await search(s, 'late')).includes('late'));
  await scrubbed(s);
  assert.is((await search(s, 'penguin')).length, 201);
  assert.equal(await search(s, 'zanzibarquokka'), []);
  await s.close();
  assert.equal(filesHolding('anzibarquokka'), []);
  assert.ok(filesHolding('penguin').length > 0, 'the store still holds the other messages');
});

test('a stop in the middle of the rebuild resumes at the next open', async () => {
  const s = await filled();
  await s.write([redact('secret')]);
  assert.ok(s.scrubPending(), 'still under way when stopped');
  await s.close();
  assert.ok(filesHolding('anzibarquokka').includes('svc.db.search'), 'the search file was not rebuilt yet');
  const again = await open();
  assert.ok(again.scrubPending(), 'the reopened store goes on with it');
  assert.is((await search(again, 'penguin')).length, 200);
  await scrubbed(again);
  assert.is((await search(again, 'penguin')).length, 200);
  assert.is((await again.getMessage('secret'))?.message.redacted_at !== undefined, true);
  await again.close();
  assert.equal(filesHolding('anzibarquokka'), []);
});

test('a second redaction during a rebuild starts it again, and both are scrubbed', async () => {
  const s = await filled();
  await s.write([send(withText('second', 'another Wolframite secret'))]);
  await s.write([redact('secret')]);
  await new Promise((r) => setTimeout(r, 20));
  await s.write([redact('second')]);
  await scrubbed(s);
  assert.equal(await search(s, 'wolframite'), []);
  assert.is((await search(s, 'penguin')).length, 200);
  await s.close();
  assert.equal([...filesHolding('anzibarquokka'), ...filesHolding('olframite')], []);
});

test('without page tracking, where checkpoints of a big database go to a worker, the scrub still reaches svc.db', async () => {
  // The worker rebuilds svc.db from the last one and the journals, which hold no rebuilt index:
  // the scrub's checkpoint is written from the database itself.
  const opts = { pageTracking: false, workerCheckpointBytes: 1 };
  // Closed once the secret is indexed: svc.db holds it, index and all.
  await (await filled(opts)).close();
  assert.ok(filesHolding('anzibarquokka').includes('svc.db'));
  const s = await open(opts);
  await s.write([redact('secret')]);
  await scrubbed(s);
  assert.equal(filesHolding('anzibarquokka'), []);
  assert.is((await search(s, 'penguin')).length, 200);
});

test.run();
