// The pure parts of the A2A outbound gateway: svc parts to A2A parts, an A2A answer to the reply's
// parts, the health count, and the a2a_agents section of svc.yaml.

import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cardUrlOf, resolveA2aAgents } from '../../src/config/a2a-agents.js';
import type { Warning } from '../../src/protocol/types.js';
import { Health } from '../../src/a2a/outbound/health.js';
import { conversationOf, outgoingMessage, replyOf, toA2aParts } from '../../src/a2a/outbound/parts.js';

const fail = (line: string): never => {
  throw new Error(line);
};
const agent = {
  id: 'r',
  card_url: 'https://r.example/.well-known/agent-card.json',
  rooms: [],
  check_interval_ms: 60_000,
  down_after: 3,
  catch_up_max_age_ms: 3_600_000,
  allow_private_network: false,
  timeout_ms: 1000,
};

test('svc parts become A2A parts; a stored file becomes a link to this server', () => {
  const parts = toA2aParts(
    [
      { kind: 'text', text: 'hi @r' },
      { kind: 'data', data: { a: 1 } },
      { kind: 'url', url: 'https://x.example/doc', media_type: 'text/html' },
      { kind: 'file', file_id: 'file_abc', name: 'a.csv', content_type: 'text/csv', size: 3 },
    ],
    'http://127.0.0.1:8787',
  );
  assert.equal(
    parts.map((p) => [p.content?.$case, p.content?.value, p.filename, p.mediaType]),
    [
      ['text', 'hi @r', '', ''],
      ['data', { a: 1 }, '', ''],
      ['url', 'https://x.example/doc', '', 'text/html'],
      ['url', 'http://127.0.0.1:8787/v1/files/file_abc', 'a.csv', 'text/csv'],
    ],
  );
  const m = outgoingMessage('msg_1', '', parts, {});
  assert.is(m.role, Role.ROLE_USER);
  assert.is(m.contextId, '', 'the first message of a conversation lets the agent choose its context');
});

test('a task answer gives its status message, then each artifact part; bytes are handed back for upload', () => {
  const task: Task = {
    id: 't1',
    contextId: 'c1',
    status: {
      state: TaskState.TASK_STATE_FAILED,
      timestamp: undefined,
      message: {
        messageId: 'm',
        contextId: 'c1',
        taskId: 't1',
        role: Role.ROLE_AGENT,
        parts: [{ content: { $case: 'text', value: 'it broke' }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
    },
    artifacts: [
      {
        artifactId: 'a1',
        name: 'log',
        description: '',
        parts: [
          { content: { $case: 'data', value: [1, 2] }, metadata: undefined, filename: '', mediaType: '' },
          { content: { $case: 'raw', value: Buffer.from('x') }, metadata: undefined, filename: '', mediaType: '' },
        ],
        metadata: undefined,
        extensions: [],
      },
    ],
    history: [],
    metadata: undefined,
  };
  const r = replyOf(task);
  assert.is(r.state, 'failed');
  assert.equal(r.parts[0], { part: { kind: 'text', text: 'it broke' } });
  assert.equal(r.parts[1], { part: { kind: 'data', data: { value: [1, 2] } } }, 'a non-object value is wrapped');
  assert.equal(r.parts[2], { bytes: Buffer.from('x'), name: 'log', mediaType: 'application/octet-stream' });
});

test('each room, thread and DM is its own conversation', () => {
  assert.is(conversationOf({ kind: 'room', room_id: 'lab' }), 'room:lab');
  assert.is(conversationOf({ kind: 'thread', room_id: 'lab', thread_id: 't' }), 'thread:t');
  assert.is(conversationOf({ kind: 'dm', dm_id: 'dm_1' }), 'dm:dm_1');
});

test('an agent is down after down_after failures in a row, and up again after one success', () => {
  const h = new Health(2);
  assert.is(h.ok(), 'up');
  assert.is(h.ok(), undefined, 'no change, no report');
  assert.is(h.fail('e1', new Date(0)), undefined);
  assert.is(h.fail('e2', new Date(0)), 'down');
  assert.is(h.fail('e3', new Date(0)), undefined);
  assert.is(h.lastError, 'e3');
  assert.is(h.ok(), 'up');
  assert.is(h.failures, 0);
});

test('a2a_agents: the token comes from auth_env; unset refuses the file for serve and apply, warns elsewhere', () => {
  const withEnv = resolveA2aAgents([{ ...agent, auth_env: 'TOK' }], { TOK: 'secret' }, fail);
  assert.is(withEnv[0]!.token, 'secret');
  assert.throws(
    () => resolveA2aAgents([{ ...agent, auth_env: 'TOK' }], {}, fail, 'serve'),
    /a2a_agents\[0\]\.auth_env: environment variable TOK is not set/,
  );
  const warnings: Warning[] = [];
  const client = resolveA2aAgents([{ ...agent, auth_env: 'TOK' }], {}, fail, 'client', warnings);
  assert.is(client[0]!.token, undefined);
  assert.equal(
    warnings.map((w) => w.code),
    ['a2a_token_unset'],
  );
  assert.throws(
    () => resolveA2aAgents([{ ...agent, card_url: 'https://u:p@r.example/card.json' }], {}, fail),
    /a2a_agents\[0\]\.card_url: must not carry credentials/,
  );
  assert.throws(() => resolveA2aAgents([agent, agent], {}, fail), /a2a_agents\[1\]\.id: duplicate id "r"/);
});

test('a card URL ending in / names the folder of the well-known card', () => {
  assert.is(cardUrlOf({ card_url: 'https://r.example/agents/x/' }), 'https://r.example/agents/x/.well-known/agent-card.json');
  assert.is(cardUrlOf({ card_url: 'https://r.example/card.json' }), 'https://r.example/card.json');
});

test.run();
