// POST /v1/messages: response and stored shapes, idempotent retries, lazy threads and DMs,
// mentions, artifacts, who may send as whom, room write policies and human ingress.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';

const ADMIN = TOKENS.admin.value;
const WRITER = TOKENS.writer.value;
const ALPHA = TOKENS.alphaOnly.value;
const OBS = TOKENS.observer.value;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

interface Ctx {
  s: AppServer;
  gen: string;
}

const threadMessage = (room: string, thread: string, from: string, text: string, extra: Record<string, Json> = {}) => ({
  target: { kind: 'thread', room_id: room, thread_id: thread, ...extra },
  from: { type: 'agent', id: from },
  parts: [{ kind: 'text', text }],
});
const dmMessage = (participants: string[], from: string, text: string, extra: Record<string, Json> = {}) => ({
  target: { kind: 'dm', participant_ids: participants, ...extra },
  from: { type: 'agent', id: from },
  parts: [{ kind: 'text', text }],
});
const history = async (s: AppServer, p: string) => (await s.get(p, ADMIN)).body.messages as Json[];

async function server(): Promise<Ctx> {
  const s = await startApp({
    config: {
      auth: { agent_registration: 'open' },
      rooms: [
        { id: 'general', members: ['alpha', 'beta', 'ops', 'other:beta', 'data.bot'] },
        { id: 'members-room', members: ['alpha'] },
        { id: 'registered-room', write_policy: 'registered_agents', members: [] },
        { id: 'operators-room', write_policy: 'operators', members: ['alpha'] },
      ],
    },
  });
  const reg = await claimThenJoin(s, 'gen', ['general', 'operators-room']);
  return { s, gen: reg.body.agent_token };
}

// ---- shapes and idempotency -----------------------------------------------------------------------

const send = suite<Ctx>('sending a message');
send.before(async (c) => {
  Object.assign(c, await server());
});
send.after(async (c) => c.s?.dispose());

send('an accepted send returns ids, accepted and both created flags', async ({ s }) => {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', 'hello'), ALPHA);
  assert.is(r.status, 200, r.text);
  assert.equal(Object.keys(r.body).sort(), ['accepted', 'dm_created', 'event_id', 'message_id', 'thread_created']);
  assert.is(r.body.accepted, true);
  assert.is(r.body.thread_created, false);
  assert.is(r.body.dm_created, false);
  assert.type(r.body.message_id, 'string');
  assert.type(r.body.event_id, 'string');
  assert.is.not(r.body.message_id, r.body.event_id);
});

send('the stored message carries the full sender, target, parts, mentions and time', async ({ s }) => {
  const r = await s.post(
    '/v1/messages',
    { ...roomMessage('general', 'alpha', 'shape'), from: { type: 'agent', id: 'alpha', name: 'Alpha' } },
    ALPHA,
  );
  const m = (await history(s, '/v1/rooms/general/messages')).find((x) => x.id === r.body.message_id);
  assert.equal(
    { ...m, created_at: 'x' },
    {
      id: r.body.message_id,
      network_id: 'testnet',
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'agent', id: 'alpha', name: 'Alpha', network_id: 'testnet', fqid: 'svc://testnet/agents/alpha' },
      parts: [{ kind: 'text', text: 'shape' }],
      mentions: [],
      created_at: 'x',
    },
  );
  assert.match(m.created_at, ISO);
});

send('a retry with the same id returns the same message and event ids and creates nothing new', async ({ s }) => {
  const body = { ...roomMessage('general', 'alpha', 'once'), id: 'client-msg-1' };
  const first = await s.post('/v1/messages', body, ALPHA);
  assert.is(first.status, 200, first.text);
  assert.is(first.body.message_id, 'client-msg-1');
  const again = await s.post('/v1/messages', body, ALPHA);
  assert.is(again.status, 200);
  assert.equal(again.body, {
    message_id: 'client-msg-1',
    event_id: first.body.event_id,
    accepted: true,
    thread_created: false,
    dm_created: false,
  });
  const found = (await history(s, '/v1/rooms/general/messages')).filter((x) => x.id === 'client-msg-1');
  assert.is(found.length, 1);
});

send('a retry that first created a thread or a DM reports both created flags false', async ({ s }) => {
  const th = { ...threadMessage('general', 'retry-thread', 'alpha', 'first'), id: 'client-thread-1' };
  const a = await s.post('/v1/messages', th, ALPHA);
  assert.is(a.body.thread_created, true);
  const b = await s.post('/v1/messages', th, ALPHA);
  assert.equal([b.body.event_id, b.body.thread_created, b.body.dm_created], [a.body.event_id, false, false]);
  assert.is((await s.get('/v1/threads/retry-thread', ADMIN)).body.message_count, 1);

  const dm = { ...dmMessage(['zed'], 'alpha', 'hi'), id: 'client-dm-1' };
  const c = await s.post('/v1/messages', dm, ALPHA);
  assert.is(c.body.dm_created, true);
  const d = await s.post('/v1/messages', dm, ALPHA);
  assert.equal([d.body.event_id, d.body.thread_created, d.body.dm_created], [c.body.event_id, false, false]);
});

send('concurrent retries of one id store one message and all get its ids', async ({ s }) => {
  const body = { ...roomMessage('general', 'ops', 'racing'), id: 'client-race-1' };
  const rs = await Promise.all(Array.from({ length: 8 }, () => s.post('/v1/messages', body, WRITER)));
  assert.equal(
    rs.map((r) => r.status),
    Array(8).fill(200),
  );
  assert.is(new Set(rs.map((r) => r.body.event_id)).size, 1);
  assert.is((await history(s, '/v1/rooms/general/messages')).filter((m) => m.id === 'client-race-1').length, 1);
});

send('concurrent first messages to a new thread create it exactly once', async ({ s }) => {
  const rs = await Promise.all(
    Array.from({ length: 6 }, (_, i) => s.post('/v1/messages', threadMessage('general', 'th-race', 'ops', `r${i}`), WRITER)),
  );
  assert.equal(
    rs.map((r) => r.status),
    Array(6).fill(200),
  );
  assert.is(rs.filter((r) => r.body.thread_created).length, 1);
  assert.is((await s.get('/v1/threads/th-race', ADMIN)).body.message_count, 6);
});

send('reusing a message id for another sender is a 409', async ({ s }) => {
  await s.post('/v1/messages', { ...roomMessage('general', 'ops', 'mine'), id: 'client-msg-2' }, WRITER);
  const r = await s.post('/v1/messages', { ...roomMessage('general', 'beta', 'mine too'), id: 'client-msg-2' }, WRITER);
  assert.is(r.status, 409);
  assert.is(r.body.code, 'conflict');
});

send('a retry by a credential that may not send as that agent is refused, not acknowledged', async ({ s }) => {
  await s.post('/v1/messages', { ...roomMessage('general', 'alpha', 'private retry'), id: 'client-msg-3' }, ALPHA);
  const r = await s.post('/v1/messages', { ...roomMessage('general', 'alpha', 'private retry'), id: 'client-msg-3' }, WRITER);
  assert.is(r.status, 403, r.text);
});

send('a client message id of the wrong shape is a 400 naming body.id', async ({ s }) => {
  const r = await s.post('/v1/messages', { ...roomMessage('general', 'alpha', 'x'), id: 'has space' }, ALPHA);
  assert.is(r.status, 400);
  assert.match(r.body.error, /^body\.id:/);
});

send('a send to an unknown room is 404', async ({ s }) => {
  const r = await s.post('/v1/messages', roomMessage('nowhere', 'ops', 'x'), ADMIN);
  assert.is(r.status, 404);
  assert.is(r.body.code, 'not_found');
});

send('unknown fields in the body and its parts are ignored, not stored', async ({ s }) => {
  const r = await s.post(
    '/v1/messages',
    {
      ...roomMessage('general', 'alpha', 'extra'),
      future: 1,
      parts: [{ kind: 'text', text: 'extra', shiny: true }],
      from: { type: 'agent', id: 'alpha', mood: 'x' },
      target: { kind: 'room', room_id: 'general', zone: 'z' },
    },
    ALPHA,
  );
  assert.is(r.status, 200, r.text);
  const m = (await history(s, '/v1/rooms/general/messages')).find((x) => x.id === r.body.message_id);
  assert.equal(m.parts, [{ kind: 'text', text: 'extra' }]);
  assert.equal(m.target, { kind: 'room', room_id: 'general' });
  assert.is(m.from.mood, undefined);
  assert.is(m.future, undefined);
});

// ---- threads ----------------------------------------------------------------------------------------

send('the first message to a new thread id creates the thread; later ones do not', async ({ s }) => {
  const parent = await s.post('/v1/messages', roomMessage('general', 'alpha', 'parent'), ALPHA);
  const a = await s.post(
    '/v1/messages',
    threadMessage('general', 'th-1', 'alpha', 'one', { parent_message_id: parent.body.message_id }),
    ALPHA,
  );
  assert.is(a.status, 200, a.text);
  assert.is(a.body.thread_created, true);
  assert.is(a.body.dm_created, false);
  const b = await s.post('/v1/messages', threadMessage('general', 'th-1', 'beta', 'two'), ADMIN);
  assert.is(b.status, 200, b.text);
  assert.is(b.body.thread_created, false);

  const th = await s.get('/v1/threads/th-1', OBS);
  assert.equal(
    { ...th.body, last_message_at: 'x' },
    {
      id: 'th-1',
      network_id: 'testnet',
      fqid: 'svc://testnet/threads/th-1',
      room_id: 'general',
      parent_message_id: parent.body.message_id,
      message_count: 2,
      last_message_at: 'x',
    },
  );
  const msgs = await history(s, '/v1/threads/th-1/messages');
  assert.equal(
    msgs.map((m) => m.id),
    [a.body.message_id, b.body.message_id],
  );
  assert.equal(msgs[0].target, { kind: 'thread', room_id: 'general', thread_id: 'th-1', parent_message_id: parent.body.message_id });
  assert.is(msgs[1].target.parent_message_id, parent.body.message_id);
  const listed = (await s.get('/v1/rooms/general/threads', OBS)).body.threads.map((x: Json) => x.id);
  assert.ok(listed.includes('th-1'));
});

send('room history holds only room-level messages; thread messages are in thread history', async ({ s }) => {
  const a = await s.post('/v1/messages', threadMessage('general', 'th-only', 'alpha', 'thread only'), ALPHA);
  const room = await history(s, '/v1/rooms/general/messages');
  assert.not.ok(room.some((m) => m.id === a.body.message_id));
  assert.equal(
    (await history(s, '/v1/threads/th-only/messages')).map((m) => m.id),
    [a.body.message_id],
  );
});

send('a thread id already used in another room is a 409, an unknown parent a 404', async ({ s }) => {
  await s.post('/v1/messages', threadMessage('general', 'th-room', 'alpha', 'x'), ALPHA);
  const other = await s.post('/v1/messages', threadMessage('members-room', 'th-room', 'alpha', 'y'), ALPHA);
  assert.is(other.status, 409);
  const orphan = await s.post(
    '/v1/messages',
    threadMessage('general', 'th-orphan', 'alpha', 'z', { parent_message_id: 'msg_nope' }),
    ALPHA,
  );
  assert.is(orphan.status, 404);
  assert.is((await s.get('/v1/threads/th-orphan', ADMIN)).status, 404);
});

send('a thread target missing thread_id is a 400 naming the field', async ({ s }) => {
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'thread', room_id: 'general' }, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text: 'x' }] },
    ALPHA,
  );
  assert.is(r.status, 400);
  assert.match(r.body.error, /^body\.target\.thread_id: is required/);
});

// ---- DMs ----------------------------------------------------------------------------------------------

send('the first DM to a participant set creates it with a derived id and the sender added', async ({ s }) => {
  const a = await s.post('/v1/messages', dmMessage(['beta'], 'alpha', 'psst'), ALPHA);
  assert.is(a.status, 200, a.text);
  assert.equal([a.body.dm_created, a.body.thread_created], [true, false]);
  const dms = (await s.get('/v1/dms', ALPHA)).body.dms as Json[];
  const dm = dms.find((d) => d.participant_ids.join() === 'testnet:alpha,testnet:beta');
  assert.ok(dm, JSON.stringify(dms));
  assert.match(dm.id, /^dm_[0-9a-f]{20}$/);
  assert.equal(
    { ...dm, last_message_at: 'x' },
    {
      id: dm.id,
      network_id: 'testnet',
      fqid: `svc://testnet/dms/${dm.id}`,
      participant_ids: ['testnet:alpha', 'testnet:beta'],
      message_count: 1,
      last_message_at: 'x',
    },
  );
  assert.equal((await s.get(`/v1/dms/${dm.id}`, ALPHA)).body, dm);
  const msgs = (await s.get(`/v1/dms/${dm.id}/messages`, ALPHA)).body.messages as Json[];
  assert.equal(
    msgs.map((m) => m.id),
    [a.body.message_id],
  );
  assert.equal(msgs[0].target, { kind: 'dm', dm_id: dm.id, participant_ids: ['testnet:alpha', 'testnet:beta'] });
});

send('the same participant set from the other side, in any form, lands in the same DM', async ({ s }) => {
  const a = await s.post('/v1/messages', dmMessage(['alpha', 'gamma'], 'beta', 'one'), WRITER);
  const b = await s.post('/v1/messages', dmMessage(['svc://testnet/agents/beta', 'testnet:gamma'], 'alpha', 'two'), ALPHA);
  assert.equal([a.body.dm_created, b.body.dm_created], [true, false]);
  const ms = (await s.get('/v1/dms', ADMIN)).body.dms.filter((d: Json) => d.participant_ids.length === 3);
  assert.is(ms.length, 1);
  assert.equal(ms[0].participant_ids, ['testnet:alpha', 'testnet:beta', 'testnet:gamma']);
  assert.is(ms[0].message_count, 2);
  const byId = await s.post('/v1/messages', { ...dmMessage([], 'gamma', 'three'), target: { kind: 'dm', dm_id: ms[0].id } }, WRITER);
  assert.equal([byId.status, byId.body.dm_created], [200, false]);
  assert.is((await s.get(`/v1/dms/${ms[0].id}/messages`, ADMIN)).body.messages.length, 3);
});

send('a DM send by a non-participant, to an unknown id or to nobody else is refused', async ({ s }) => {
  const a = await s.post('/v1/messages', dmMessage(['beta'], 'alpha', 'x'), ALPHA);
  const id = (await s.get('/v1/dms', ALPHA)).body.dms.find((d: Json) => d.participant_ids.join() === 'testnet:alpha,testnet:beta').id;
  assert.is(a.status, 200);
  const outsider = await s.post('/v1/messages', { ...dmMessage([], 'ops', 'x'), target: { kind: 'dm', dm_id: id } }, WRITER);
  assert.is(outsider.status, 403);
  const unknown = await s.post('/v1/messages', { ...dmMessage([], 'ops', 'x'), target: { kind: 'dm', dm_id: 'dm_nope' } }, WRITER);
  assert.is(unknown.status, 404);
  const self = await s.post('/v1/messages', dmMessage(['alpha'], 'alpha', 'me'), ALPHA);
  assert.is(self.status, 400);
  const neither = await s.post('/v1/messages', { ...dmMessage([], 'alpha', 'x'), target: { kind: 'dm' } }, ALPHA);
  assert.is(neither.status, 400);
  const mismatch = await s.post('/v1/messages', dmMessage(['beta'], 'alpha', 'x', { dm_id: 'dm_other' }), ALPHA);
  assert.is(mismatch.status, 400);
  assert.match(mismatch.body.error, /^body\.target\.dm_id:/);
  const badMember = await s.post('/v1/messages', dmMessage(['ok', 'not valid'], 'alpha', 'x'), ALPHA);
  assert.is(badMember.status, 400);
  assert.match(badMember.body.error, /^body\.target\.participant_ids\[1\]:/);
});

send('an unknown DM id is 404 on DM routes; a DM the caller is not in is 404 too', async ({ s }) => {
  assert.is((await s.get('/v1/dms/dm_nope', ADMIN)).status, 404);
  assert.is((await s.get('/v1/dms/dm_nope/messages', ADMIN)).status, 404);
  await s.post('/v1/messages', dmMessage(['zed'], 'ops', 'secret'), WRITER);
  const id = (await s.get('/v1/dms', ADMIN)).body.dms.find((d: Json) => d.participant_ids.join() === 'testnet:ops,testnet:zed').id;
  assert.is((await s.get(`/v1/dms/${id}`, ALPHA)).status, 404);
  assert.is((await s.get(`/v1/dms/${id}/messages`, ALPHA)).status, 404);
  assert.is((await s.get(`/v1/artifacts?dm_id=${id}`, ALPHA)).status, 404);
  assert.not.ok((await s.get('/v1/dms', ALPHA)).body.dms.some((d: Json) => d.id === id));
});

// ---- mentions -------------------------------------------------------------------------------------

send('mentions resolve @id, @network:id, <@fqid> and the explicit field; ambiguous and unknown are dropped', async ({ s }) => {
  const text = 'hey @alpha, @testnet:gen and <@svc://testnet/agents/ops>; @beta is ambiguous, @zed unknown, mail x@data.bot';
  const r = await s.post(
    '/v1/messages',
    { ...roomMessage('general', 'alpha', text), mentions: ['data.bot', 'other:beta', 'nobody', 'svc://testnet/agents/zed'] },
    ALPHA,
  );
  assert.is(r.status, 200, r.text);
  const m = (await history(s, '/v1/rooms/general/messages')).find((x) => x.id === r.body.message_id);
  assert.equal(m.mentions, [
    'svc://testnet/agents/alpha',
    'svc://testnet/agents/gen',
    'svc://testnet/agents/ops',
    'svc://testnet/agents/data.bot',
    'svc://other/agents/beta',
  ]);
  assert.is(m.parts[0].text, text);
});

send('a message whose mentions all fail to resolve is still accepted', async ({ s }) => {
  const r = await s.post(
    '/v1/messages',
    { ...roomMessage('members-room', 'alpha', '@nobody @x:y <@svc://z/agents/q>'), mentions: ['@alpha', 'bad id!'] },
    ALPHA,
  );
  assert.is(r.status, 200, r.text);
  const m = (await history(s, '/v1/rooms/members-room/messages')).find((x) => x.id === r.body.message_id);
  assert.equal(m.mentions, []);
});

send('mentions in a DM resolve against its participants', async ({ s }) => {
  const r = await s.post('/v1/messages', dmMessage(['beta'], 'alpha', '@beta and @gen'), ALPHA);
  const dmId = (await s.get('/v1/dms', ALPHA)).body.dms.find((d: Json) => d.participant_ids.join() === 'testnet:alpha,testnet:beta').id;
  const m = (await s.get(`/v1/dms/${dmId}/messages`, ALPHA)).body.messages.find((x: Json) => x.id === r.body.message_id);
  assert.equal(m.mentions, ['svc://testnet/agents/beta']);
});

// ---- artifacts ------------------------------------------------------------------------------------

send('every non-text part becomes an artifact with its part index', async ({ s }) => {
  const parts = [
    { kind: 'text', text: 'see attached' },
    { kind: 'file', url: 'https://x.test/report.pdf', media_type: 'application/pdf', filename: 'report.pdf' },
    { kind: 'image', url: 'https://x.test/p.png', media_type: 'image/png' },
    { kind: 'text', text: 'and' },
    { kind: 'url', url: 'https://x.test/' },
    { kind: 'data', data: { k: 1 } },
    { kind: 'audio', filename: 'a.ogg' },
  ];
  await s.post('/v1/rooms', { id: 'files', members: ['ops'] }, ADMIN);
  const r = await s.post('/v1/messages', { target: { kind: 'room', room_id: 'files' }, from: { type: 'agent', id: 'ops' }, parts }, ADMIN);
  assert.is(r.status, 200, r.text);
  const msg = (await history(s, '/v1/rooms/files/messages'))[0];
  const arts = (await s.get('/v1/artifacts?room_id=files', OBS)).body.artifacts as Json[];
  assert.equal(
    arts.map((a) => [a.part_index, a.kind]),
    [
      [1, 'file'],
      [2, 'image'],
      [4, 'url'],
      [5, 'data'],
      [6, 'audio'],
    ],
  );
  for (const a of arts) {
    assert.match(a.fqid, new RegExp(`^svc://testnet/artifacts/${a.id}$`));
    assert.is(a.network_id, 'testnet');
    assert.is(a.message_id, r.body.message_id);
    assert.equal(a.target, { kind: 'room', room_id: 'files' });
    assert.is(a.created_at, msg.created_at);
  }
  assert.equal(
    { ...arts[0], id: 'x', fqid: 'x', created_at: 'x' },
    {
      id: 'x',
      network_id: 'testnet',
      fqid: 'x',
      message_id: r.body.message_id,
      target: { kind: 'room', room_id: 'files' },
      part_index: 1,
      kind: 'file',
      media_type: 'application/pdf',
      filename: 'report.pdf',
      url: 'https://x.test/report.pdf',
      created_at: 'x',
    },
  );
  assert.equal(Object.keys(arts[4]).sort(), [
    'created_at',
    'filename',
    'fqid',
    'id',
    'kind',
    'message_id',
    'network_id',
    'part_index',
    'target',
  ]);
});

send('artifacts are listed by room (with its threads), by thread and by DM; a text-only message has none', async ({ s }) => {
  await s.post('/v1/rooms', { id: 'arts', members: ['ops'] }, ADMIN);
  const file = (n: string) => [{ kind: 'file', url: `https://x.test/${n}` }];
  await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: 'arts' }, from: { type: 'agent', id: 'ops' }, parts: file('room') },
    ADMIN,
  );
  await s.post(
    '/v1/messages',
    { target: { kind: 'thread', room_id: 'arts', thread_id: 'arts-t' }, from: { type: 'agent', id: 'ops' }, parts: file('thread') },
    ADMIN,
  );
  await s.post('/v1/messages', roomMessage('arts', 'ops', 'text only'), ADMIN);
  await s.post(
    '/v1/messages',
    { target: { kind: 'dm', participant_ids: ['arty'] }, from: { type: 'agent', id: 'ops' }, parts: file('dm') },
    ADMIN,
  );
  const dmId = (await s.get('/v1/dms', ADMIN)).body.dms.find((d: Json) => d.participant_ids.includes('testnet:arty')).id;
  const urls = async (q: string) => (await s.get(`/v1/artifacts?${q}`, ADMIN)).body.artifacts.map((a: Json) => a.url);
  assert.equal(await urls('room_id=arts'), ['https://x.test/room', 'https://x.test/thread']);
  assert.equal(await urls('thread_id=arts-t'), ['https://x.test/thread']);
  assert.equal(await urls(`dm_id=${dmId}`), ['https://x.test/dm']);
  const dmArt = (await s.get(`/v1/artifacts?dm_id=${dmId}`, ADMIN)).body.artifacts[0];
  assert.equal(dmArt.target, { kind: 'dm', dm_id: dmId, participant_ids: ['testnet:arty', 'testnet:ops'] });
  const none = await s.get('/v1/artifacts', ADMIN);
  assert.is(none.status, 400);
  assert.is(none.body.code, 'bad_request');
});

// ---- who may send as whom, and write policies ---------------------------------------------------

send('a static token may send as an unregistered local agent but not as one another credential owns', async (c) => {
  const { s } = c;
  assert.is((await s.post('/v1/messages', roomMessage('general', 'ops', 'x'), WRITER)).status, 200);
  const owned = await s.post('/v1/messages', roomMessage('general', 'alpha', 'x'), WRITER);
  assert.is(owned.status, 403);
  assert.is(owned.body.code, 'forbidden');
  assert.is((await s.post('/v1/messages', roomMessage('general', 'gen', 'x'), ADMIN)).status, 403);
});

send('an allowlisted token sends only as its listed agents', async ({ s }) => {
  assert.is((await s.post('/v1/messages', roomMessage('general', 'alpha', 'x'), ALPHA)).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('general', 'beta', 'x'), ALPHA)).status, 403);
});

send('an agent token sends only as its own agent', async ({ s, gen }) => {
  assert.is((await s.post('/v1/messages', roomMessage('general', 'gen', 'x'), gen)).status, 200);
  for (const who of ['alpha', 'ops', 'unregistered-x'])
    assert.is((await s.post('/v1/messages', roomMessage('general', who, 'x'), gen)).status, 403, who);
});

send('members policy: members write; non-members need an admin+write operator', async ({ s, gen }) => {
  assert.is((await s.post('/v1/messages', roomMessage('members-room', 'alpha', 'x'), ALPHA)).status, 200);
  const r = await s.post('/v1/messages', roomMessage('members-room', 'ops', 'x'), WRITER);
  assert.is(r.status, 403);
  assert.match(r.body.error, /write_policy: members/);
  assert.is((await s.post('/v1/messages', roomMessage('members-room', 'gen', 'x'), gen)).status, 403);
  assert.is((await s.post('/v1/messages', roomMessage('members-room', 'ops', 'x'), ADMIN)).status, 200);
});

send('registered_agents policy: registered local agents write with their credential; unregistered senders do not', async ({ s, gen }) => {
  assert.is((await s.post('/v1/messages', roomMessage('registered-room', 'gen', 'x'), gen)).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('registered-room', 'alpha', 'x'), ALPHA)).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('registered-room', 'ops', 'x'), WRITER)).status, 403);
  assert.is((await s.post('/v1/messages', roomMessage('registered-room', 'ops', 'x'), ADMIN)).status, 200);
});

send('operators policy: static write credentials write; agent tokens cannot, even for members', async ({ s, gen }) => {
  const r = await s.post('/v1/messages', roomMessage('operators-room', 'gen', 'x'), gen);
  assert.is(r.status, 403);
  assert.match(r.body.error, /write_policy: operators/);
  assert.is((await s.post('/v1/messages', roomMessage('operators-room', 'ops', 'x'), WRITER)).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('operators-room', 'alpha', 'x'), ALPHA)).status, 200);
});

send('the write policy also governs threads of the room', async ({ s, gen }) => {
  assert.is((await s.post('/v1/messages', threadMessage('operators-room', 'op-t', 'gen', 'x'), gen)).status, 403);
  assert.is((await s.get('/v1/threads/op-t', ADMIN)).status, 404, 'a refused first message creates no thread');
  assert.is((await s.post('/v1/messages', threadMessage('members-room', 'mem-t', 'ops', 'x'), WRITER)).status, 403);
});

send('a human send needs a static write token without an agents allowlist', async ({ s, gen }) => {
  const human = (room: string) => ({
    target: { kind: 'room', room_id: room },
    from: { type: 'human', id: 'alice', name: 'Alice' },
    parts: [{ kind: 'text', text: 'hi from a person' }],
  });
  const ok = await s.post('/v1/messages', human('operators-room'), WRITER);
  assert.is(ok.status, 200, ok.text);
  const m = (await history(s, '/v1/rooms/operators-room/messages')).find((x) => x.id === ok.body.message_id);
  assert.equal(
    { type: m.from.type, id: m.from.id, name: m.from.name, network_id: m.from.network_id },
    { type: 'human', id: 'alice', name: 'Alice', network_id: 'testnet' },
  );
  assert.is((await s.post('/v1/messages', human('general'), ADMIN)).status, 200);
  assert.is((await s.post('/v1/messages', human('operators-room'), ALPHA)).status, 403);
  assert.is((await s.post('/v1/messages', human('operators-room'), gen)).status, 403);
});

send("a person named in a room's members may write there with a write-only token; a person not named may not", async ({ s }) => {
  const asHuman = (room: string, id: string) => ({
    target: { kind: 'room', room_id: room },
    from: { type: 'human', id },
    parts: [{ kind: 'text', text: 'x' }],
  });
  // beta is a member of general (members policy) and not a registered agent, so the id names this person.
  const r = await s.post('/v1/messages', asHuman('general', 'beta'), WRITER);
  assert.is(r.status, 200, r.text);
  const other = await s.post('/v1/messages', asHuman('general', 'zoe'), WRITER);
  assert.is(other.status, 403, other.text);
  assert.match(other.body.error, /zoe is not a member of room general/);
  // An admin+write token may still write as any person into a members room.
  assert.is((await s.post('/v1/messages', asHuman('general', 'zoe'), ADMIN)).status, 200);
});

send('a person cannot borrow a registered agent id, in a room or a DM', async ({ s }) => {
  const asHuman = (target: Json) => ({ target, from: { type: 'human', id: 'gen' }, parts: [{ kind: 'text', text: 'x' }] });
  for (const target of [
    { kind: 'room', room_id: 'general' },
    { kind: 'dm', participant_ids: ['alpha'] },
  ]) {
    const r = await s.post('/v1/messages', asHuman(target), ADMIN);
    assert.is(r.status, 403, r.text);
    assert.match(r.body.error, /registered agent id/);
  }
  const dm = await s.post(
    '/v1/messages',
    { target: { kind: 'dm', participant_ids: ['alpha'] }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text: 'psst' }] },
    ADMIN,
  );
  assert.is(dm.status, 200, dm.text);
});

send('a sender claiming another network or a relay origin is refused without a pairing', async ({ s }) => {
  const remote = await s.post(
    '/v1/messages',
    { ...roomMessage('general', 'beta', 'x'), from: { type: 'agent', id: 'beta', network_id: 'other' } },
    ADMIN,
  );
  assert.is(remote.status, 403);
  const origin = await s.post(
    '/v1/messages',
    { ...roomMessage('general', 'ops', 'x'), origin: { network_id: 'other', message_id: 'm1' } },
    ADMIN,
  );
  assert.is(origin.status, 403);
  assert.is((await s.post('/v1/messages', roomMessage('general', 'ops', 'x'), TOKENS.pair.value)).status, 403);
});

// ---- DMs and human ingress switched off -----------------------------------------------------------

const off = suite<{ s: AppServer }>('with direct messages and human ingress switched off');
off.before(async (c) => {
  c.s = await startApp({
    config: { server: { direct_messages: false, human_ingress: false }, rooms: [{ id: 'general', members: ['ops'] }] },
  });
});
off.after(async (c) => c.s?.dispose());

off('DM routes answer 403 for every caller', async ({ s }) => {
  for (const token of [ADMIN, OBS, ALPHA, undefined]) {
    for (const p of ['/v1/dms', '/v1/dms/dm_x', '/v1/dms/dm_x/messages']) {
      const r = await s.get(p, token);
      assert.is(r.status, 403, `${p} ${token ?? 'anonymous'}`);
      assert.is(r.body.code, 'forbidden');
    }
  }
});

off('an invalid Authorization header on a DM route is still 401, not the DMs-off 403', async ({ s }) => {
  for (const p of ['/v1/dms', '/v1/dms/dm_x', '/v1/dms/dm_x/messages', '/v1/artifacts?dm_id=dm_x']) {
    const r = await s.get(p, 'tok-not-valid-000');
    assert.is(r.status, 401, p);
    assert.is(r.body.code, 'unauthorized');
  }
});

off('DM sends and artifacts by dm_id answer 403', async ({ s }) => {
  const r = await s.post('/v1/messages', dmMessage(['beta'], 'ops', 'x'), ADMIN);
  assert.is(r.status, 403, r.text);
  const byId = await s.post('/v1/messages', { ...dmMessage([], 'ops', 'x'), target: { kind: 'dm', dm_id: 'dm_x' } }, ADMIN);
  assert.is(byId.status, 403);
  assert.is((await s.get('/v1/artifacts?dm_id=dm_x', ADMIN)).status, 403);
  assert.is((await s.get('/v1/artifacts?room_id=general', ADMIN)).status, 200);
});

off('human sends answer 403 while agent sends still work', async ({ s }) => {
  const human = {
    target: { kind: 'room', room_id: 'general' },
    from: { type: 'human', id: 'alice' },
    parts: [{ kind: 'text', text: 'x' }],
  };
  const r = await s.post('/v1/messages', human, ADMIN);
  assert.is(r.status, 403);
  assert.match(r.body.error, /human_ingress/);
  assert.is((await s.post('/v1/messages', roomMessage('general', 'ops', 'x'), ADMIN)).status, 200);
});

off('the network document says both are off', async ({ s }) => {
  const d = (await s.get('/v1/network', ADMIN)).body;
  assert.equal([d.capabilities.direct_messages, d.capabilities.human_ingress, d.console.can_send_human], [false, false, false]);
});

send.run();
off.run();
