// One visibility, every surface: each credential kind against each private resource through HTTP,
// the SSE feed, attachments and the pairing proxies. HTTP is the oracle; SSE must match it
// exactly, an attachment (scoped to the agent it attaches as) may only ever see a subset of it,
// and the proxies filter a paired network's private rooms by the same allowlist rule.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';
import { AttachClient, SseClient } from '../helpers/live.js';
import { dmIdFor } from '../../src/network/messages.js';

const PAIR_AB = 'pair-a-to-b-0123456789abcdef0123456789';
const ADMIN_B = 'tok-admin-b-0123456789abcdef';

type Kind = 'anonymous' | 'admin' | 'observer' | 'adminOnly' | 'alphaOnly' | 'agent' | 'pair' | 'writer';
const KINDS: Kind[] = ['anonymous', 'admin', 'observer', 'adminOnly', 'alphaOnly', 'agent', 'pair', 'writer'];

interface Ctx {
  a: AppServer;
  b: AppServer;
  tokens: Record<Kind, string | undefined>;
  dm: string;
}

const t = suite<Ctx>('visibility across HTTP, SSE, attachments and pairing proxies');

t.before(async (ctx) => {
  ctx.b = await startApp({
    config: {
      network: { id: 'netb', name: 'B' },
      auth: {
        tokens: [
          { id: 'admin-b', value: ADMIN_B, scopes: ['observe', 'write', 'admin'] },
          { id: 'from-a', value: PAIR_AB, scopes: ['pair'] },
        ],
      },
      rooms: [
        { id: 'b-public', members: ['carol'] },
        { id: 'b-alpha', members: ['testnet:alpha', 'bob'], visibility: 'private', federation: { pairings: ['from-a'] } },
        { id: 'b-hidden', members: ['bob'], visibility: 'private', federation: { pairings: ['from-a'] } },
      ],
    },
  });
  for (const id of ['bob', 'carol']) assert.is((await ctx.b.post('/v1/agents/register', { requested_agent_id: id }, ADMIN_B)).status, 200);
  ctx.a = await startApp({
    config: {
      auth: { public_read: true, agent_registration: 'open' },
      rooms: [
        { id: 'general', members: ['alpha', 'beta', 'delta', 'epsilon'] },
        { id: 'secret', members: ['alpha'], visibility: 'private' },
      ],
      pairings: [{ id: 'to-b', remote_network_id: 'netb', remote_base_url: ctx.b.url, token: PAIR_AB }],
    },
  });
  const reg = await claimThenJoin(ctx.a, 'gamma', ['general']);
  ctx.tokens = {
    anonymous: undefined,
    admin: TOKENS.admin.value,
    observer: TOKENS.observer.value,
    adminOnly: TOKENS.adminOnly.value,
    alphaOnly: TOKENS.alphaOnly.value,
    agent: reg.body.agent_token,
    pair: TOKENS.pair.value,
    writer: TOKENS.writer.value,
  };
  ctx.dm = dmIdFor(['testnet:alpha', 'testnet:beta']);
});
t.after(async (ctx) => {
  await ctx.a?.dispose();
  await ctx.b?.dispose();
});

const MARK = { general: 'mark-general', secret: 'mark-secret', dm: 'mark-dm', after: 'mark-after' };

async function markers(a: AppServer, suffix: string): Promise<void> {
  const send = async (body: Json, token: string) => {
    const r = await a.post('/v1/messages', body, token);
    assert.is(r.status, 200, r.text);
  };
  await send(
    {
      target: { kind: 'room', room_id: 'secret' },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text: `${MARK.secret}${suffix}` }],
    },
    TOKENS.alphaOnly.value,
  );
  await send(
    {
      target: { kind: 'dm', participant_ids: ['beta'] },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text: `${MARK.dm}${suffix}` }],
    },
    TOKENS.alphaOnly.value,
  );
  // Posted last: a stream that shows it has shown everything before it that it may see.
  await send(
    {
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'agent', id: 'beta' },
      parts: [{ kind: 'text', text: `${MARK.after}${suffix}` }],
    },
    TOKENS.admin.value,
  );
}

/** What HTTP lets a credential read of each private resource. */
async function httpView(a: AppServer, tok: string | undefined, dm: string): Promise<{ secret: boolean; dm: boolean; general: boolean }> {
  const ok = async (p: string) => (await a.get(p, tok)).status === 200;
  return {
    secret: await ok('/v1/rooms/secret/messages'),
    dm: await ok(`/v1/dms/${dm}/messages`),
    general: await ok('/v1/rooms/general/messages'),
  };
}

t('HTTP answers the expected view for each credential kind', async ({ a, tokens, dm }) => {
  await markers(a, '-http');
  const expected: Record<Kind, { secret: boolean; dm: boolean; general: boolean }> = {
    anonymous: { secret: false, dm: false, general: true },
    admin: { secret: true, dm: true, general: true },
    observer: { secret: true, dm: true, general: true },
    adminOnly: { secret: true, dm: true, general: true },
    alphaOnly: { secret: true, dm: true, general: true },
    agent: { secret: false, dm: false, general: true },
    pair: { secret: false, dm: false, general: false },
    writer: { secret: false, dm: false, general: false },
  };
  for (const k of KINDS) assert.equal(await httpView(a, tokens[k], dm), expected[k], k);
});

t('the SSE feed shows each credential exactly what HTTP shows it', async ({ a, tokens, dm }) => {
  const streams = new Map<Kind, SseClient>();
  for (const k of KINDS) streams.set(k, await SseClient.open(a, tokens[k] ? { token: tokens[k] } : {}));
  try {
    await markers(a, '-sse');
    for (const k of KINDS) {
      const http = await httpView(a, tokens[k], dm);
      const c = streams.get(k)!;
      if (c.status !== 200) {
        assert.equal(http, { secret: false, dm: false, general: false }, `${k}: SSE refused (${c.status}) but HTTP reads something`);
        continue;
      }
      await c.message(`${MARK.after}-sse`);
      const texts = c.all.filter((f) => f.event === 'message.created').map((f) => f.json.message.parts[0].text as string);
      assert.is(texts.includes(`${MARK.secret}-sse`), http.secret, `${k}: private room over SSE`);
      assert.is(texts.includes(`${MARK.dm}-sse`), http.dm, `${k}: DM over SSE`);
      // Other private events (the DM's creation, membership) follow the same rule.
      const dmCreated = c.all.some((f) => f.event === 'dm.created');
      if (!http.dm) assert.not.ok(dmCreated, `${k}: dm.created over SSE`);
    }
  } finally {
    for (const c of streams.values()) c.close();
  }
});

t('an attachment sees no more than its credential reads over HTTP, and exactly what its agent may', async ({ a, tokens, dm }) => {
  const plan: { kind: Kind; agent: string; member: { secret: boolean; dm: boolean } }[] = [
    { kind: 'alphaOnly', agent: 'alpha', member: { secret: true, dm: true } },
    { kind: 'agent', agent: 'gamma', member: { secret: false, dm: false } },
    { kind: 'admin', agent: 'delta', member: { secret: false, dm: false } },
    { kind: 'anonymous', agent: 'zeta', member: { secret: false, dm: false } },
  ];
  const clients: { p: (typeof plan)[number]; c: AttachClient }[] = [];
  try {
    for (const p of plan) {
      const tok = tokens[p.kind];
      const c = await AttachClient.open(a, tok ? { token: tok } : {});
      await c.identify({ network_id: 'testnet', agent: { id: p.agent } });
      clients.push({ p, c });
    }
    // zeta claimed its id anonymously just now; only then may it join general (a named id is reserved).
    const joined = await a.req('PATCH', '/v1/rooms/general/members', { token: tokens.admin, body: { add: ['zeta'] } });
    assert.is(joined.status, 200, joined.text);
    await markers(a, '-attach');
    for (const { p, c } of clients) {
      await c.message(`${MARK.after}-attach`);
      const texts = c.events.filter((f) => f.event.type === 'message.created').map((f) => f.event.message.parts[0].text as string);
      const got = { secret: texts.includes(`${MARK.secret}-attach`), dm: texts.includes(`${MARK.dm}-attach`) };
      assert.equal(got, p.member, `${p.kind} as ${p.agent}`);
      const http = await httpView(a, tokens[p.kind], dm);
      if (got.secret) assert.ok(http.secret, `${p.kind}: attach shows the private room HTTP hides`);
      if (got.dm) assert.ok(http.dm, `${p.kind}: attach shows the DM HTTP hides`);
    }
  } finally {
    for (const { c } of clients) await c.close();
  }
});

t('the pairing proxies show a paired network private rooms by the same allowlist rule', async ({ a, tokens }) => {
  const expected: Record<Kind, number | string[]> = {
    anonymous: 401,
    admin: ['b-public', 'b-alpha', 'b-hidden'],
    observer: ['b-public', 'b-alpha', 'b-hidden'],
    adminOnly: ['b-public', 'b-alpha', 'b-hidden'],
    alphaOnly: ['b-public', 'b-alpha'],
    agent: 403,
    pair: 403,
    writer: 403,
  };
  for (const k of KINDS) {
    const r = await a.get('/v1/pairings/to-b/rooms', tokens[k]);
    const want = expected[k];
    if (typeof want === 'number') {
      assert.is(r.status, want, `${k}: ${r.text}`);
      assert.type(r.body.code, 'string');
    } else {
      assert.is(r.status, 200, `${k}: ${r.text}`);
      assert.equal(r.body.rooms.map((x: Json) => x.id).sort(), [...want].sort(), k);
    }
  }
  const agents = async (k: Kind) => (await a.get('/v1/pairings/to-b/agents', tokens[k])).body.agents.map((x: Json) => x.id).sort();
  assert.equal(await agents('admin'), ['bob', 'carol']);
  // bob is a member of b-alpha, which lists alpha explicitly: visible; nothing else private leaks.
  assert.equal(await agents('alphaOnly'), ['bob', 'carol']);
  const hidden = await a.get('/v1/pairings/to-b/rooms', tokens.alphaOnly);
  assert.not.ok(JSON.stringify(hidden.body).includes('b-hidden'));
});

t.run();
