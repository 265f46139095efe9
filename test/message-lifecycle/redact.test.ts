// Redaction (#40 part 3) against a real server on each store backend, the app in the test process:
// only an operator redacts; the message becomes a tombstone with its versions, artifacts and
// reactions gone; search, the SSE replay and webhook deliveries not yet sent show no trace of it;
// other messages stay findable. Then the test the issue names: on sqlite, once /readyz says the
// scrub is done, the server stops and no file under the store's folder holds the secret's bytes; on
// Postgres, no row of any table of the store's schema holds it.

import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SseClient, attachAs } from '../helpers/live.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { freshSchema, sql, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { webhooksPart } from '../../src/store/webhooks/part.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const SECRET_HOOK = `whsec_${Buffer.from('a test signing key of 32 bytes!!').toString('base64')}`;
const BACKENDS = (process.env.SVC_LIFECYCLE_BACKENDS ?? 'memory,sqlite,postgres').split(',');
/** The secret: its words as sent and as the search index folds them. */
const SECRET = 'the vault code is Xylophonic-Quetzal-8842';
const TRACES = ['Xylophonic', 'xylophonic', 'XYLOPHONIC', 'Quetzal', 'quetzal'];
const text = (t: string) => [{ kind: 'text', text: t }];
const has = (s: string) => TRACES.some((t) => s.includes(t));

interface Ctx {
  s: AppServer;
  rx: Receiver;
  pgs?: PgSchema;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : e.isFile() ? [p] : [];
  });
}

for (const backend of BACKENDS) {
  const test = suite<Ctx>(`message redaction (${backend})`);

  test.before(async (ctx) => {
    // A webhook that never takes a delivery: they stay pending, holding their payloads.
    ctx.rx = await startReceiver(() => 503);
    ctx.pgs = backend === 'postgres' ? await freshSchema() : undefined;
    ctx.s = await startApp({
      env: { HOOK_SECRET: SECRET_HOOK, SVC_WEBHOOK_POLL_MS: '100', ...(ctx.pgs ? { SVC_TEST_STORE_URL: ctx.pgs.url } : {}) },
      config: {
        store: ctx.pgs ? pgStore(ctx.pgs) : backend === 'memory' ? { backend } : { backend: 'sqlite' },
        rooms: [{ id: 'general', members: ['alpha', 'beta'] }],
        webhooks: [
          {
            id: 'hold',
            url: ctx.rx.url,
            events: ['*'],
            secret_env: 'HOOK_SECRET',
            allow_private_network: true,
            timeout_ms: 2000,
            retry: { window_ms: 600_000, initial_ms: 60_000, max_ms: 60_000 },
          },
        ],
      },
    });
    await eventually(async () => ((await ctx.s.get('/v1/webhooks', ADMIN)).body.webhooks as Json[]).every((w) => w.cursor !== null));
  });
  test.after(async (ctx) => {
    await ctx.s?.dispose();
    await ctx.rx?.close();
    await ctx.pgs?.drop();
  });

  test('an operator redacts; nothing shows the secret; other messages stay findable; only once', async ({ s, rx }) => {
    const sse = await SseClient.open(s, { token: ADMIN });
    const { c: attached } = await attachAs(s, { network_id: s.networkId, agent: { id: 'alpha' } }, { token: ALPHA });
    const other = await s.post('/v1/messages', roomMessage('general', 'beta', 'an ordinary note about penguins'), ADMIN);
    assert.is(other.status, 200, other.text);
    const sent = await s.post('/v1/messages', roomMessage('general', 'alpha', `${SECRET}\n\n\`\`\`\n${SECRET}\n\`\`\``), ALPHA);
    assert.is(sent.status, 200, sent.text);
    const id = sent.body.message_id as string;
    const edited = await s.req('PATCH', `/v1/messages/${id}`, { token: ALPHA, body: { parts: text(`${SECRET}, again`) } });
    assert.is(edited.status, 200, edited.text);
    const reacted = await s.req('PUT', `/v1/messages/${id}/reactions/${encodeURIComponent('👀')}`, {
      token: ADMIN,
      body: { from: { type: 'agent', id: 'beta' } },
    });
    assert.is(reacted.status, 200, reacted.text);
    // The webhook has tried (and kept) deliveries of the send and the edit.
    const outbox = s.app.ctx.store.part(webhooksPart)!;
    const deliveries = () => outbox.deliveries({ webhook_id: 'hold', order: 'oldest', limit: 100 });
    await eventually(async () => (await deliveries()).filter((d) => has(d.payload)).length >= 2, 10_000, 'deliveries holding the secret');

    // Its sender may delete it, not redact it.
    const refused = await s.post(`/v1/messages/${id}/redact`, {}, ALPHA);
    assert.is(refused.status, 403, refused.text);
    const r = await s.post(`/v1/messages/${id}/redact`, undefined, ADMIN);
    assert.is(r.status, 200, r.text);
    assert.equal([r.body.id, r.body.parts, r.body.mentions], [id, [], []]);
    assert.ok(r.body.redacted_at && r.body.deleted_at, r.text);
    assert.not.ok(has(r.text));
    const again = await s.post(`/v1/messages/${id}/redact`, undefined, ADMIN);
    assert.equal([again.status, again.body.redacted_at], [200, r.body.redacted_at]);

    const history = await s.get('/v1/rooms/general/messages?limit=100', ADMIN);
    assert.not.ok(has(history.text), history.text);
    assert.ok(
      history.body.messages.some((m: Json) => m.id === id && m.redacted_at),
      'the tombstone keeps its place',
    );
    const versions = await s.get(`/v1/messages/${id}/versions`, ADMIN);
    assert.equal([versions.status, versions.body.items], [200, []]);
    const artifacts = await s.get('/v1/rooms/general/artifacts', ADMIN);
    assert.not.ok(has(artifacts.text), artifacts.text);
    for (const q of ['xylophonic', 'quetzal', 'vault']) {
      const found = await s.get(`/v1/search?q=${q}`, ADMIN);
      assert.equal([found.status, found.body.messages], [200, []], found.text);
    }
    const penguins = await s.get('/v1/search?q=penguins', ADMIN);
    assert.equal(
      penguins.body.messages.map((m: Json) => m.id),
      [other.body.message_id],
    );
    await eventually(async () => !(await deliveries()).some((d) => has(d.payload)), 10_000, 'webhook deliveries scrubbed');
    assert.ok(
      (await deliveries()).some((d) => d.payload.includes(id)),
      'the deliveries are kept, showing the tombstone',
    );

    // The live stream saw message.redacted; a replay of everything shows only the tombstone.
    const first = await sse.message('an ordinary note about penguins');
    await sse.nextOf('message.redacted');
    sse.close();
    // An attached member of the room gets it too.
    const ev = await attached.next((x: Json) => x.op === 'EVENT' && x.event?.type === 'message.redacted');
    assert.equal([ev.event.message.id, ev.event.message.parts], [id, []]);
    await attached.close();
    const replay = await SseClient.open(s, { token: ADMIN, lastEventId: first.id! });
    await replay.nextOf('message.redacted');
    assert.ok(replay.all.some((f) => f.event === 'message.created' && f.json?.message?.id === id));
    assert.not.ok(has(replay.all.map((f) => f.data).join('\n')), 'the replay holds the secret');
    replay.close();
    void rx;
  });

  if (backend === 'sqlite')
    test('sqlite: once the scrub is done, no file under the store folder holds the secret', async ({ s }) => {
      await eventually(async () => (await s.get('/readyz')).body.store?.redaction_scrub === 'done', 30_000, 'the scrub');
      const penguins = await s.get('/v1/search?q=penguins', ADMIN);
      assert.is(penguins.body.messages.length, 1, 'the rebuilt index finds the other message');
      await s.stop();
      const files = filesUnder(path.join(s.dir, '.svc'));
      assert.ok(files.length > 0);
      for (const f of files) {
        const bytes = fs.readFileSync(f).toString('latin1');
        const at = TRACES.map((t) => bytes.indexOf(t)).find((i) => i >= 0) ?? -1;
        assert.ok(
          at < 0,
          `${path.relative(s.dir, f)} holds the secret at ${at}: ${JSON.stringify(bytes.slice(Math.max(0, at - 200), at + 100))}`,
        );
      }
      await s.restart();
      const after = await s.get('/v1/search?q=penguins', ADMIN);
      assert.is(after.body.messages.length, 1);
    });

  if (backend === 'postgres')
    test('Postgres: no row of the store holds the secret', async ({ pgs }) => {
      const tables = await sql<{ table_name: string }>(
        pgs!.url,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
        [pgs!.schema],
      );
      assert.ok(tables.length > 5);
      for (const { table_name } of tables) {
        const rows = await sql<{ n: string }>(
          pgs!.url,
          `SELECT count(*) AS n FROM "${pgs!.schema}"."${table_name}" t WHERE t::text ILIKE '%xylophonic%' OR t::text ILIKE '%quetzal%'`,
          [],
        );
        assert.is(Number(rows[0]!.n), 0, `${table_name} holds the secret`);
      }
    });

  test.run();
}
