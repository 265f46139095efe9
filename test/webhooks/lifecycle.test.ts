// Outbound webhooks of edits and deletes (#40 parts 1 and 2): a webhook subscribed to
// message.edited and message.deleted, and one with "*", each receive both events, signed, with the
// message (and an edit's mentions_added); a webhook with the default events (message.created)
// receives neither. The app runs in the test process, on sqlite and on Postgres.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { eventually, roomMessage, TOKENS, type HttpServer, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import { startReceiver, type Receiver } from './receiver.js';

const SECRET = `whsec_${Buffer.from('a test signing key of 32 bytes!!').toString('base64')}`;
const ENV = { HOOK_SECRET: SECRET, SVC_WEBHOOK_POLL_MS: '100' };
const ADMIN = TOKENS.admin.value;
const WAIT = 10_000;
const text = (t: string) => [{ kind: 'text', text: t }];

interface Ctx {
  s: AppServer;
  rx: Record<'changes' | 'all' | 'created', Receiver>;
  pgs?: PgSchema;
}

const hook = (id: string, url: string, events?: string[]) => ({
  id,
  url,
  ...(events ? { events } : {}),
  secret_env: 'HOOK_SECRET',
  allow_private_network: true,
  timeout_ms: 2000,
  retry: { window_ms: 60_000, initial_ms: 100, max_ms: 400 },
});

/** The verified payloads a receiver took, in order. */
function payloads(rx: Receiver): Json[] {
  const wh = new Webhook(SECRET);
  return rx.received.filter((r) => r.status === 200).map((r) => wh.verify(r.body, r.headers as Record<string, string>));
}

/** Waits until every webhook's worker has set its cursor (a new webhook starts at the end of the log). */
async function ready(s: HttpServer): Promise<void> {
  await eventually(
    async () => ((await s.get('/v1/webhooks', ADMIN)).body.webhooks as Json[]).every((w) => w.cursor !== null),
    WAIT,
    'webhook cursors',
  );
}

for (const backend of ['sqlite', 'postgres'] as const) {
  const test = suite<Ctx>(`webhooks of message edits and deletes (${backend})`);

  test.before(async (ctx) => {
    ctx.rx = { changes: await startReceiver(), all: await startReceiver(), created: await startReceiver() };
    ctx.pgs = backend === 'postgres' ? await freshSchema() : undefined;
    ctx.s = await startApp({
      env: { ...ENV, ...(ctx.pgs ? { SVC_TEST_STORE_URL: ctx.pgs.url } : {}) },
      config: {
        ...(ctx.pgs ? { store: pgStore(ctx.pgs) } : {}),
        rooms: [{ id: 'ops', members: ['bot', 'lead'] }],
        webhooks: [
          hook('changes', ctx.rx.changes.url, ['message.edited', 'message.deleted']),
          hook('all', ctx.rx.all.url, ['*']),
          hook('created', ctx.rx.created.url),
        ],
      },
    });
    await ready(ctx.s);
  });
  test.after(async (ctx) => {
    await ctx.s?.dispose();
    await Promise.all(Object.values(ctx.rx ?? {}).map((r) => r.close()));
    await ctx.pgs?.drop();
  });

  test('message.edited and message.deleted reach the webhooks that list them or "*", not the default one', async ({ s, rx }) => {
    const sent = await s.post('/v1/messages', roomMessage('ops', 'bot', 'deploy is red'), ADMIN);
    assert.is(sent.status, 200, sent.text);
    const id = sent.body.message_id as string;
    const ofMessage = (ps: Json[]) => ps.filter((p) => p.data.message?.id === id);
    const edited = await s.req('PATCH', `/v1/messages/${id}`, { token: ADMIN, body: { parts: text('deploy is green, @lead') } });
    assert.is(edited.status, 200, edited.text);
    // Taken before the delete: a delivery holds the message as it is when its worker reads the
    // event, and a deleted message's content is never sent out again.
    await eventually(() => payloads(rx.changes).length >= 1, WAIT, 'the edit at the changes webhook');
    await eventually(() => ofMessage(payloads(rx.all)).length >= 2, WAIT, 'the edit at the "*" webhook');
    const deleted = await s.req('DELETE', `/v1/messages/${id}`, { token: ADMIN });
    assert.is(deleted.status, 200, deleted.text);
    // A last message: the default webhook's worker reads the log in order, so once it has this one it
    // has passed the edit and the delete.
    const last = await s.post('/v1/messages', roomMessage('ops', 'bot', 'done'), ADMIN);
    assert.is(last.status, 200, last.text);

    await eventually(() => payloads(rx.changes).length >= 2, WAIT, 'the delete at the changes webhook');
    const changes = payloads(rx.changes);
    assert.equal(
      changes.map((p) => [p.type, p.data.type, p.data.message.id]),
      [
        ['message.edited', 'message.edited', id],
        ['message.deleted', 'message.deleted', id],
      ],
    );
    const [edit, del] = changes;
    assert.equal(
      [edit.data.message.version, edit.data.message.parts, typeof edit.data.message.edited_at],
      [2, text('deploy is green, @lead'), 'string'],
    );
    assert.equal(edit.data.mentions_added, ['svc://testnet/agents/lead']);
    assert.equal([del.data.message.parts, typeof del.data.message.deleted_at], [[], 'string']);

    await eventually(() => ofMessage(payloads(rx.all)).length >= 3, WAIT, 'the delete at the "*" webhook');
    const all = ofMessage(payloads(rx.all));
    assert.equal(
      all.map((p) => p.type),
      ['message.created', 'message.edited', 'message.deleted'],
    );
    assert.equal(all[1].data, edit.data);

    await eventually(
      () => payloads(rx.created).some((p) => p.data.message?.id === last.body.message_id),
      WAIT,
      'the last message at the default webhook',
    );
    assert.equal(
      payloads(rx.created).map((p) => [p.type, p.data.message.id]),
      [
        ['message.created', id],
        ['message.created', last.body.message_id],
      ],
    );
  });

  test.run();
}
