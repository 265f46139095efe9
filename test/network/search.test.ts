// GET /v1/search over HTTP, on every backend: words, filters, paging, snippets and bad input.

import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
/** Two full pages of 100 and one more: the smallest count that pages twice past 100. */
const BULK = 201;

interface Ctx {
  s: AppServer;
  /** Message ids by name. */
  ids: Record<string, string>;
  thread: string;
  dm: string;
  /** Ids of the BULK `bulk` messages, oldest first. */
  bulk: string[];
}

const search = (s: AppServer, query: string, token: string = ADMIN) => s.get(`/v1/search?${query}`, token);
const idsOf = (r: { body: Json }) => (r.body.messages as { id: string }[]).map((m) => m.id);

// Made once at load, before any server starts: sampling grapheme strings holds the event loop for
// seconds, long enough for a server to close the test's idle keep-alive connection under it.
// A fixed seed: the same strings every run (full Unicode, control characters, lone surrogates
// escaped by URLSearchParams, operator-looking text, very long words).
const QUERY_TEXTS = fc.sample(
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom(
      '"',
      '*',
      'NEAR',
      'a OR b',
      'x AND NOT y',
      '-neg',
      '"unterminated',
      '(((',
      'mig*',
      '^',
      ':',
      'ß',
      'İ',
      '\u0000',
      '\ud800',
    ),
    fc.string({ unit: 'grapheme', minLength: 300, maxLength: 600 }),
  ),
  { numRuns: 120, seed: 15 },
);

/** Sends a message; returns its id. */
async function send(s: AppServer, body: Json): Promise<string> {
  const r = await s.post('/v1/messages', body, ADMIN);
  if (r.status !== 200) throw new Error(r.text);
  return r.body.message_id;
}

for (const backend of ['sqlite', 'memory', 'postgres'] as const) {
  const t = suite<Ctx>(`search over HTTP (${backend})`);
  let pgs: PgSchema | undefined;
  t.before(async (c) => {
    pgs = backend === 'postgres' ? await freshSchema() : undefined;
    c.s = await startApp({
      ...(pgs ? { env: { SVC_TEST_STORE_URL: pgs.url } } : {}),
      config: {
        store: pgs ? pgStore(pgs) : backend === 'memory' ? { backend: 'memory' } : { backend: 'sqlite', path: '.svc/svc.db' },
        rooms: [
          { id: 'ops', members: ['ann', 'bob'] },
          { id: 'random', members: ['ann'] },
          { id: 'bulk', members: ['ann'] },
        ],
      },
    });
    const s = c.s;
    c.ids = {};
    c.ids.plan = await send(s, roomMessage('ops', 'ann', 'We decided the database migration runs on Friday'));
    c.ids.lunch = await send(s, roomMessage('random', 'bob', 'Lunch at noon? The migration can wait'));
    c.thread = 'plan-talk';
    c.ids.thread = await send(s, {
      target: { kind: 'thread', room_id: 'ops', thread_id: c.thread, parent_message_id: c.ids.plan },
      from: { type: 'agent', id: 'bob' },
      parts: [{ kind: 'text', text: 'Which migration, the schema one?' }],
    });
    c.ids.dm = await send(s, {
      target: { kind: 'dm', participant_ids: ['ann', 'bob'] },
      from: { type: 'agent', id: 'ann' },
      parts: [{ kind: 'text', text: 'private note on the migration' }],
    });
    c.dm = (await s.get('/v1/dms', ADMIN)).body.dms[0].id;
    c.ids.file = await send(s, {
      target: { kind: 'room', room_id: 'ops' },
      from: { type: 'agent', id: 'ann' },
      parts: [{ kind: 'file', url: 'https://files.test/x', filename: 'Quarterly-Budget.xlsx' }],
    });
    c.ids.human = await send(s, {
      target: { kind: 'room', room_id: 'random' },
      from: { type: 'human', id: 'carol' },
      parts: [{ kind: 'text', text: 'carol asks about the migration' }],
    });
    c.bulk = [];
    for (let i = 0; i < BULK; i++) c.bulk.push(await send(s, roomMessage('bulk', 'ann', `bulk item ${i} haystack`)));
  });
  t.after(async (c) => {
    await c.s.dispose();
    await pgs?.drop();
  });

  t('one word finds every message holding it, newest first, in the Message shape with a snippet', async ({ s, ids }) => {
    const r = await search(s, 'q=migration');
    assert.is(r.status, 200, r.text);
    assert.equal(idsOf(r), [ids.human, ids.dm, ids.thread, ids.lunch, ids.plan]);
    assert.equal(r.body.page, { has_more: false });
    // The same message as history gives it, with only `snippet` added.
    const hist = await s.get('/v1/rooms/ops/messages', ADMIN);
    const stored = (hist.body.messages as Json[]).find((m) => m.id === ids.plan);
    const hit = (r.body.messages as Json[]).find((m) => m.id === ids.plan);
    const { snippet, ...message } = hit;
    assert.equal(message, stored);
    assert.is(snippet, 'We decided the database **migration** runs on Friday');
  });

  t('several words must all match; the last one also as the start of a word', async ({ s, ids }) => {
    assert.equal(idsOf(await search(s, 'q=database+migration')), [ids.plan]);
    assert.equal(idsOf(await search(s, 'q=friday+MIGR')), [ids.plan]);
    assert.equal(idsOf(await search(s, 'q=migr+friday')), []);
    assert.equal(idsOf(await search(s, 'q=quarterly+budg')), [ids.file]);
  });

  t('a word nobody wrote finds nothing', async ({ s }) => {
    const r = await search(s, 'q=zeppelin');
    assert.is(r.status, 200);
    assert.equal(r.body, { messages: [], page: { has_more: false } });
  });

  t('filters: room with its threads, thread, DM, and sender in every form', async ({ s, ids, thread, dm }) => {
    assert.equal(idsOf(await search(s, 'q=migration&room_id=ops')), [ids.thread, ids.plan]);
    assert.equal(idsOf(await search(s, `q=migration&thread_id=${thread}`)), [ids.thread]);
    assert.equal(idsOf(await search(s, `q=migration&dm_id=${dm}`)), [ids.dm]);
    assert.equal(idsOf(await search(s, 'q=migration&from=bob')), [ids.thread, ids.lunch]);
    assert.equal(idsOf(await search(s, 'q=migration&from=testnet:bob')), [ids.thread, ids.lunch]);
    assert.equal(idsOf(await search(s, `q=migration&from=${encodeURIComponent('svc://testnet/agents/ann')}`)), [ids.dm, ids.plan]);
    assert.equal(idsOf(await search(s, 'q=migration&from=carol')), [ids.human]);
    assert.equal(idsOf(await search(s, 'q=migration&from=bob&room_id=random')), [ids.lunch]);
  });

  t('a named conversation answers as its history does', async ({ s }) => {
    assert.is((await search(s, 'q=migration&room_id=nope')).status, 404);
    assert.is((await search(s, 'q=migration&thread_id=nope')).status, 404);
    assert.is((await search(s, 'q=migration&dm_id=nope')).status, 404);
  });

  t('results page back past 100 with before; limit defaults to 20 and is capped at 100', async ({ s, bulk }) => {
    const first = await search(s, 'q=haystack');
    assert.is(first.body.messages.length, 20);
    assert.is(first.body.page.has_more, true);
    const newestFirst = [...bulk].reverse();
    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    for (;;) {
      const r = await search(s, `q=haystack&limit=500${before ? `&before=${before}` : ''}`);
      assert.is(r.status, 200, r.text);
      assert.ok(r.body.messages.length <= 100);
      seen.push(...idsOf(r));
      pages++;
      if (!r.body.page.has_more) {
        assert.is(r.body.page.next_before, undefined);
        break;
      }
      assert.is(r.body.page.next_before, seen[seen.length - 1]);
      before = r.body.page.next_before;
    }
    assert.is(pages, 3);
    assert.equal(seen, newestFirst);
  });

  t('a search without words is refused with the field named', async ({ s }) => {
    for (const q of ['', 'q=', 'q=%20%20', 'room_id=ops']) {
      const r = await search(s, q);
      assert.is(r.status, 400, q);
      assert.is(r.body.code, 'bad_request');
      assert.match(r.body.error, /^query\.q: /);
    }
    const punct = await search(s, 'q=%21%3F');
    assert.is(punct.status, 400);
    assert.match(punct.body.error, /^query\.q: must contain at least one word/);
  });

  t('bad parameters are refused with their field named', async ({ s }) => {
    const cases: [string, RegExp][] = [
      ['q=x&limit=0', /^query\.limit: /],
      ['q=x&limit=abc', /^query\.limit: /],
      ['q=x&after=abc', /^query\.after: /],
      ['q=x&room_id=', /^query\.room_id: /],
      ['q=x&from=a:b:c', /^query\.from: /],
      [`q=${'x'.repeat(600)}`, /^query\.q: must be at most 512/],
    ];
    for (const [q, re] of cases) {
      const r = await search(s, q);
      assert.is(r.status, 400, q);
      assert.match(r.body.error, re);
    }
  });

  t('any query text is answered with results or a 400 naming the field, never a failure', async ({ s }) => {
    for (const q of QUERY_TEXTS) {
      const r = await search(s, new URLSearchParams({ q, limit: '5' }).toString());
      assert.ok(r.status === 200 || r.status === 400, `${JSON.stringify(q)}: ${r.status} ${r.text}`);
      if (r.status === 400) assert.match(r.body.error, /^query\.q: /);
      else assert.ok(Array.isArray(r.body.messages) && r.body.messages.every((m: Json) => typeof m.snippet === 'string'));
    }
  });

  t('an unknown cursor is 422', async ({ s }) => {
    const r = await search(s, 'q=migration&before=msg_nope');
    assert.is(r.status, 422);
    assert.is(r.body.code, 'unprocessable_entity');
  });

  t('search needs a reading scope: write-only and attach-only tokens are refused', async ({ s }) => {
    assert.is((await search(s, 'q=migration', TOKENS.writer.value)).status, 403);
    assert.is((await search(s, 'q=migration', TOKENS.attacher.value)).status, 403);
    assert.is((await s.get('/v1/search?q=migration')).status, 401);
    assert.is((await search(s, 'q=migration', TOKENS.observer.value)).status, 200);
  });

  t.run();
}
