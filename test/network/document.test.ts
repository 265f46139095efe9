// GET /v1/network: the network document, its viewer-specific console flag and its warnings.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

/** The document does not depend on the store: the memory store starts for less. */
const MEMORY = { backend: 'memory' };
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const t = suite<{ s: AppServer; agent: string }>('the network document');
t.before(async (c) => {
  c.s = await startApp({ config: { store: MEMORY, auth: { public_read: true, agent_registration: 'open' } } });
  c.agent = (await c.s.post('/v1/agents/register', { requested_agent_id: 'gen' })).body.agent_token;
});
t.after(async (c) => c.s?.dispose());

t('has id, name, version, protocols, capabilities, console and warnings', async ({ s }) => {
  const r = await s.get('/v1/network', TOKENS.observer.value);
  assert.is(r.status, 200, r.text);
  // The uid is generated once per store: its shape is checked, then it is compared as is.
  assert.match(r.body.uid, /^nuid_[0-9a-z]{26}$/);
  assert.equal(r.body, {
    uid: r.body.uid,
    id: 'testnet',
    name: 'Test Net',
    version: VERSION,
    protocols: { http: ['service.http.v1'], attach: ['service.attach.v1'], pair: ['service.pair.v1'] },
    capabilities: {
      event_stream: 'sse',
      attachment_protocol: 'websocket',
      human_ingress: true,
      direct_messages: true,
      message_pagination: 'cursor',
      pairings: true,
    },
    console: { can_send_human: false },
    warnings: [],
  });
});

t('console.can_send_human is true only for callers that may send human messages', async ({ s, agent }) => {
  const flag = async (token?: string) => {
    const r = await s.get('/v1/network', token);
    assert.is(r.status, 200, r.text);
    return r.body.console.can_send_human as boolean;
  };
  assert.is(await flag(TOKENS.admin.value), true, 'admin (write, no allowlist)');
  assert.is(await flag(TOKENS.observer.value), false, 'observer');
  assert.is(await flag(TOKENS.attacher.value), false, 'attacher');
  assert.is(await flag(TOKENS.pair.value), false, 'pair');
  assert.is(await flag(TOKENS.alphaOnly.value), false, 'write with an agents allowlist');
  assert.is(await flag(agent), false, 'generated agent token');
  assert.is(await flag(), false, 'anonymous public read');
});

t('a write-only token cannot read the document at all', async ({ s }) => {
  assert.is((await s.get('/v1/network', TOKENS.writer.value)).status, 403);
});

// Two servers with the bind postures under test, started side by side.
const w = suite<{ open: AppServer; bearer: AppServer }>('warnings in the network document');
w.before(async (c) => {
  const [open, bearer] = await Promise.allSettled([
    startApp({
      config: {
        store: MEMORY,
        server: { listen_addr: '0.0.0.0:0' },
        auth: { mode: 'open', public_read: false, agent_registration: 'open', tokens: [] },
      },
    }),
    startApp({ config: { store: MEMORY, server: { listen_addr: '0.0.0.0:0' }, auth: { mode: 'bearer', agent_registration: 'token' } } }),
  ]);
  if (open.status === 'fulfilled') c.open = open.value;
  if (bearer.status === 'fulfilled') c.bearer = bearer.value;
  for (const r of [open, bearer]) if (r.status === 'rejected') throw r.reason;
});
w.after(async (c) => {
  await Promise.all([c.open?.dispose(), c.bearer?.dispose()]);
});

const docOf = async (s: AppServer, token?: string): Promise<Json> => {
  const r = await s.get('/v1/network', token);
  assert.is(r.status, 200, r.text);
  return r.body;
};

w('a non-loopback bind in open mode warns about insecure exposure, in the document and the log', async ({ open }) => {
  const doc = await docOf(open);
  const warn = doc.warnings.find((x: Json) => x.code === 'insecure_bind');
  assert.ok(warn, JSON.stringify(doc.warnings));
  assert.is(warn.severity, 'warning');
  assert.match(warn.message, /0\.0\.0\.0:0/);
  assert.type(warn.action, 'string');
  assert.match(open.output(), /warn .*0\.0\.0\.0:0/);
  assert.is(doc.console.can_send_human, false, 'anonymous');
});

w('public_read: false under open mode is reported as ignored', async ({ open }) => {
  const forced = (await docOf(open)).warnings.find((x: Json) => x.code === 'public_read_forced');
  assert.ok(forced);
  assert.is(forced.severity, 'info');
});

w('a non-loopback bind in bearer mode without open registration has no warning', async ({ bearer }) => {
  assert.equal((await docOf(bearer, TOKENS.observer.value)).warnings, []);
});

t.run();
w.run();
