// Pure parts of `svc agent run`: flags, which events wake it, the prompt, the environment, the reply
// id, and the argv of the runtime presets.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDuration, parseDuration, parseWake, wakes } from '../../src/agent-run/options.js';
import { codexSessionId, presetPlan, sessionUuid } from '../../src/agent-run/presets.js';
import { promptOf, replyIdOf, replyTarget, runEnv } from '../../src/agent-run/prompt.js';
import { describeRun } from '../../src/agent-run/runner.js';
import { helpAt, svcProgram } from '../helpers/help-text.js';
import type { AttachedEvent } from '../../src/client/index.js';
import type { Message } from '../../src/protocol/types.js';

const msg = (o: Partial<Message> & { text?: string } = {}): Message => ({
  id: 'm1',
  network_id: 'home',
  target: { kind: 'room', room_id: 'general' },
  from: { type: 'agent', id: 'beta', network_id: 'home', fqid: 'svc://home/agents/beta' },
  parts: [{ kind: 'text', text: o.text ?? 'hello' }],
  mentions: [],
  created_at: '2026-11-24T04:00:00.000Z',
  ...o,
});
const ev = (m: Message, wake?: 'mention' | 'dm'): AttachedEvent => ({
  cursor: '1',
  event: { id: 'e', type: 'message.created', network_id: 'home', created_at: '', message: m },
  ...(wake ? { wake } : {}),
  ack: () => undefined,
});

const opts = suite('agent run flags and wakes');

opts('parses --wake lists and --timeout durations, refusing nonsense', () => {
  assert.equal([...parseWake('mentions,dms')], ['mentions', 'dms']);
  assert.throws(() => parseWake('everything'), /--wake: everything is not one of mentions, dms, all/);
  assert.is(parseDuration('10m'), 600_000);
  assert.is(parseDuration('90s'), 90_000);
  assert.is(parseDuration('1h'), 3_600_000);
  assert.is(parseDuration('250ms'), 250);
  assert.is(parseDuration('2'), 2000);
  assert.throws(() => parseDuration('soon'), /--timeout: soon is not a duration/);
  assert.is(formatDuration(850), '850ms');
  assert.is(formatDuration(12_340), '12.3s');
  assert.is(formatDuration(245_000), '4m05s');
});

opts('wakes on mentions and DMs by default, never on its own messages, and only in --rooms', () => {
  const agent = { network_id: 'home', id: 'alpha' };
  const f = { wake: parseWake('mentions,dms'), rooms: [], agent };
  assert.ok(wakes(ev(msg(), 'mention'), f));
  assert.ok(wakes(ev(msg({ target: { kind: 'dm', dm_id: 'dm_1', participant_ids: ['home:alpha', 'home:beta'] } }), 'dm'), f));
  assert.not.ok(wakes(ev(msg()), f), 'plain room traffic');
  assert.not.ok(wakes(ev(msg(), 'dm'), { ...f, wake: parseWake('mentions') }));
  assert.ok(wakes(ev(msg()), { ...f, wake: parseWake('all') }));
  assert.not.ok(
    wakes(ev(msg({ from: { type: 'agent', id: 'alpha', network_id: 'home', fqid: '' } })), { ...f, wake: parseWake('all') }),
    'its own message',
  );
  assert.not.ok(wakes(ev(msg(), 'mention'), { ...f, rooms: ['ops'] }));
  assert.ok(wakes(ev(msg({ target: { kind: 'thread', room_id: 'ops', thread_id: 't' } }), 'mention'), { ...f, rooms: ['ops'] }));
});

opts.run();

const prompt = suite('what a run gets');

prompt('the prompt names who and where, gives context, then the new messages with their ids', () => {
  const recent = [
    msg({ id: 'm0', text: 'earlier', from: { type: 'human', id: 'ops', network_id: 'home', fqid: '' } }),
    msg({ id: 'm1', text: '@alpha status?' }),
  ];
  assert.is(
    promptOf({ networkId: 'home', agentId: 'alpha', wakes: [recent[1]!], recent }),
    [
      'You are agent alpha on the svc network home.',
      'Conversation: room general (session key service:home:room:general).',
      '',
      'Recent messages, oldest first:',
      '[2026-11-24T04:00:00.000Z] ops (human) (id m0): earlier',
      '',
      'New message for you:',
      '[2026-11-24T04:00:00.000Z] beta (id m1): @alpha status?',
      '',
      'Write your reply. Whatever you print is posted in this conversation as your message; print nothing to stay silent.',
      '',
    ].join('\n'),
  );
});

prompt('the environment names the conversation, its session key, the message ids and the reply id', () => {
  const t = { kind: 'thread' as const, room_id: 'general', thread_id: 't1' };
  const env = runEnv(
    { networkId: 'home', agentId: 'alpha', wakes: [msg({ id: 'a', target: t }), msg({ id: 'b', target: t })] },
    { url: 'http://x', token: 'tok', replyId: 'r' },
  );
  assert.equal(env, {
    SVC_URL: 'http://x',
    SVC_TOKEN: 'tok',
    SVC_NETWORK: 'home',
    SVC_AGENT: 'alpha',
    SVC_CONVERSATION: 'thread:t1',
    SVC_SESSION_KEY: 'service:home:thread:t1',
    SVC_TARGET_KIND: 'thread',
    SVC_ROOM_ID: 'general',
    SVC_THREAD_ID: 't1',
    SVC_MESSAGE_IDS: 'a,b',
    SVC_MESSAGE_ID: 'b',
    SVC_FROM: 'beta',
    SVC_REPLY_ID: 'r',
  });
});

prompt('the reply id depends only on the wakes, and the reply stays in the conversation', () => {
  assert.is(replyIdOf('alpha', ['m2', 'm1']), replyIdOf('alpha', ['m1', 'm2']));
  assert.is.not(replyIdOf('alpha', ['m1']), replyIdOf('alpha', ['m1', 'm2']));
  assert.is.not(replyIdOf('alpha', ['m1']), replyIdOf('beta', ['m1']));
  assert.match(replyIdOf('alpha', ['m1']), /^re-alpha-[A-Za-z0-9_-]{22}$/);
  assert.equal(replyTarget({ kind: 'thread', room_id: 'g', thread_id: 't', parent_message_id: 'p' }), {
    kind: 'thread',
    room_id: 'g',
    thread_id: 't',
  });
  assert.equal(replyTarget({ kind: 'dm', dm_id: 'dm_1', participant_ids: ['home:a'] }), { kind: 'dm', dm_id: 'dm_1' });
});

prompt('a run log line says conversation, wakes, exit, duration and reply', () => {
  const base = { conversation: 'room:general', session_key: 'k', message_ids: ['m1'], exit_code: 0, timed_out: false, duration_ms: 1234 };
  assert.is(describeRun({ ...base, reply: 'posted', reply_id: 're-a-x' }), 'run room:general (1 wake: m1) exit 0 in 1.2s; replied re-a-x');
  assert.is(
    describeRun({
      ...base,
      exit_code: null,
      signal: 'SIGTERM',
      timed_out: true,
      reply: 'skipped',
      error: 'timed out after 1.0s: the command was killed',
    }),
    'run room:general (1 wake: m1) timed out in 1.2s; no reply; timed out after 1.0s: the command was killed',
  );
});

prompt.run();

const presets = suite('runtime presets');

presets('claude: a session id derived from the session key, then --resume', () => {
  const id = sessionUuid('service:home:room:general');
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(sessionUuid('service:home:room:general'), id, 'stable');
  assert.is.not(sessionUuid('service:home:room:ops'), id);
  const first = presetPlan('claude', { sessionKey: 'service:home:room:general', extra: ['--model', 'sonnet'], replyFile: '/tmp/r' });
  assert.equal(first.argv, ['claude', '-p', '--session-id', id, '--model', 'sonnet']);
  assert.is(first.sessionFrom!(''), id);
  assert.equal(presetPlan('claude', { sessionKey: 'service:home:room:general', known: id, extra: [], replyFile: '/tmp/r' }).argv, [
    'claude',
    '-p',
    '--resume',
    id,
  ]);
});

presets('codex: exec, then exec resume with the thread id read from its JSON events', () => {
  const first = presetPlan('codex', { sessionKey: 'k', extra: ['--full-auto'], replyFile: '/tmp/r.txt' });
  assert.equal(first.argv, ['codex', 'exec', '--json', '--output-last-message', '/tmp/r.txt', '--full-auto', '-']);
  assert.is(first.replyFile, '/tmp/r.txt');
  const out = '{"type":"thread.started","thread_id":"0199a-thread"}\n{"type":"turn.completed"}\n';
  assert.is(first.sessionFrom!(out), '0199a-thread');
  assert.is(codexSessionId('not json\n'), undefined);
  const next = presetPlan('codex', { sessionKey: 'k', known: '0199a-thread', extra: [], replyFile: '/tmp/r.txt' });
  assert.equal(next.argv, ['codex', 'exec', 'resume', '0199a-thread', '--json', '--output-last-message', '/tmp/r.txt', '-']);
});

presets.run();

const help = suite('help of send, read and agent run');

help('--help of each shows an example and the connection flags', async () => {
  const root = svcProgram();
  for (const c of [['send'], ['read'], ['agent'], ['agent', 'run']]) {
    const out = helpAt(c, root);
    assert.match(out, /Examples?:\n {2}svc /, `${c.join(' ')} --help has an example`);
    if (c[0] !== 'agent' || c.length > 1)
      assert.match(out, /--url <url>[\s\S]*--token <token>[\s\S]*--config <file>[\s\S]*--json/, c.join(' '));
  }
});

help.run();
