// Webhooks and inbound hooks declared by `svc apply` (#28): kept in the store, merged with
// svc.yaml's (svc.yaml wins), picked up without a restart, secrets never answered back. The apps
// run in the test process; the CLI runs as processes against them.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { stringify } from 'yaml';
import { cli } from '../helpers/cli.js';
import { freshSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { eventually, roomMessage, TOKENS, type HttpServer, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { startReceiver, type Receiver } from './receiver.js';

const admin = TOKENS.admin.value;
// The Standard Webhooks form for the outbound one, raw bytes for the inbound one.
const OUT_SECRET = `whsec_${Buffer.from('applied-outbound-secret-0123456789').toString('base64')}`;
const IN_SECRET = 'applied-inbound-secret-0123456789';
const SECRETS = /applied-outbound-secret|YXBwbGllZC1vdXRib3VuZC1zZWNyZXQ|applied-inbound-secret/;
const ENV = { OUT_SECRET, IN_SECRET };
// Read once, when the first app of this file loads the webhook modules (the first test's): the
// webhook worker's poll, and how often an instance looks for hooks applied through another.
const KNOBS = { SVC_WEBHOOK_POLL_MS: '100', SVC_APPLIED_HOOKS_POLL_MS: '200' };

/** A whole config declaring a room, a webhook to `url` and an inbound hook. */
function declarations(url: string, extra: Record<string, Json> = {}): Record<string, Json> {
  return {
    network: { id: 'testnet' },
    rooms: [{ id: 'ops', members: ['ci', 'bot'] }],
    webhooks: [{ id: 'out', url, secret_env: 'OUT_SECRET', allow_private_network: true, retry: { initial_ms: 100, max_ms: 300 } }],
    inbound_hooks: [{ id: 'ci', room: 'ops', sender: 'ci', sender_name: 'CI', secret_env: 'IN_SECRET' }],
    ...extra,
  };
}

const hookList = async (s: HttpServer) => (await s.get('/v1/webhooks', admin)).body;

/** Posts a message and waits until the receiver has it; returns the verified payload. */
async function deliveredSigned(s: HttpServer, rx: Receiver, text: string): Promise<Json> {
  const sent = await s.post('/v1/messages', roomMessage('ops', 'bot', text), admin);
  assert.is(sent.status, 200, sent.text);
  const got = await eventually(() => rx.received.find((r) => r.body.includes(text)), 10_000, `delivery of ${text}`);
  // A verifier we did not write: the standardwebhooks package.
  const payload = new Webhook(OUT_SECRET).verify(got!.body, got!.headers as Record<string, string>) as Json;
  assert.is(payload.type, 'message.created');
  return payload;
}

const t = suite<{ dir: string; rx: Receiver }>('svc apply carries webhooks and inbound hooks');
t.before.each(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-applied-hooks-'));
  ctx.rx = await startReceiver();
});
t.after.each(async (ctx) => {
  await ctx.rx.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

t('applied to a running server, an event is delivered signed and an inbound POST posts; both survive a restart', async ({ dir, rx }) => {
  const s = await startApp({ env: KNOBS });
  try {
    const file = path.join(dir, 'hooks.yaml');
    writeFileSync(file, stringify(declarations(rx.url)));
    const unset = await cli(['apply', file, '--url', s.url, '--token', admin], { cwd: dir, env: { IN_SECRET } });
    assert.is(unset.code, 1);
    assert.match(unset.stderr, /webhooks\[0\]\.secret_env: environment variable OUT_SECRET is not set/);
    const plan = await cli(['apply', file, '--url', s.url, '--token', admin, '--dry-run', '--json'], { cwd: dir, env: ENV });
    assert.is(plan.code, 0, plan.stderr);
    assert.equal(
      JSON.parse(plan.stdout)
        .changes.filter((c: Json) => c.kind !== 'room')
        .map((c: Json) => [c.kind, c.id, c.action]),
      [
        ['webhook', 'out', 'created'],
        ['inbound_hook', 'ci', 'created'],
      ],
    );
    assert.not.match(plan.stdout, SECRETS);
    assert.equal(await hookList(s), { webhooks: [], inbound_hooks: [] }, 'a dry run applies nothing');

    const r = await cli(['apply', file, '--url', s.url, '--token', admin], { cwd: dir, env: ENV });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^created\s+webhook\s+out$/m);
    assert.match(r.stdout, /^created\s+inbound_hook\s+ci$/m);
    assert.not.match(r.stdout + r.stderr, SECRETS);

    const list = await hookList(s);
    assert.equal(
      list.webhooks.map((w: Json) => [w.id, w.source]),
      [['out', 'apply']],
    );
    assert.equal(
      list.inbound_hooks.map((h: Json) => [h.id, h.source]),
      [['ci', 'apply']],
    );
    const shown = await cli(['webhooks', 'list', '--url', s.url, '--token', admin], { cwd: dir });
    assert.is(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^out\s.*\sapply$/m);
    assert.match(shown.stdout, /^ci\s.*\sapply$/m);
    assert.not.match(JSON.stringify(list) + shown.stdout, SECRETS);

    // The worker starts at the end of the log once it runs: wait for its cursor.
    await eventually(async () => (await hookList(s)).webhooks[0].cursor !== null, 10_000, 'the applied webhook started');
    await deliveredSigned(s, rx, 'first after apply');
    const posted = await s.req('POST', '/v1/hooks/ci', { token: IN_SECRET, body: { text: 'build 1 passed' } });
    assert.is(posted.status, 200, posted.text);
    const wrong = await s.req('POST', '/v1/hooks/ci', { token: 'not-the-secret', body: { text: 'x' } });
    assert.is(wrong.status, 401);

    await s.restart();
    assert.equal((await hookList(s)).webhooks[0].source, 'apply');
    await deliveredSigned(s, rx, 'after the restart');
    const again = await s.req('POST', '/v1/hooks/ci', { token: IN_SECRET, body: { text: 'build 2 passed' } });
    assert.is(again.status, 200, again.text);
    const hist = await s.get('/v1/rooms/ops/messages', admin);
    const texts = hist.body.messages.filter((m: Json) => m.from.id === 'ci').map((m: Json) => m.parts[0].text);
    assert.equal(texts.sort(), ['build 1 passed', 'build 2 passed']);
    assert.not.match(s.output(), SECRETS);

    // Applied again unchanged: nothing changes; with another URL: updated, and the worker follows it.
    const same = await cli(['apply', file, '--url', s.url, '--token', admin], { cwd: dir, env: ENV });
    assert.match(same.stdout, /^unchanged\s+webhook\s+out$/m);
    const rx2 = await startReceiver();
    try {
      writeFileSync(file, stringify(declarations(rx2.url)));
      const moved = await cli(['apply', file, '--url', s.url, '--token', admin, '--json'], { cwd: dir, env: ENV });
      assert.is(moved.code, 0, moved.stderr);
      assert.not.match(moved.stdout, SECRETS);
      assert.ok(
        JSON.parse(moved.stdout).changes.some((c: Json) => c.kind === 'webhook' && c.action === 'updated'),
        moved.stdout,
      );
      await eventually(async () => (await hookList(s)).webhooks[0].url === rx2.url, 5000, 'the new url');
      await deliveredSigned(s, rx2, 'to the new url');
    } finally {
      await rx2.close();
    }
  } finally {
    await s.dispose();
  }
});

t('a bad declaration is refused 400 with its field path, and nothing of the apply is written', async ({ rx }) => {
  const s = await startApp();
  try {
    const hook = { id: 'out', url: rx.url, secret: OUT_SECRET, allow_private_network: true };
    const cases: [Json, RegExp][] = [
      [{ webhooks: [{ ...hook, allow_private_network: false }] }, /body\.webhooks\[0\]\.url: .*allow_private_network/],
      [{ webhooks: [hook, { ...hook, url: 'https://example.com/x' }] }, /body\.webhooks\[1\]\.id: duplicate id "out"/],
      [{ webhooks: [{ ...hook, secret: 'whsec_!!' }] }, /body\.webhooks\[0\]\.secret: starts with whsec_/],
      [{ webhooks: [{ ...hook, retry: { initial_ms: 500, max_ms: 100 } }] }, /body\.webhooks\[0\]\.retry\.max_ms/],
      [{ webhooks: [{ ...hook, events: ['Not An Event'] }] }, /body\.webhooks\[0\]\.events\[0\]/],
      [{ inbound_hooks: [{ id: 'ci', room: 'ops', sender: 'ci' }] }, /body\.inbound_hooks\[0\].*secret/],
    ];
    for (const [extra, why] of cases) {
      const r = await s.post('/v1/apply', { network_id: 'testnet', rooms: [{ id: 'never' }], ...extra }, admin);
      assert.is(r.status, 400, `${JSON.stringify(extra)}: ${r.text}`);
      assert.match(r.body.error, why);
      assert.not.match(r.text, SECRETS);
    }
    assert.is((await s.get('/v1/rooms/never', admin)).status, 404, 'the rooms of a refused apply are not created');
    assert.equal(await hookList(s), { webhooks: [], inbound_hooks: [] });
  } finally {
    await s.dispose();
  }
});

t('svc.yaml wins an id declared in both: the same declaration is unchanged, another is refused 409', async ({ rx }) => {
  const own = declarations(rx.url);
  const s = await startApp({ config: { webhooks: own.webhooks, inbound_hooks: own.inbound_hooks }, env: ENV });
  try {
    const w = {
      id: 'out',
      url: rx.url,
      secret: OUT_SECRET,
      secret_env: 'ELSEWHERE',
      allow_private_network: true,
      retry: { initial_ms: 100, max_ms: 300 },
    };
    const same = await s.post('/v1/apply', { network_id: 'testnet', webhooks: [w] }, admin);
    assert.is(same.status, 200, same.text);
    assert.equal(same.body.changes, [{ kind: 'webhook', id: 'out', action: 'unchanged' }]);
    const other = await s.post('/v1/apply', { network_id: 'testnet', webhooks: [{ ...w, secret: 'another-secret-value' }] }, admin);
    assert.is(other.status, 409, other.text);
    assert.match(other.body.error, /body\.webhooks\[0\]\.id: webhook out is declared differently in the server's svc\.yaml, which wins/);
    assert.not.match(other.text, /another-secret-value/);
    const list = await hookList(s);
    assert.equal(list.webhooks[0].source, 'config');
    assert.equal(list.inbound_hooks[0].source, 'config');
  } finally {
    await s.dispose();
  }
});

t.run();

const pg = suite('applied hooks on Postgres');

pg('a hook applied through one instance is served by another on the same schema without a restart', async () => {
  const schema = await freshSchema();
  const servers: AppServer[] = [];
  try {
    servers.push(await startPgApp(schema, {}, { env: KNOBS }));
    servers.push(await startPgApp(schema, {}, { env: KNOBS }));
    const [a, b] = servers as [AppServer, AppServer];
    const r = await a.post(
      '/v1/apply',
      {
        network_id: 'testnet',
        rooms: [{ id: 'ops', members: ['ci'] }],
        inbound_hooks: [{ id: 'ci', room: 'ops', sender: 'ci', secret: IN_SECRET }],
      },
      admin,
    );
    assert.is(r.status, 200, r.text);
    const posted = await eventually(
      async () => {
        const x = await b.req('POST', '/v1/hooks/ci', { token: IN_SECRET, body: { text: 'via b' } });
        return x.status === 200 ? x : undefined;
      },
      5000,
      'the other instance serving the applied hook',
    );
    assert.ok(posted!.body.message_id);
    assert.equal((await hookList(b)).inbound_hooks[0].source, 'apply');
  } finally {
    for (const s of servers) await s.dispose();
    await schema.drop();
  }
});

pg.run();
