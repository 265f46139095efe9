// History and search pages are capped by bytes as well as by count: over 1 MiB messages a page
// with limit=100 stays under the 4 MiB budget, says has_more, and its cursor walks every message
// exactly once; a budget smaller than one message still returns one per page; small messages
// still fill the count. On sqlite and on Postgres.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';

const ADMIN = TOKENS.admin.value;
const BIG = 1024 * 1024 - 1024;
/** How many BIG messages: 30 MiB, over seven pages' budget, and more than the store's first read
 * of 25 (src/network/page-budget.ts), so pages are cut both from a chunk with more after it and
 * from the last chunk, read to its end. */
const COUNT = 30;
const BUDGET = 4 * 1024 * 1024;
/** The page's own fields around the messages. */
const ENVELOPE = 64 * 1024;
const config = {
  auth: { public_read: true },
  rooms: [{ id: 'general', name: 'General', members: ['alpha'], visibility: 'public' }],
};

async function say(s: AppServer, text: string): Promise<string> {
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: 'general' }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text }] },
    ADMIN,
  );
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

/** Follows next_before from the first page; every page's size, and the ids in the order seen. */
async function walk(s: AppServer, first: string): Promise<{ ids: string[]; sizes: number[]; counts: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  const counts: number[] = [];
  let path = first;
  for (let pages = 0; pages < 200; pages++) {
    const r = await s.get(path);
    assert.is(r.status, 200, r.text.slice(0, 300));
    sizes.push(Buffer.byteLength(r.text));
    const ms = r.body.messages as Json[];
    assert.ok(ms.length >= 1, 'a page holds at least one message');
    counts.push(ms.length);
    ids.push(...ms.map((m) => m.id as string));
    if (!r.body.page.has_more) return { ids, sizes, counts };
    assert.type(r.body.page.next_before, 'string', 'has_more comes with a cursor');
    path = `${first}&before=${encodeURIComponent(r.body.page.next_before)}`;
  }
  throw new Error('the walk did not end');
}

async function bigPages(s: AppServer): Promise<void> {
  const sent: string[] = [];
  for (let i = 0; i < COUNT; i++) sent.push(await say(s, `needle ${i} ${'x'.repeat(BIG)}`));
  const history = await walk(s, '/v1/rooms/general/messages?limit=100');
  assert.ok(Math.max(...history.sizes) <= BUDGET + ENVELOPE, `history pages of ${history.sizes.join(', ')} bytes`);
  assert.ok(history.counts[0]! < COUNT, 'the first history page was cut by bytes');
  assert.is(history.ids.length, COUNT, 'each message once');
  // Pages go back in time, each oldest first.
  assert.equal([...history.ids].sort(), [...sent].sort());
  assert.equal(new Set(history.ids).size, COUNT);
  const search = await walk(s, '/v1/search?q=needle&limit=100');
  assert.ok(Math.max(...search.sizes) <= BUDGET + ENVELOPE, `search pages of ${search.sizes.join(', ')} bytes`);
  assert.ok(search.counts[0]! < COUNT, 'the first search page was cut by bytes');
  assert.equal(search.ids, [...sent].reverse(), 'search: newest first, each once');
}

async function smallBudget(s: AppServer): Promise<void> {
  const sent: string[] = [];
  for (let i = 0; i < 3; i++) sent.push(await say(s, `needle ${i} ${'y'.repeat(200 * 1024)}`));
  for (let i = 0; i < 120; i++) sent.push(await say(s, `needle small ${i}`));
  // 120 small messages: the count, not the budget, ends the first page.
  const h = await walk(s, '/v1/rooms/general/messages?limit=100');
  assert.is(h.counts[0], 100);
  assert.equal(h.counts.slice(1), [20, 1, 1, 1], 'then one 200 KiB message per 64 KiB page');
  assert.is(new Set(h.ids).size, 123);
  const q = await walk(s, '/v1/search?q=needle&limit=100');
  assert.equal(q.ids, [...sent].reverse());
  assert.equal(q.counts, [100, 20, 1, 1, 1]);
  // Forward paging (after) keeps the oldest that fit.
  const r = await s.get(`/v1/rooms/general/messages?limit=100&after=${sent[0]}`);
  assert.equal(
    r.body.messages.map((m: Json) => m.id),
    [sent[1]],
  );
  assert.is(r.body.page.has_more, true);
}

const small = { ...config, server: { limits: { page_bytes: 65536 } } };

const lite = suite<{ s: AppServer }>('page byte budget on sqlite');
lite.after.each(async ({ s }) => s?.dispose());
lite('history and search pages over 1 MiB messages stay under 4 MiB and their cursors walk every message once', async (ctx) => {
  await bigPages((ctx.s = await startApp({ config: config as Json })));
});
lite('a budget smaller than one message returns one per page, and small messages fill the count', async (ctx) => {
  await smallBudget((ctx.s = await startApp({ config: small as Json })));
});
lite.run();

const pg = suite<{ pgs: PgSchema; s: AppServer }>('page byte budget on Postgres');
pg.before.each(async (ctx) => {
  ctx.pgs = await freshSchema();
});
pg.after.each(async ({ pgs, s }) => {
  await s?.dispose();
  await pgs.drop();
});
pg('history and search pages over 1 MiB messages stay under 4 MiB and their cursors walk every message once', async (ctx) => {
  await bigPages((ctx.s = await startPgApp(ctx.pgs, config as Json)));
});
pg('a budget smaller than one message returns one per page, and small messages fill the count', async (ctx) => {
  await smallBudget((ctx.s = await startPgApp(ctx.pgs, small as Json)));
});
pg.run();
