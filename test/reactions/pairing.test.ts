// Reactions over a pairing: two directly paired servers (in the test process) sharing room `general`. A reaction on
// either side reaches the other (both store the message under one id), removals too, nothing
// echoes back, and the receiving side's membership rules hold for relayed reactions as for
// relayed messages. Direct and through `svc relay`, on sqlite and on Postgres.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendTo, editConfigFile } from '../../src/config/edit.js';
import { dmIdFor } from '../../src/network/messages.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';
import { createRelayServer, RELAY_PATH } from '../../src/relay/server.js';

const PAIR_TOKEN = 'reaction-pair-secret-8d2f6b1c47';
const WAIT = 20_000;
const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const tokens = () => [
  ...Object.values(TOKENS).map((t) => ({ ...t, scopes: [...t.scopes], ...('agents' in t ? { agents: [...t.agents] } : {}) })),
  { id: 'ab', value: PAIR_TOKEN, scopes: ['pair'] },
];
/** A relay (what `svc relay --listen 127.0.0.1:0` runs) in the test process. */
async function startRelay(): Promise<{ url: string; stop: () => Promise<void> }> {
  const relay = createRelayServer();
  const addr = await relay.listen('127.0.0.1:0');
  return { url: `ws://127.0.0.1:${addr.port}${RELAY_PATH}`, stop: () => relay.close() };
}

const path = (id: string, emoji: string) => `/v1/messages/${encodeURIComponent(id)}/reactions/${encodeURIComponent(emoji)}`;

interface Ctx {
  a: AppServer;
  b: AppServer;
  pg?: PgSchema;
  env: Record<string, string>;
}

/** A (alpha-net) and B (beta-net) share `general`, each granting the other's agent membership; directly, or through a relay. */
async function pair(ctx: Ctx, store?: (name: string) => Record<string, Json>, relayUrl?: string): Promise<void> {
  const storeOf = (name: string) => (store ? { store: store(name) } : {});
  if (relayUrl) {
    const relay = { url: relayUrl, room: 'reactions-relay-room-0123456789abcdef' };
    const side = (id: string, remote: string, members: string[]) =>
      startApp({
        env: ctx.env,
        config: {
          network: { id, name: id },
          server: { pairing_check_interval_ms: 300 },
          auth: { tokens: tokens() },
          rooms: [{ id: 'general', members, federation: { pairings: ['ab'] } }],
          pairings: [{ id: 'ab', remote_network_id: remote, token: PAIR_TOKEN, bound: true, relay }],
        },
      });
    ctx.a = await side('alpha-net', 'beta-net', ['alpha', 'beta-net:beta']);
    ctx.b = await side('beta-net', 'alpha-net', ['beta', 'gamma', 'alpha-net:alpha']);
    await eventually(
      async () => ((await ctx.a.get('/v1/pairings', ADMIN)).body.pairings as Json[]).find((p) => p.id === 'ab')?.status === 'connected',
      WAIT,
      'A connected to B through the relay',
    );
    return;
  }
  ctx.a = await startApp({
    env: ctx.env,
    config: {
      network: { id: 'alpha-net', name: 'Alpha' },
      server: { pairing_check_interval_ms: 300 },
      auth: { tokens: tokens() },
      rooms: [{ id: 'general', members: ['alpha', 'beta-net:beta'] }],
      ...storeOf('a'),
    },
  });
  ctx.b = await startApp({
    env: ctx.env,
    config: {
      network: { id: 'beta-net', name: 'Beta' },
      server: { pairing_check_interval_ms: 300 },
      auth: { tokens: tokens() },
      rooms: [{ id: 'general', members: ['beta', 'gamma', 'alpha-net:alpha'], federation: { pairings: ['ab'] } }],
      pairings: [{ id: 'ab', remote_network_id: 'alpha-net', remote_base_url: ctx.a.url, token: PAIR_TOKEN, bound: true }],
      ...storeOf('b'),
    },
  });
  editConfigFile(ctx.a.configFile, (doc) => {
    appendTo(doc, ['pairings'], { id: 'ab', remote_network_id: 'beta-net', remote_base_url: ctx.b.url, token: PAIR_TOKEN, bound: true });
    doc.setIn(['rooms', 0, 'federation'], doc.createNode({ pairings: ['ab'] }));
  });
  await ctx.a.reload();
  await eventually(
    async () => ((await ctx.a.get('/v1/pairings', ADMIN)).body.pairings as Json[]).find((p) => p.id === 'ab')?.status === 'connected',
    WAIT,
    'A connected to B',
  );
}

/** The reactions of message `id` in `general` at `s` (undefined while the message is not there). */
async function reactionsAt(s: AppServer, id: string): Promise<Json[] | undefined> {
  const r = await s.get('/v1/rooms/general/messages?limit=20', ADMIN);
  const m = (r.body?.messages as Json[] | undefined)?.find((x) => x.id === id);
  return m ? (m.reactions ?? []) : undefined;
}

const same = (want: Json[]) => (got: Json[] | undefined) => got !== undefined && JSON.stringify(got) === JSON.stringify(want);

async function reactionsRelayBothWays(ctx: Ctx): Promise<void> {
  const sent = await ctx.a.post('/v1/messages', roomMessage('general', 'alpha', 'react to me'), ALPHA);
  assert.is(sent.status, 200, sent.text);
  const id = sent.body.message_id as string;
  await eventually(async () => (await reactionsAt(ctx.b, id)) !== undefined, WAIT, 'the message at B');

  // B -> A.
  const beta = await ctx.b.req('PUT', path(id, '👍'), { token: ADMIN, body: { from: { type: 'agent', id: 'beta' } } });
  assert.is(beta.status, 200, beta.text);
  const afterBeta = [{ emoji: '👍', count: 1, by: ['beta-net:beta'] }];
  await eventually(async () => same(afterBeta)(await reactionsAt(ctx.a, id)), WAIT, "beta's reaction at A");

  // A -> B, and nothing echoes: each side counts each reaction once.
  const alpha = await ctx.a.req('PUT', path(id, '👍'), { token: ALPHA, body: { from: { type: 'agent', id: 'alpha' } } });
  assert.is(alpha.status, 200, alpha.text);
  const both = [{ emoji: '👍', count: 2, by: ['beta-net:beta', 'alpha-net:alpha'] }];
  await eventually(async () => same(both)(await reactionsAt(ctx.b, id)), WAIT, "alpha's reaction at B");
  assert.equal(await reactionsAt(ctx.a, id), both);

  // Removals travel too.
  assert.is((await ctx.b.req('DELETE', path(id, '👍'), { token: ADMIN, body: { from: { type: 'agent', id: 'beta' } } })).status, 200);
  const onlyAlpha = [{ emoji: '👍', count: 1, by: ['alpha-net:alpha'] }];
  await eventually(async () => same(onlyAlpha)(await reactionsAt(ctx.a, id)), WAIT, "beta's removal at A");

  // A's membership rules hold for relayed reactions: gamma is a member at B, not at A. Its reaction
  // is refused there; beta's next one still arrives, after it (the outbox keeps event order).
  assert.is((await ctx.b.req('PUT', path(id, '😮'), { token: ADMIN, body: { from: { type: 'agent', id: 'gamma' } } })).status, 200);
  assert.is((await ctx.b.req('PUT', path(id, '🚀'), { token: ADMIN, body: { from: { type: 'agent', id: 'beta' } } })).status, 200);
  const final = [
    { emoji: '👍', count: 1, by: ['alpha-net:alpha'] },
    { emoji: '🚀', count: 1, by: ['beta-net:beta'] },
  ];
  await eventually(async () => same(final)(await reactionsAt(ctx.a, id)), WAIT, "beta's rocket at A, without gamma's reaction");
  assert.ok((await reactionsAt(ctx.b, id))!.some((r: Json) => r.emoji === '😮'));

  // A reaction relayed from a network's own pairing credential may not speak for a local agent there.
  const forged = await ctx.a.req('PUT', path(id, '🎉'), { token: PAIR_TOKEN, body: { from: { type: 'agent', id: 'alpha' } } });
  assert.is(forged.status, 403, forged.text);

  // A DM between the networks: beta's reaction at B reaches alpha's copy at A.
  const dm = await ctx.a.post(
    '/v1/messages',
    {
      target: { kind: 'dm', participant_ids: ['beta-net:beta'] },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text: 'psst' }],
    },
    ALPHA,
  );
  assert.is(dm.status, 200, dm.text);
  const dmId = dmIdFor(['alpha-net:alpha', 'beta-net:beta']);
  const dmReactions = async (s: AppServer) => {
    const r = await s.get(`/v1/dms/${dmId}/messages`, ADMIN);
    const m = (r.body?.messages as Json[] | undefined)?.find((x) => x.id === dm.body.message_id);
    return m ? (m.reactions ?? []) : undefined;
  };
  await eventually(async () => (await dmReactions(ctx.b)) !== undefined, WAIT, 'the DM at B');
  const r = await ctx.b.req('PUT', path(dm.body.message_id, '🤝'), { token: ADMIN, body: { from: { type: 'agent', id: 'beta' } } });
  assert.is(r.status, 200, r.text);
  await eventually(
    async () => same([{ emoji: '🤝', count: 1, by: ['beta-net:beta'] }])(await dmReactions(ctx.a)),
    WAIT,
    "beta's DM reaction at A",
  );
}

const sqlite = suite<Ctx>('reactions over a pairing on sqlite');
sqlite.before.each((ctx) => {
  ctx.env = {};
});
sqlite.after.each(async (ctx) => {
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
});
sqlite('reactions and their removal relay both ways under the receiving side’s membership rules', async (ctx) => {
  await pair(ctx);
  await reactionsRelayBothWays(ctx);
});
sqlite.run();

const relayed = suite<Ctx & { relay: { url: string; stop: () => Promise<void> } }>('reactions over a pairing through svc relay');
relayed.before.each(async (ctx) => {
  ctx.env = {};
  ctx.relay = await startRelay();
});
relayed.after.each(async (ctx) => {
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
  await ctx.relay?.stop();
});
relayed('reactions relay both ways through a relay, where the peer answers them through its own HTTP rules', async (ctx) => {
  await pair(ctx, undefined, ctx.relay.url);
  await reactionsRelayBothWays(ctx);
});
relayed.run();

const postgres = suite<Ctx>('reactions over a pairing on postgres');
postgres.before.each(async (ctx) => {
  ctx.pg = await freshSchema();
  ctx.env = { SVC_TEST_STORE_URL: ctx.pg.url };
  // editConfigFile validates the edited config against this process's environment.
  process.env.SVC_TEST_STORE_URL = ctx.pg.url;
});
postgres.after.each(async (ctx) => {
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
  await ctx.pg?.drop();
});
postgres('reactions and their removal relay both ways under the receiving side’s membership rules', async (ctx) => {
  const other = await freshSchema();
  try {
    await pair(ctx, (name) => pgStore(name === 'a' ? ctx.pg! : other));
    await reactionsRelayBothWays(ctx);
  } finally {
    await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
    await other.drop();
  }
});
postgres.run();
