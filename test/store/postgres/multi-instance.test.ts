// Two `svc serve` processes on one Postgres schema are one network: what is sent to one reaches
// the clients of the other, histories agree, races between them resolve once, an attachment's
// cursor means the same on both, one agent holds one attachment across both, and a killed
// instance loses nothing it acknowledged.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, eventually, type Json, type TestServer } from '../../helpers/server.js';
import { SseClient, attachAs, rejectedIdentify } from '../../helpers/live.js';
import { freshSchema, sql, type PgSchema } from '../../helpers/pg.js';
import { startPgServers } from '../../helpers/pg-server.js';

const NET = 'testnet';
const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const rooms = [{ id: 'general', name: 'General', members: ['alpha', 'ops'], visibility: 'public' }];
const identity = (id: string, extra: Record<string, Json> = {}) => ({ network_id: NET, agent: { id }, ...extra });
const human = (text: string, extra: Record<string, Json> = {}) => ({
  target: { kind: 'room', room_id: 'general' },
  from: { type: 'human', id: 'op' },
  parts: [{ kind: 'text', text }],
  ...extra,
});
const texts = (frames: Json[]) =>
  frames.filter((f) => f.event?.type === 'message.created').map((f) => f.event.message.parts[0].text as string);

async function say(s: TestServer, text: string, extra: Record<string, Json> = {}): Promise<Json> {
  const r = await s.post('/v1/messages', human(text, extra), ADMIN);
  assert.is(r.status, 200, r.text);
  return r.body;
}

async function history(s: TestServer, path: string): Promise<Json[]> {
  const r = await s.get(`${path}?limit=500`, ADMIN);
  assert.is(r.status, 200, r.text);
  return r.body.messages;
}

interface Ctx {
  pgs: PgSchema;
  a: TestServer;
  b: TestServer;
}

const two = suite<Ctx>('two instances on one postgres schema');
two.before.each(async (ctx) => {
  ctx.pgs = await freshSchema();
  [ctx.a, ctx.b] = await startPgServers(2, ctx.pgs, { rooms });
});
two.after.each(async ({ pgs, a, b }) => {
  await Promise.all([a?.dispose(), b?.dispose()]);
  await pgs.drop();
});

two('a message sent to one reaches SSE streams and attachments on the other, and histories agree', async ({ a, b }) => {
  const sse = await SseClient.open(b, { token: ADMIN });
  assert.is(sse.status, 200);
  const { c } = await attachAs(b, identity('alpha'), { token: ALPHA });
  for (const t of ['one', 'two', 'three']) await say(a, t);
  await say(b, 'four');
  await c.message('four', 10_000);
  await sse.message('four', 10_000);
  assert.equal(texts(c.events), ['one', 'two', 'three', 'four']);
  assert.equal(
    sse.all.filter((f) => f.event === 'message.created').map((f) => f.json.message.parts[0].text),
    ['one', 'two', 'three', 'four'],
  );
  const ids = sse.all.filter((f) => f.id !== undefined).map((f) => f.id);
  assert.is(new Set(ids).size, ids.length, 'no event twice');
  assert.equal(await history(a, '/v1/rooms/general/messages'), await history(b, '/v1/rooms/general/messages'));
  sse.close();
  await c.close();
});

two('an SSE stream resumed on the other instance with Last-Event-ID misses nothing and repeats nothing', async ({ a, b }) => {
  const first = await SseClient.open(a, { token: ADMIN });
  await say(a, 'r1');
  await say(b, 'r2');
  const r2 = await first.message('r2', 10_000);
  first.close();
  await say(b, 'r3');
  await say(a, 'r4');
  const second = await SseClient.open(b, { token: ADMIN, lastEventId: r2.id! });
  await second.message('r4', 10_000);
  assert.equal(
    second.all.filter((f) => f.event === 'message.created').map((f) => f.json.message.parts[0].text),
    ['r3', 'r4'],
  );
  second.close();
});

two('an SSE stream resumed on an instance started after its last event replays from the database, not a gap', async ({ pgs, a }) => {
  const first = await SseClient.open(a, { token: ADMIN });
  await say(a, 'old1');
  const old1 = await first.message('old1', 10_000);
  first.close();
  await say(a, 'old2');
  await say(a, 'old3');
  const [c] = await startPgServers(1, pgs, { rooms });
  try {
    const resumed = await SseClient.open(c!, { token: ADMIN, lastEventId: old1.id! });
    await say(c!, 'new4');
    await resumed.message('new4', 10_000);
    assert.not.ok(
      resumed.all.some((f) => f.event === 'stream.replay_gap'),
      'no replay gap',
    );
    assert.equal(
      resumed.all.filter((f) => f.event === 'message.created').map((f) => f.json.message.parts[0].text),
      ['old2', 'old3', 'new4'],
    );
    resumed.close();
  } finally {
    await c!.dispose();
  }
});

two('an attachment cursor acknowledged on one instance resumes on the other with no gap or duplicate', async ({ a, b }) => {
  const { c } = await attachAs(a, identity('alpha'), { token: ALPHA });
  for (const t of ['m1', 'm2', 'm3']) await say(a, t);
  await c.message('m3', 10_000);
  const m2 = c.events.find((f) => f.event.message?.parts[0].text === 'm2');
  c.ack(m2.cursor);
  await c.close();
  await say(b, 'm4');
  await say(a, 'm5');
  const second = await attachAs(b, identity('alpha', { cursor: m2.cursor }), { token: ALPHA });
  await second.c.message('m5', 10_000);
  assert.equal(texts(second.c.events), ['m3', 'm4', 'm5']);
  const cursors = second.c.events.map((f) => Number(f.cursor));
  assert.equal(
    cursors,
    [...cursors].sort((x, y) => x - y),
  );
  await second.c.close();
});

two('a membership change on one instance decides at once who receives on the other', async ({ a, b }) => {
  const { c } = await attachAs(b, identity('alpha'), { token: ALPHA });
  const members = (body: Json) =>
    a.req('PATCH', '/v1/rooms/general/members', { token: ADMIN, body }).then((r) => assert.is(r.status, 200, r.text));
  await say(a, 'before');
  await c.message('before', 10_000);
  // Removal, a message and a return in quick succession: B reads them in one or a few pages.
  await members({ remove: ['alpha'] });
  await say(a, 'while out');
  await members({ add: ['alpha'] });
  await say(a, 'back');
  await c.message('back', 10_000);
  assert.equal(texts(c.events), ['before', 'back']);
  await c.close();
});

two(
  'a send decided on a room another instance changed, before this one has read the change, is decided again on the stored room',
  async ({ pgs, a }) => {
    const asAlpha = (text: string) =>
      a.post(
        '/v1/messages',
        { target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text }] },
        ALPHA,
      );
    const setMembers = (expr: string) => sql(pgs.url, `UPDATE ${pgs.schema}.rooms SET members = ${expr} WHERE id = 'general'`);
    // A keeps the room as it read it for this send.
    assert.is((await asAlpha('kept')).status, 200);
    // Changed in the database with no event: a change A has not heard of.
    await setMembers(`array_remove(members, 'alpha')`);
    const out = await asAlpha('after removal');
    assert.is(out.status, 403, out.text);
    assert.match(out.body.error, 'not a member');
    // Another send has A keep the room without alpha; alpha comes back unannounced and is accepted at once.
    await say(a, 'while out');
    await setMembers(`array_append(members, 'alpha')`);
    const back = await asAlpha('after return');
    assert.is(back.status, 200, back.text);
    const stored = (await history(a, '/v1/rooms/general/messages')).map((m) => m.parts[0].text);
    assert.equal(stored, ['kept', 'while out', 'after return']);
  },
);

two('one agent cannot be attached on both instances at once', async ({ a, b }) => {
  const { c } = await attachAs(a, identity('alpha'), { token: ALPHA });
  const r = await rejectedIdentify(b, identity('alpha'), { token: ALPHA });
  assert.is(r.error.code, 'session_in_use');
  assert.not.ok(r.frames.some((f) => f.op === 'READY'));
  await say(b, 'still here');
  await c.message('still here', 10_000);
  await c.close();
  // Once the first is closed, the other instance takes the agent.
  const again = await eventually(
    async () => attachAs(b, identity('alpha'), { token: ALPHA }).catch(() => undefined),
    10_000,
    'a second attachment',
  );
  await again!.c.close();
});

two('concurrent retries, first thread replies and claims across instances each land once', async ({ a, b }) => {
  const both = <T>(fn: (s: TestServer, i: number) => Promise<T>) => Promise.all([a, b, a, b, a, b].map((s, i) => fn(s, i)));

  const retried = await both((s) => s.post('/v1/messages', human('same', { id: 'client-race-1' }), ADMIN));
  assert.equal(
    retried.map((r) => r.status),
    Array(6).fill(200),
  );
  assert.is(new Set(retried.map((r) => r.body.event_id)).size, 1);
  assert.is((await history(b, '/v1/rooms/general/messages')).filter((m) => m.id === 'client-race-1').length, 1);

  const thread = (i: number) => ({
    target: { kind: 'thread', room_id: 'general', thread_id: 'th-race' },
    from: { type: 'human', id: 'op' },
    parts: [{ kind: 'text', text: `r${i}` }],
  });
  const replies = await both((s, i) => s.post('/v1/messages', thread(i), ADMIN));
  assert.equal(
    replies.map((r) => r.status),
    Array(6).fill(200),
  );
  assert.is(replies.filter((r) => r.body.thread_created).length, 1);
  assert.is((await a.get('/v1/threads/th-race', ADMIN)).body.message_count, 6);
  assert.is((await history(b, '/v1/threads/th-race/messages')).length, 6);

  const claims = await Promise.all([
    a.post('/v1/agents/register', { requested_agent_id: 'contested' }, TOKENS.attacher.value),
    b.post('/v1/agents/register', { requested_agent_id: 'contested' }, ADMIN),
  ]);
  assert.equal(claims.map((r) => r.status).sort(), [200, 409]);
});

two('a SIGKILL of one instance during a burst loses no acknowledged message', async ({ a, b }) => {
  const acked: string[] = [];
  let n = 0;
  const sender = async () => {
    for (;;) {
      const i = n++;
      try {
        const r = await a.post('/v1/messages', human(`burst ${i}`, { id: `burst-${i}` }), ADMIN);
        if (r.status === 200) acked.push(`burst-${i}`);
      } catch {
        return; // the instance is gone
      }
    }
  };
  const senders = Array.from({ length: 6 }, sender);
  await eventually(() => acked.length >= 40, 20_000, '40 acknowledged sends');
  await a.kill9();
  await Promise.all(senders);
  const stored = new Set((await history(b, '/v1/rooms/general/messages')).map((m) => m.id));
  const lost = acked.filter((id) => !stored.has(id));
  assert.equal(lost, [], `${lost.length} acknowledged messages missing`);
  // The surviving instance keeps serving.
  await say(b, 'after the kill');
});

two.run();
