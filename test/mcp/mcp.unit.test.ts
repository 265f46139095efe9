// The pure parts of `svc mcp`: which conversation tool arguments name, how messages read for a
// model, how unread counts are taken, and the registration snippets.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ArgumentError, readTarget, sendBody, sendPlan } from '../../src/mcp/args.js';
import { groupedLines, messageView, selfOf, textOf } from '../../src/mcp/format.js';
import { dmOfParticipants } from '../../src/mcp/messages.js';
import { registrationSnippet } from '../../src/cli/commands/connect/print-config.js';
import { BUFFER_MAX, Inbox, type Delivered } from '../../src/mcp/inbox.js';
import { unreadIn } from '../../src/mcp/read-markers.js';
import type { Message } from '../../src/protocol/types.js';

const self = selfOf('home', 'beta');

function msg(over: Partial<Message> & { id: string; text?: string }): Message {
  return {
    network_id: 'home',
    target: { kind: 'room', room_id: 'general' },
    from: { type: 'agent', id: 'alpha', network_id: 'home', fqid: 'svc://home/agents/alpha' },
    parts: [{ kind: 'text', text: over.text ?? 'hi' }],
    mentions: [],
    created_at: '2026-11-24T03:41:07.123Z',
    ...over,
  };
}

const args = suite('tool arguments');

args('read_messages needs exactly one of room_id, thread_id or dm_id', () => {
  assert.equal(readTarget({ room_id: 'general' }), { kind: 'room', id: 'general' });
  assert.equal(readTarget({ thread_id: 't1' }), { kind: 'thread', id: 't1' });
  assert.equal(readTarget({ dm_id: 'dm_1', room_id: '' }), { kind: 'dm', id: 'dm_1' });
  assert.throws(() => readTarget({}), /exactly one of room_id, thread_id or dm_id \(got none\)/);
  assert.throws(() => readTarget({ room_id: 'a', dm_id: 'b' }), /\(got room_id and dm_id\)/);
});

args('send_message places a message in a room, a thread, a new thread, a DM by participants or by id', () => {
  assert.equal(sendPlan({ text: 'x', room_id: 'general' }), { kind: 'room', room_id: 'general' });
  assert.equal(sendPlan({ text: 'x', thread_id: 't1' }), { kind: 'thread', thread_id: 't1' });
  assert.equal(sendPlan({ text: 'x', thread_id: 't2', room_id: 'general', parent_message_id: 'm1' }), {
    kind: 'thread',
    thread_id: 't2',
    room_id: 'general',
    parent_message_id: 'm1',
  });
  assert.equal(sendPlan({ text: 'x', dm_with: ['alpha'] }), { kind: 'dm', participant_ids: ['alpha'] });
  assert.equal(sendPlan({ text: 'x', dm_id: 'dm_1' }), { kind: 'dm', dm_id: 'dm_1' });
});

args('send_message refuses arguments that name no place, two places, or an empty text, saying what to pass', () => {
  assert.throws(() => sendPlan({ text: 'x' }), /say where: pass room_id, thread_id .* dm_with .* or dm_id/);
  assert.throws(
    () => sendPlan({ text: 'x', thread_id: 't', dm_with: ['a'] }),
    /only one of thread_id, dm_with or dm_id \(got thread_id and dm_with\)/,
  );
  assert.throws(() => sendPlan({ text: 'x', room_id: 'r', dm_id: 'd' }), /room_id or a DM/);
  assert.throws(() => sendPlan({ text: '  ', room_id: 'r' }), /text: must not be empty/);
  assert.throws(() => sendPlan({ text: 'x', room_id: 'r', parent_message_id: 'm' }), /pass it with thread_id/);
  try {
    sendPlan({ text: 'x' });
  } catch (err) {
    assert.instance(err, ArgumentError);
  }
});

args('the send body names this agent as sender, and a thread without a known room asks for room_id', () => {
  assert.equal(sendBody({ kind: 'room', room_id: 'general' }, undefined, 'beta', { text: 'hello', mentions: ['alpha', ''] }), {
    target: { kind: 'room', room_id: 'general' },
    from: { type: 'agent', id: 'beta' },
    parts: [{ kind: 'text', text: 'hello' }],
    mentions: ['alpha'],
  });
  assert.equal(sendBody({ kind: 'thread', thread_id: 't1' }, 'general', 'beta', { text: 'x' }).target, {
    kind: 'thread',
    room_id: 'general',
    thread_id: 't1',
  });
  assert.throws(
    () => sendBody({ kind: 'thread', thread_id: 't9' }, undefined, 'beta', { text: 'x' }),
    /thread t9 does not exist yet: to start it pass room_id and parent_message_id/,
  );
});

args('a DM by participants lands in the id the server derives (sender included, sorted, scoped)', () => {
  const a = dmOfParticipants(self, ['alpha']);
  const b = dmOfParticipants(selfOf('home', 'alpha'), ['home:beta']);
  assert.equal(a, b);
  assert.equal(a.kind === 'dm' && a.participant_ids, ['home:alpha', 'home:beta']);
  assert.match(a.kind === 'dm' ? a.dm_id : '', /^dm_[0-9a-f]{20}$/);
  assert.equal(dmOfParticipants(self, ['svc://home/agents/alpha']), a);
});

const fmt = suite('messages as a model reads them');

fmt('non-text parts become short bracketed notes', () => {
  assert.is(
    textOf([
      { kind: 'text', text: 'see' },
      { kind: 'url', url: 'https://x.example/a' },
      { kind: 'file', filename: 'r.pdf', media_type: 'application/pdf' },
      { kind: 'data', data: { a: 1 } },
    ]),
    'see\n[url: https://x.example/a]\n[file: r.pdf (application/pdf)]\n[data {"a":1}]',
  );
});

fmt('a message says why it is for this agent: a mention, a DM, or neither (never its own)', () => {
  assert.is(messageView(msg({ id: 'm1', mentions: ['svc://home/agents/beta'] }), self).for_me, 'mention');
  assert.is(
    messageView(msg({ id: 'm2', target: { kind: 'dm', dm_id: 'd', participant_ids: ['home:alpha', 'home:beta'] } }), self).for_me,
    'dm',
  );
  assert.is(messageView(msg({ id: 'm3' }), self).for_me, null);
  const own = msg({
    id: 'm4',
    from: { type: 'agent', id: 'beta', network_id: 'home', fqid: 'svc://home/agents/beta' },
    mentions: ['svc://home/agents/beta'],
  });
  assert.is(messageView(own, self).for_me, null);
});

fmt('messages are grouped by conversation, each headed by where it is and how to reply there', () => {
  const views = [
    msg({ id: 'm1', text: 'hello @beta\nsecond line', mentions: ['svc://home/agents/beta'] }),
    msg({
      id: 'm2',
      target: { kind: 'dm', dm_id: 'dm_9', participant_ids: ['home:alpha', 'home:beta'] },
      text: 'psst',
      created_at: '2026-11-24T03:42:00.000Z',
    }),
    msg({
      id: 'm3',
      target: { kind: 'thread', room_id: 'general', thread_id: 't1' },
      from: { type: 'human', id: 'ann', name: 'Ann', network_id: 'home', fqid: 'x' },
      text: 'ok',
    }),
    msg({ id: 'm4', text: 'again' }),
  ].map((m) => messageView(m, self));
  assert.equal(groupedLines(views, self), [
    'room general · reply with send_message room_id="general"',
    '- m1 · 2026-11-24 03:41:07Z · alpha · mentions you:',
    '  hello @beta',
    '  second line',
    '- m4 · 2026-11-24 03:41:07Z · alpha:',
    '  again',
    '',
    'DM dm_9 with alpha · reply with send_message dm_id="dm_9"',
    '- m2 · 2026-11-24 03:42:00Z · alpha:',
    '  psst',
    '',
    'thread t1 (room general) · reply with send_message thread_id="t1"',
    '- m3 · 2026-11-24 03:41:07Z · ann (Ann) [human]:',
    '  ok',
  ]);
});

const unread = suite('unread counts');
const page = (n: number, ownAt: number[] = []) =>
  Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    created_at: `2026-11-24T00:00:${String(i).padStart(2, '0')}Z`,
    own: ownAt.includes(i),
  }));

unread("messages after the marker count, except this agent's own", () => {
  assert.equal(unreadIn(page(5, [4]), { id: 'm1', at: '2026-11-24T00:00:01Z' }, '2000-01-01T00:00:00Z', false), { count: 2, more: false });
});

unread('without a marker, messages since the markers began count', () => {
  assert.equal(unreadIn(page(5), undefined, '2026-11-24T00:00:02Z', false), { count: 2, more: false });
});

unread('a marker no longer in the window falls back to its time, and a full unread window is a lower bound', () => {
  assert.equal(unreadIn(page(5), { id: 'gone', at: '2026-11-24T00:00:03Z' }, '2000-01-01T00:00:00Z', false), { count: 1, more: false });
  assert.equal(unreadIn(page(5), undefined, '2000-01-01T00:00:00Z', true), { count: 5, more: true });
});

const snippets = suite('registration snippets');
const reg = { name: 'svc', command: 'svc', args: ['mcp', '--url', 'http://127.0.0.1:8787', '--agent', 'alpha'], env: { SVC_TOKEN: 'tok' } };

snippets('claude: the .mcp.json entry, and where it goes with the claude mcp add alternative', () => {
  const { snippet, where } = registrationSnippet('claude', reg);
  assert.equal(JSON.parse(snippet.join('\n')), { mcpServers: { svc: { command: 'svc', args: reg.args, env: { SVC_TOKEN: 'tok' } } } });
  assert.match(snippet.join('\n'), /"args": \["mcp", "--url", "http:\/\/127.0.0.1:8787", "--agent", "alpha"\],/);
  assert.is(where[1], '  claude mcp add --scope project -e SVC_TOKEN=tok svc -- svc mcp --url http://127.0.0.1:8787 --agent alpha');
});

snippets('codex: an mcp_servers table with a tool timeout above the longest wait', () => {
  assert.equal(registrationSnippet('codex', reg).snippet, [
    '[mcp_servers.svc]',
    'command = "svc"',
    'args = ["mcp", "--url", "http://127.0.0.1:8787", "--agent", "alpha"]',
    'tool_timeout_sec = 330',
    '',
    '[mcp_servers.svc.env]',
    'SVC_TOKEN = "tok"',
  ]);
});

snippets('cursor: the mcpServers JSON, without env when there is no token', () => {
  const { snippet, where } = registrationSnippet('cursor', { ...reg, env: {} });
  assert.equal(JSON.parse(snippet.join('\n')), { mcpServers: { svc: { command: 'svc', args: reg.args } } });
  assert.match(where[0]!, /\.cursor\/mcp\.json/);
});

const inbox = suite('the inbox of wait_for_messages');

function delivered(cursor: number, m: Message, acks: number[]): Delivered {
  return {
    cursor: String(cursor),
    event: { id: `ev${cursor}`, type: 'message.created', network_id: 'home', created_at: m.created_at, message: m },
    ack: () => acks.push(cursor),
  };
}
const mention = (id: string) => msg({ id, mentions: ['svc://home/agents/beta'] });

inbox('a call returns at once what is waiting in scope, acknowledging everything it consumed', async () => {
  const acks: number[] = [];
  const box = new Inbox({ self, flush: async () => undefined });
  box.push(delivered(1, msg({ id: 'chatter' }), acks));
  box.push(delivered(2, mention('m2'), acks));
  await new Promise((r) => setTimeout(r, 200)); // past the quiet time: nothing is still arriving
  // At once: settled within two turns of the event loop (the frames already read are pushed first),
  // so no timer was waited on.
  let settled = false;
  const waiting = box.wait('mentions', 5000).finally(() => (settled = true));
  for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
  assert.ok(settled, 'the call returned without waiting');
  const r = await waiting;
  assert.equal(
    r.messages.map((m) => m.id),
    ['m2'],
  );
  assert.equal(acks, [1, 2]);
  assert.equal((await box.wait('all', 0)).messages, [], 'nothing twice');
});

inbox('a timeout consumes out-of-scope traffic, so the next call starts from now', async () => {
  const acks: number[] = [];
  const box = new Inbox({ self, flush: async () => undefined });
  box.push(delivered(1, msg({ id: 'chatter' }), acks));
  const r = await box.wait('mentions', 50);
  assert.equal(r, { messages: [], timedOut: true });
  assert.equal(acks, [1]);
});

inbox('live, a wait returns on arrival with what came in the same read; the rest waits whole for the next call', async () => {
  const acks: number[] = [];
  const box = new Inbox({ self, flush: async () => undefined });
  const waiting = box.wait('all', 5000);
  setTimeout(() => {
    box.push(delivered(1, mention('a'), acks));
    box.push(delivered(1, mention('a'), acks));
    box.push(
      delivered(2, msg({ id: 'own', from: { type: 'agent', id: 'beta', network_id: 'home', fqid: 'svc://home/agents/beta' } }), acks),
    );
    setTimeout(() => box.push(delivered(3, msg({ id: 'b' }), acks)), 40);
    setTimeout(() => box.push(delivered(4, msg({ id: 'c' }), acks)), 60);
  }, 20);
  const r = await waiting;
  assert.equal(
    r.messages.map((m) => m.id),
    ['a'],
    'a repeated cursor counts once; the wait did not hold for what came 40 ms later',
  );
  assert.equal(acks, [1, 2]);
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(
    (await box.wait('all', 5000)).messages.map((m) => m.id),
    ['b', 'c'],
  );
  assert.equal(acks, [1, 2, 3, 4]);
});

inbox('after READY, the replay is returned whole: the wait holds until arrivals are quiet', async () => {
  const acks: number[] = [];
  const box = new Inbox({ self, flush: async () => undefined });
  box.attached();
  const waiting = box.wait('all', 5000);
  box.push(delivered(1, mention('a'), acks));
  setTimeout(() => box.push(delivered(2, msg({ id: 'b' }), acks)), 40);
  setTimeout(() => box.push(delivered(3, msg({ id: 'c' }), acks)), 80);
  assert.equal(
    (await waiting).messages.map((m) => m.id),
    ['a', 'b', 'c'],
  );
  assert.equal(acks, [1, 2, 3]);
});

inbox('an aborted wait consumes nothing, and a failed attachment fails the wait with its reason', async () => {
  const acks: number[] = [];
  let failure: Error | undefined;
  const box = new Inbox({ self, flush: async () => undefined, failure: () => failure });
  box.push(delivered(1, msg({ id: 'chatter' }), acks));
  const ac = new AbortController();
  const waiting = box.wait('mentions', 5000, ac.signal);
  setTimeout(() => ac.abort(), 20);
  assert.match(
    await waiting.then(
      () => 'resolved',
      (e: Error) => e.message,
    ),
    /cancelled/,
  );
  assert.equal(acks, []);
  const failing = box.wait('mentions', 5000);
  setTimeout(() => {
    failure = new Error('live delivery stopped: 403');
    box.interrupt();
  }, 20);
  assert.match(
    await failing.then(
      () => 'resolved',
      (e: Error) => e.message,
    ),
    /live delivery stopped: 403/,
  );
});

inbox('an agent that never waits keeps at most BUFFER_MAX events, shedding room traffic before mentions', () => {
  const acks: number[] = [];
  const box = new Inbox({ self, flush: async () => undefined });
  box.push(delivered(0, mention('kept'), acks));
  for (let i = 1; i <= BUFFER_MAX + 2; i++) box.push(delivered(i, msg({ id: `c${i}` }), acks));
  assert.equal(acks, [1, 2, 3]);
  assert.equal(
    box.pending('mentions').map((m) => m.id),
    ['kept'],
  );
  assert.is(box.pending('all').length, BUFFER_MAX);
});

args.run();
fmt.run();
unread.run();
snippets.run();
inbox.run();
