// Edits and deletes over a pairing (#40 parts 1 and 2): two servers (in the test process) sharing room `general`,
// paired directly and through `svc relay`. The sender's edit on its home network reaches the peer's
// copy (new parts, version, edited_at, message.edited on its SSE), an agent of the peer newly
// mentioned by the edit is woken there once, the delete leaves a tombstone there too (message.deleted),
// nobody on the peer changes the relayed copy (only its home network does), a repeated relayed edit
// changes nothing, and the peer's own messages relay their edits and deletes back; in a room and a DM.
// Redaction (#40 part 3): an operator's redaction at home scrubs the peer's copy too, and the peer's
// operator may redact its own copy without anything going back home.
// On sqlite directly and through the relay, and on Postgres (two schemas) directly.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendTo, editConfigFile } from '../../src/config/edit.js';
import { dmIdFor } from '../../src/network/messages.js';
import { type AttachClient, attachAs, SseClient } from '../helpers/live.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';
import { createRelayServer, RELAY_PATH } from '../../src/relay/server.js';

const PAIR_TOKEN = 'lifecycle-pair-secret-5e1c9a7b20';
const BETA = 'tok-betaonly-lifecycle-0123456789';
const WAIT = 20_000;
const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const BETA_FQID = 'svc://beta-net/agents/beta';
const tokens = () => [
  ...Object.values(TOKENS).map((t) => ({ ...t, scopes: [...t.scopes], ...('agents' in t ? { agents: [...t.agents] } : {}) })),
  { id: 'beta-only', value: BETA, scopes: ['observe', 'write', 'attach'], agents: ['beta'] },
  { id: 'ab', value: PAIR_TOKEN, scopes: ['pair'] },
];
const text = (t: string) => [{ kind: 'text', text: t }];

/** A relay (what `svc relay --listen 127.0.0.1:0` runs) in the test process. */
async function startRelay(): Promise<{ url: string; stop: () => Promise<void> }> {
  const relay = createRelayServer();
  const addr = await relay.listen('127.0.0.1:0');
  return { url: `ws://127.0.0.1:${addr.port}${RELAY_PATH}`, stop: () => relay.close() };
}

interface Ctx {
  a: AppServer;
  b: AppServer;
  relay?: { url: string; stop: () => Promise<void> };
  /** The store of each side (default: the test default, sqlite), and the environment both start with. */
  store?: (side: 'a' | 'b') => Record<string, Json>;
  env?: Record<string, string>;
}

const connected = async (s: AppServer) =>
  ((await s.get('/v1/pairings', ADMIN)).body.pairings as Json[]).find((p) => p.id === 'ab')?.status === 'connected';

/** A (alpha-net) and B (beta-net) share `general`, each granting the other's agent membership; directly, or through a relay. */
async function pair(ctx: Ctx): Promise<void> {
  const server = { pairing_check_interval_ms: 300 };
  const storeOf = (side: 'a' | 'b') => (ctx.store ? { store: ctx.store(side) } : {});
  const env = ctx.env ?? {};
  if (ctx.relay) {
    const relay = { url: ctx.relay.url, room: 'lifecycle-relay-room-0123456789abcdef' };
    const side = (id: string, remote: string, members: string[]) =>
      startApp({
        env,
        config: {
          network: { id, name: id },
          server,
          ...storeOf(id === 'alpha-net' ? 'a' : 'b'),
          auth: { tokens: tokens() },
          rooms: [{ id: 'general', members, federation: { pairings: ['ab'] } }],
          pairings: [{ id: 'ab', remote_network_id: remote, token: PAIR_TOKEN, bound: true, relay }],
        },
      });
    ctx.a = await side('alpha-net', 'beta-net', ['alpha', 'beta-net:beta']);
    ctx.b = await side('beta-net', 'alpha-net', ['beta', 'gamma', 'alpha-net:alpha']);
  } else {
    ctx.a = await startApp({
      env,
      config: {
        network: { id: 'alpha-net', name: 'Alpha' },
        server,
        ...storeOf('a'),
        auth: { tokens: tokens() },
        rooms: [{ id: 'general', members: ['alpha', 'beta-net:beta'] }],
      },
    });
    ctx.b = await startApp({
      env,
      config: {
        network: { id: 'beta-net', name: 'Beta' },
        server,
        ...storeOf('b'),
        auth: { tokens: tokens() },
        rooms: [{ id: 'general', members: ['beta', 'gamma', 'alpha-net:alpha'], federation: { pairings: ['ab'] } }],
        pairings: [{ id: 'ab', remote_network_id: 'alpha-net', remote_base_url: ctx.a.url, token: PAIR_TOKEN, bound: true }],
      },
    });
    editConfigFile(ctx.a.configFile, (doc) => {
      appendTo(doc, ['pairings'], { id: 'ab', remote_network_id: 'beta-net', remote_base_url: ctx.b.url, token: PAIR_TOKEN, bound: true });
      doc.setIn(['rooms', 0, 'federation'], doc.createNode({ pairings: ['ab'] }));
    });
    await ctx.a.reload();
  }
  await eventually(() => connected(ctx.a), WAIT, 'A connected to B');
  await eventually(() => connected(ctx.b), WAIT, 'B connected to A');
}

/** Message `id` in `general` at `s` (undefined while it is not there). */
async function messageAt(s: AppServer, id: string): Promise<Json | undefined> {
  const r = await s.get('/v1/rooms/general/messages?limit=50', ADMIN);
  return (r.body?.messages as Json[] | undefined)?.find((x) => x.id === id);
}

const patch = (s: AppServer, id: string, body: Json, token: string) => s.req('PATCH', `/v1/messages/${id}`, { token, body });
const remove = (s: AppServer, id: string, token: string, body?: Json) =>
  s.req('DELETE', `/v1/messages/${id}`, { token, ...(body ? { body } : {}) });

async function editsAndDeletesRelay(ctx: Ctx): Promise<void> {
  const sse = await SseClient.open(ctx.b, { token: TOKENS.observer.value });
  let beta: AttachClient | undefined;
  try {
    beta = (await attachAs(ctx.b, { network_id: 'beta-net', agent: { id: 'beta' } }, { token: BETA })).c;
    const sent = await ctx.a.post('/v1/messages', roomMessage('general', 'alpha', 'the build is red'), ALPHA);
    assert.is(sent.status, 200, sent.text);
    const id = sent.body.message_id as string;
    const first = await eventually(() => messageAt(ctx.b, id), WAIT, 'the message at B');
    assert.equal([first.parts, first.version ?? 1, first.edited_at], [text('the build is red'), 1, undefined]);

    // The sender edits on A, mentioning beta: B's copy follows, and beta (a member of B) is woken there.
    const edited = await patch(ctx.a, id, { parts: text('the build is green, @beta-net:beta') }, ALPHA);
    assert.is(edited.status, 200, edited.text);
    assert.equal(edited.body.mentions, [BETA_FQID]);
    const atB = await eventually(
      async () => ((await messageAt(ctx.b, id))?.version === 2 ? messageAt(ctx.b, id) : undefined),
      WAIT,
      'v2 at B',
    );
    assert.equal([atB.parts, atB.mentions, typeof atB.edited_at], [text('the build is green, @beta-net:beta'), [BETA_FQID], 'string']);
    const ev = await sse.next((f) => f.event === 'message.edited' && f.json.message.id === id, WAIT, 'message.edited at B');
    assert.equal([ev.json.message.version, ev.json.mentions_added], [2, [BETA_FQID]]);
    // The attachment gets the edit; its ACK makes the wake delivered.
    const woken = await beta.next((f: Json) => f.op === 'EVENT' && f.event?.type === 'message.edited' && f.event.message.id === id, WAIT);
    if (woken.cursor !== undefined) beta.ack(woken.cursor);
    await sse.next((f) => f.event === 'agent.wake.delivered' && f.json.agent.message_id === id, WAIT, "beta's wake at B");
    const versions = await ctx.b.get(`/v1/messages/${id}/versions`, ADMIN);
    assert.is(versions.status, 200, versions.text);
    assert.equal(
      versions.body.items.map((v: Json) => v.parts),
      [text('the build is red')],
    );

    // A second edit that still mentions beta wakes nobody again.
    assert.is((await patch(ctx.a, id, { parts: text('the build is green again, @beta-net:beta') }, ALPHA)).status, 200);
    const again = await sse.next((f) => f.event === 'message.edited' && f.json.message.version === 3, WAIT, 'v3 at B');
    assert.equal(again.json.mentions_added, []);
    const later = await beta.next((f: Json) => f.op === 'EVENT' && f.event?.message?.version === 3, WAIT);
    if (later.cursor !== undefined) beta.ack(later.cursor);

    // The relay sends an edit again when it got no answer: the repeat, as A's pairing sends it, changes nothing at B.
    const repeat = await patch(
      ctx.b,
      id,
      {
        parts: text('the build is green again, @beta-net:beta'),
        mentions: [BETA_FQID],
        from: { type: 'agent', id: 'alpha', network_id: 'alpha-net' },
        version: 3,
      },
      PAIR_TOKEN,
    );
    assert.equal([repeat.status, repeat.body.version], [200, 3], repeat.text);

    // Nobody on B changes the relayed copy, not even its operator: only its home network does.
    const asAlpha = { from: { type: 'agent', id: 'alpha', network_id: 'alpha-net' } };
    for (const [what, r] of [
      ['admin edit', await patch(ctx.b, id, { parts: text('rewritten on B') }, ADMIN)],
      ['admin edit as alpha', await patch(ctx.b, id, { parts: text('rewritten on B'), ...asAlpha }, ADMIN)],
      ['alpha token edit', await patch(ctx.b, id, { parts: text('rewritten on B') }, ALPHA)],
      ['admin delete', await remove(ctx.b, id, ADMIN)],
      ['admin delete as alpha', await remove(ctx.b, id, ADMIN, asAlpha)],
      ['beta delete', await remove(ctx.b, id, BETA)],
    ] as const) {
      assert.is(r.status, 403, `${what}: ${r.text}`);
    }
    assert.is((await messageAt(ctx.b, id)).version, 3);

    // The sender deletes on A: B keeps a tombstone in its place.
    const del = await remove(ctx.a, id, ALPHA);
    assert.is(del.status, 200, del.text);
    const gone = await sse.next((f) => f.event === 'message.deleted' && f.json.message.id === id, WAIT, 'message.deleted at B');
    assert.equal([gone.json.message.parts, typeof gone.json.message.deleted_at], [[], 'string']);
    const tomb = await messageAt(ctx.b, id);
    assert.equal([tomb.parts, tomb.mentions, typeof tomb.deleted_at], [[], [], 'string']);
    assert.equal((await ctx.b.get(`/v1/messages/${id}/versions`, ADMIN)).body.items, []);
    // One message.edited per edit made on A: the repeat made none.
    const edits = sse.all.filter((f) => f.event === 'message.edited' && f.json.message.id === id);
    assert.equal(
      edits.map((f) => f.json.message.version),
      [2, 3],
    );
    const wakes = sse.all.filter((f) => f.event?.startsWith('agent.wake.') && f.json?.agent?.message_id === id);
    assert.is(wakes.length, 1, JSON.stringify(wakes));

    // B's own message: its edit on B reaches A.
    const own = await ctx.b.post('/v1/messages', roomMessage('general', 'beta', 'lunch at noon'), BETA);
    assert.is(own.status, 200, own.text);
    const ownId = own.body.message_id as string;
    await eventually(() => messageAt(ctx.a, ownId), WAIT, "beta's message at A");
    assert.is((await patch(ctx.b, ownId, { parts: text('lunch at one') }, BETA)).status, 200);
    const atA = await eventually(
      async () => ((await messageAt(ctx.a, ownId))?.version === 2 ? messageAt(ctx.a, ownId) : undefined),
      WAIT,
      "beta's edit at A",
    );
    assert.equal([atA.parts, typeof atA.edited_at], [text('lunch at one'), 'string']);
    // Only a relayed edit names the version it made at home.
    const named = await patch(ctx.b, ownId, { parts: text('lunch at two'), version: 5 }, BETA);
    assert.is(named.status, 400, named.text);
    assert.match(named.body.error, /body\.version/);
    // ... and A's operator may not change it either.
    assert.is((await patch(ctx.a, ownId, { parts: text('lunch never') }, ADMIN)).status, 403);

    // A DM between the networks: alpha's edit reaches beta's copy, beta's delete reaches alpha's.
    const dmId = dmIdFor(['alpha-net:alpha', 'beta-net:beta']);
    const dmAt = async (s: AppServer, mid: string) =>
      ((await s.get(`/v1/dms/${dmId}/messages`, ADMIN)).body?.messages as Json[] | undefined)?.find((x) => x.id === mid);
    const dm = (from: string, t: string, peer: string) => ({
      target: { kind: 'dm', participant_ids: [peer] },
      from: { type: 'agent', id: from },
      parts: text(t),
    });
    const ask = await ctx.a.post('/v1/messages', dm('alpha', 'are you there?', 'beta-net:beta'), ALPHA);
    assert.is(ask.status, 200, ask.text);
    await eventually(() => dmAt(ctx.b, ask.body.message_id), WAIT, 'the DM at B');
    assert.is((await patch(ctx.a, ask.body.message_id, { parts: text('are you there, beta?') }, ALPHA)).status, 200);
    await eventually(async () => (await dmAt(ctx.b, ask.body.message_id))?.version === 2, WAIT, 'the DM edit at B');
    assert.equal((await dmAt(ctx.b, ask.body.message_id)).parts, text('are you there, beta?'));
    const reply = await ctx.b.post('/v1/messages', dm('beta', 'yes', 'alpha-net:alpha'), BETA);
    assert.is(reply.status, 200, reply.text);
    await eventually(() => dmAt(ctx.a, reply.body.message_id), WAIT, "beta's DM at A");
    assert.is((await remove(ctx.b, reply.body.message_id, BETA)).status, 200);
    const dmTomb = await eventually(
      async () => ((await dmAt(ctx.a, reply.body.message_id))?.deleted_at ? dmAt(ctx.a, reply.body.message_id) : undefined),
      WAIT,
      "beta's DM delete at A",
    );
    assert.equal(dmTomb.parts, []);
  } finally {
    sse.close();
    await beta?.close();
  }
}

/** The ids of the messages B's (or A's) search finds for `q`. */
async function searchIds(s: AppServer, q: string): Promise<string[]> {
  const r = await s.get(`/v1/search?q=${encodeURIComponent(q)}`, ADMIN);
  assert.is(r.status, 200, r.text);
  return (r.body.messages as Json[]).map((m) => m.id as string);
}

/**
 * A's operator redacts a message sent on A: B's copy becomes a redacted tombstone, gone from B's
 * history, versions and search. B's operator redacts B's copy of another of A's messages: B's
 * storage only, nothing goes back to A (a later message from B arrives at A after it, and A's
 * message is as it was), and A's later edit of it does not bring the content back at B.
 */
async function redactionsRelay(ctx: Ctx): Promise<void> {
  const sseB = await SseClient.open(ctx.b, { token: TOKENS.observer.value });
  const sseA = await SseClient.open(ctx.a, { token: TOKENS.observer.value });
  try {
    const send = async (t: string) => {
      const r = await ctx.a.post('/v1/messages', roomMessage('general', 'alpha', t), ALPHA);
      assert.is(r.status, 200, r.text);
      return r.body.message_id as string;
    };
    const id = await send('the deploy key is quokkaprimesecret');
    await eventually(() => messageAt(ctx.b, id), WAIT, 'the message at B');
    // An edit first, so B keeps an earlier version holding the secret too.
    assert.is((await patch(ctx.a, id, { parts: text('the deploy key is quokkaprimesecret, rotated') }, ALPHA)).status, 200);
    await eventually(async () => (await messageAt(ctx.b, id))?.version === 2, WAIT, 'the edit at B');
    assert.equal(await searchIds(ctx.b, 'quokkaprimesecret'), [id], 'B finds it before the redaction');

    // Only an operator redacts, and A's operator does.
    assert.is((await ctx.a.post(`/v1/messages/${id}/redact`, undefined, ALPHA)).status, 403);
    const r = await ctx.a.post(`/v1/messages/${id}/redact`, undefined, ADMIN);
    assert.is(r.status, 200, r.text);
    assert.type(r.body.redacted_at, 'string');
    const ev = await sseB.next((f) => f.event === 'message.redacted' && f.json.message.id === id, WAIT, 'message.redacted at B');
    assert.equal([ev.json.message.parts, typeof ev.json.message.redacted_at], [[], 'string']);
    assert.not.match(JSON.stringify(ev.json), /quokkaprimesecret/);
    const tomb = await messageAt(ctx.b, id);
    assert.equal([tomb.parts, tomb.mentions, typeof tomb.redacted_at, typeof tomb.deleted_at], [[], [], 'string', 'string']);
    const history = await ctx.b.get('/v1/rooms/general/messages?limit=50', ADMIN);
    assert.not.match(history.text, /quokkaprimesecret/);
    const versions = await ctx.b.get(`/v1/messages/${id}/versions`, ADMIN);
    assert.equal([versions.status, versions.body.items], [200, []], versions.text);
    assert.equal(await searchIds(ctx.b, 'quokkaprimesecret'), [], 'B no longer finds it');
    assert.equal(await searchIds(ctx.a, 'quokkaprimesecret'), [], 'nor does A');

    // B's operator redacts B's copy of another of A's messages: B only.
    const other = await send('the backup passphrase is wombatsecundus');
    await eventually(() => messageAt(ctx.b, other), WAIT, 'the second message at B');
    assert.is((await ctx.b.post(`/v1/messages/${other}/redact`, undefined, BETA)).status, 403, 'not an agent of B');
    const local = await ctx.b.post(`/v1/messages/${other}/redact`, undefined, ADMIN);
    assert.is(local.status, 200, local.text);
    assert.equal([local.body.parts, typeof local.body.redacted_at], [[], 'string']);
    assert.equal(await searchIds(ctx.b, 'wombatsecundus'), []);
    // A later message of B reaches A after anything B relayed before it: then A's message is as it was.
    const marker = await ctx.b.post('/v1/messages', roomMessage('general', 'beta', 'after the local redaction'), BETA);
    assert.is(marker.status, 200, marker.text);
    await eventually(() => messageAt(ctx.a, marker.body.message_id), WAIT, "B's later message at A");
    const atA = await messageAt(ctx.a, other);
    assert.equal([atA.parts, atA.redacted_at, atA.deleted_at], [text('the backup passphrase is wombatsecundus'), undefined, undefined]);
    assert.equal(await searchIds(ctx.a, 'wombatsecundus'), [other]);
    assert.ok(!sseA.all.some((f) => f.event === 'message.redacted' && f.json.message.id === other), 'no message.redacted at A');

    // A's sender edits it later: the edit does not bring content back into B's redacted copy.
    assert.is((await patch(ctx.a, other, { parts: text('the backup passphrase is wombatsecundus, again') }, ALPHA)).status, 200);
    const after = await ctx.a.post('/v1/messages', roomMessage('general', 'alpha', 'after the edit'), ALPHA);
    assert.is(after.status, 200, after.text);
    await eventually(() => messageAt(ctx.b, after.body.message_id), WAIT, "A's later message at B");
    const still = await messageAt(ctx.b, other);
    assert.equal([still.parts, typeof still.redacted_at], [[], 'string']);
    assert.equal(await searchIds(ctx.b, 'wombatsecundus'), []);
  } finally {
    sseA.close();
    sseB.close();
  }
}

const direct = suite<Ctx>('message edits and deletes over a direct pairing on sqlite');
direct.after.each(async (ctx) => {
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
});
direct('the home network edits and deletes; the peer follows and refuses its own changes to the copy', async (ctx) => {
  await pair(ctx);
  await editsAndDeletesRelay(ctx);
});
direct('a redaction at home reaches the peer; the peer may redact its own copy without telling home', async (ctx) => {
  await pair(ctx);
  await redactionsRelay(ctx);
});
direct.run();

const relayed = suite<Ctx>('message edits and deletes over a pairing through svc relay on sqlite');
relayed.before.each(async (ctx) => {
  ctx.relay = await startRelay();
});
relayed.after.each(async (ctx) => {
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
  await ctx.relay?.stop();
});
relayed('the home network edits and deletes; the peer follows and refuses its own changes to the copy', async (ctx) => {
  await pair(ctx);
  await editsAndDeletesRelay(ctx);
});
relayed('a redaction at home reaches the peer; the peer may redact its own copy without telling home', async (ctx) => {
  await pair(ctx);
  await redactionsRelay(ctx);
});
relayed('changes made while the peer is away: it gets each message as it is now, and never one deleted before it left', async (ctx) => {
  await pair(ctx);
  const send = async (t: string) => {
    const r = await ctx.a.post('/v1/messages', roomMessage('general', 'alpha', t), ALPHA);
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
  const doomed = await send('draft: numbers to follow');
  await eventually(() => messageAt(ctx.b, doomed), WAIT, 'the draft at B');
  await ctx.b.stop();
  // Edited, then deleted while B is away: B gets the delete, and no edit of a tombstone before it.
  assert.is((await patch(ctx.a, doomed, { parts: text('draft: the numbers are 4 8 15') }, ALPHA)).status, 200);
  assert.is((await remove(ctx.a, doomed, ALPHA)).status, 200);
  const kept = await send('meeting at 10');
  assert.is((await patch(ctx.a, kept, { parts: text('meeting at 11') }, ALPHA)).status, 200);
  const gone = await send('the password is hunter2');
  assert.is((await remove(ctx.a, gone, ALPHA)).status, 200);
  const last = await send('see you there');
  await ctx.b.restart();
  await eventually(() => messageAt(ctx.b, last), WAIT, 'the last message at B');
  // It arrives as edited, then its edit (version 2 at home) makes it version 2 here too.
  const atB = await eventually(
    async () => ((await messageAt(ctx.b, kept))?.version === 2 ? messageAt(ctx.b, kept) : undefined),
    WAIT,
    'v2 at B',
  );
  assert.equal([atB.parts, typeof atB.edited_at], [text('meeting at 11'), 'string']);
  assert.is(await messageAt(ctx.b, gone), undefined);
  const draft = await messageAt(ctx.b, doomed);
  assert.equal([draft.parts, typeof draft.deleted_at], [[], 'string']);
  assert.not.match(ctx.a.output(), /refused a relayed message\.edited/);
  // Nothing was refused: the deleted message was not offered to B as an empty one.
  const ab = ((await ctx.a.get('/v1/pairings', ADMIN)).body.pairings as Json[]).find((p) => p.id === 'ab');
  assert.is(ab?.refused, undefined, JSON.stringify(ab?.refused));
});
relayed.run();

const postgres = suite<Ctx & { pgs: PgSchema[] }>('message edits and deletes over a direct pairing on postgres');
postgres.before.each(async (ctx) => {
  ctx.pgs = [await freshSchema(), await freshSchema()];
  ctx.env = { SVC_TEST_STORE_URL: ctx.pgs[0]!.url };
  // editConfigFile validates the edited config against this process's environment.
  process.env.SVC_TEST_STORE_URL = ctx.pgs[0]!.url;
  ctx.store = (side) => pgStore(ctx.pgs[side === 'a' ? 0 : 1]!);
});
postgres.after.each(async (ctx) => {
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
  await Promise.all((ctx.pgs ?? []).map((x) => x.drop()));
});
postgres('the home network edits and deletes; the peer follows and refuses its own changes to the copy', async (ctx) => {
  await pair(ctx);
  await editsAndDeletesRelay(ctx);
});
postgres('a redaction at home reaches the peer; the peer may redact its own copy without telling home', async (ctx) => {
  await pair(ctx);
  await redactionsRelay(ctx);
});
postgres.run();
