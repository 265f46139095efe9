// What the server acknowledged survives a graceful restart and a `kill -9`.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, TOKENS, roomMessage, type Json, type TestServer } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;

interface Ctx {
  s: TestServer;
  gen: string;
  before: Record<string, Json>;
}

/** Everything a reader can see, for before/after comparison. */
async function snapshot(s: TestServer, dmId: string): Promise<Record<string, Json>> {
  const get = async (p: string) => {
    const r = await s.get(p, ADMIN);
    assert.is(r.status, 200, `${p}: ${r.text}`);
    return r.body;
  };
  return {
    rooms: await get('/v1/rooms'),
    agents: await get('/v1/agents'),
    room: await get('/v1/rooms/made/messages'),
    threads: await get('/v1/rooms/made/threads'),
    thread: await get('/v1/threads/t1/messages'),
    dms: await get('/v1/dms'),
    dm: await get(`/v1/dms/${dmId}/messages`),
    artifacts: await get('/v1/artifacts?room_id=made'),
  };
}

// One server for the whole file, restarted and killed along the way.
const t = suite<Ctx>('acknowledged state across restarts and crashes');
t.before(async (c) => {
  c.s = await startServer({ config: { auth: { agent_registration: 'open' }, rooms: [{ id: 'burst', members: ['ops'] }] } });
});
t.after(async (c) => c.s?.dispose());

t('rooms, agents, messages, threads, DMs and artifacts are all there after a restart', async (c) => {
  const { s } = c;
  // gen claims its id before a room names it (a named id is reserved for the operator's credentials).
  const reg = await s.post('/v1/agents/register', { requested_agent_id: 'gen', name: 'Gen' });
  c.gen = reg.body.agent_token;
  assert.is(
    (await s.post('/v1/rooms', { id: 'made', members: ['ops', 'gen'], visibility: 'private', write_policy: 'registered_agents' }, ADMIN))
      .status,
    200,
  );
  assert.is((await s.post('/v1/messages', { ...roomMessage('made', 'gen', 'hello @ops'), id: 'keep-1' }, c.gen)).status, 200);
  assert.is(
    (
      await s.post(
        '/v1/messages',
        {
          target: { kind: 'room', room_id: 'made' },
          from: { type: 'agent', id: 'ops' },
          parts: [{ kind: 'file', url: 'https://x.test/f' }],
        },
        ADMIN,
      )
    ).status,
    200,
  );
  assert.is(
    (
      await s.post(
        '/v1/messages',
        {
          target: { kind: 'thread', room_id: 'made', thread_id: 't1', parent_message_id: 'keep-1' },
          from: { type: 'agent', id: 'ops' },
          parts: [{ kind: 'text', text: 'in thread' }],
        },
        ADMIN,
      )
    ).status,
    200,
  );
  assert.is(
    (
      await s.post(
        '/v1/messages',
        { target: { kind: 'dm', participant_ids: ['ops'] }, from: { type: 'agent', id: 'gen' }, parts: [{ kind: 'text', text: 'dm' }] },
        c.gen,
      )
    ).status,
    200,
  );
  const dmId = (await s.get('/v1/dms', ADMIN)).body.dms[0].id;
  // Soft removals are state too.
  assert.is((await s.post('/v1/rooms', { id: 'gone' }, ADMIN)).status, 200);
  assert.is((await s.req('DELETE', '/v1/rooms/gone', { token: ADMIN })).status, 200);
  const doomed = await s.post('/v1/agents/register', { requested_agent_id: 'gone-agent' });
  assert.is((await s.req('DELETE', '/v1/agents/gone-agent', { token: ADMIN })).status, 200);
  c.before = await snapshot(s, dmId);

  const code = await s.stop();
  assert.is(code, 0, 'a graceful stop exits 0');
  await s.restart();
  assert.equal(await snapshot(s, dmId), c.before);
  assert.is((await s.get('/v1/rooms/gone', ADMIN)).status, 404);
  assert.is((await s.get('/v1/agents/gone-agent', ADMIN)).status, 404);
  assert.is((await s.get('/v1/network', doomed.body.agent_token)).status, 401);
});

t('a generated agent token still works after a restart', async ({ s, gen }) => {
  const r = await s.get('/v1/rooms/made', gen);
  assert.is(r.status, 200, r.text);
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'gen' })).status, 409);
});

t('a retry after a restart is still recognised', async ({ s, gen, before }) => {
  const first = before.room.messages.find((m: Json) => m.id === 'keep-1');
  assert.ok(first);
  const r = await s.post('/v1/messages', { ...roomMessage('made', 'gen', 'hello @ops'), id: 'keep-1' }, gen);
  assert.is(r.status, 200, r.text);
  assert.equal([r.body.message_id, r.body.thread_created, r.body.dm_created], ['keep-1', false, false]);
  assert.is((await s.get('/v1/rooms/made/messages', ADMIN)).body.messages.length, before.room.messages.length);
});

t('a kill -9 right after a burst of acknowledged writes loses no message, thread, DM or registration', async ({ s }) => {
  const acked: string[] = [];
  const sends: Promise<void>[] = [];
  for (let i = 0; i < 240; i++) {
    const id = `burst-${i}`;
    const target =
      i % 3 === 0
        ? { kind: 'room', room_id: 'burst' }
        : i % 3 === 1
          ? { kind: 'thread', room_id: 'burst', thread_id: `bt-${i % 5}` }
          : { kind: 'dm', participant_ids: [`peer-${i % 7}`] };
    sends.push(
      s
        .post(
          '/v1/messages',
          {
            id,
            target,
            from: { type: 'agent', id: 'ops' },
            parts: [
              { kind: 'text', text: id },
              { kind: 'url', url: `https://x.test/${i}` },
            ],
          },
          ADMIN,
        )
        .then((r) => {
          if (r.status === 200) acked.push(id);
        }),
    );
  }
  const regs = Array.from({ length: 20 }, (_, i) => s.post('/v1/agents/register', { requested_agent_id: `burst-agent-${i}` }, ADMIN));
  await Promise.all(sends);
  const regOk = (await Promise.all(regs)).filter((r) => r.status === 200).length;
  assert.is(acked.length, 240);
  assert.is(regOk, 20);

  await s.kill9();
  await s.restart();

  const seen = new Set<string>();
  const collect = async (p: string) => {
    const r = await s.get(p, ADMIN);
    assert.is(r.status, 200, `${p}: ${r.text}`);
    for (const m of r.body.messages as Json[]) {
      assert.not.ok(seen.has(m.id), `${m.id} twice`);
      seen.add(m.id);
    }
    return r.body.messages.length as number;
  };
  assert.is(await collect('/v1/rooms/burst/messages?limit=500'), 80);
  const threads = (await s.get('/v1/rooms/burst/threads', ADMIN)).body.threads as Json[];
  assert.is(threads.length, 5);
  for (const th of threads) {
    const n = await collect(`/v1/threads/${th.id}/messages?limit=500`);
    assert.is(th.message_count, n, `${th.id} count`);
  }
  const dms = ((await s.get('/v1/dms', ADMIN)).body.dms as Json[]).filter((d) =>
    d.participant_ids.some((x: string) => x.includes(':peer-')),
  );
  assert.is(dms.length, 7);
  for (const dm of dms) {
    const n = await collect(`/v1/dms/${dm.id}/messages?limit=500`);
    assert.is(dm.message_count, n, `${dm.id} count`);
  }
  assert.equal([...seen].sort(), [...acked].sort());
  const arts = (await s.get('/v1/artifacts?room_id=burst&limit=500', ADMIN)).body.artifacts as Json[];
  assert.is(arts.length, 160);
  const agents = (await s.get('/v1/agents?limit=500', ADMIN)).body.agents as Json[];
  assert.is(agents.filter((a) => a.id.startsWith('burst-agent-')).length, 20);
});

t('the server keeps accepting writes after recovering, and survives a second kill -9', async ({ s }) => {
  const r = await s.post('/v1/messages', roomMessage('burst', 'ops', 'after recovery'), ADMIN);
  assert.is(r.status, 200, r.text);
  await s.kill9();
  await s.restart();
  const h = (await s.get('/v1/rooms/burst/messages', ADMIN)).body.messages as Json[];
  assert.is(h[h.length - 1].id, r.body.message_id);
});

t.run();
