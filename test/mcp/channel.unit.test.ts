// The channel push of `svc mcp` without a process: which clients take channel events, what one event
// holds, and how arrivals become events (held until the client initialized, one per conversation and
// burst, never the same message twice, nothing at all for a client without the capability).

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/sdk/types.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CHANNEL_METHOD,
  type ChannelHost,
  channelEvents,
  channelSupported,
  EVENT_MESSAGES_MAX,
  startChannel,
} from '../../src/mcp/channel.js';
import { selfOf } from '../../src/mcp/format.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { Inbox } from '../../src/mcp/inbox.js';
import type { Message } from '../../src/protocol/types.js';

const self = selfOf('home', 'beta');
const BETA = 'svc://home/agents/beta';

function msg(over: Partial<Message> & { id: string; text?: string }): Message {
  return {
    network_id: 'home',
    target: { kind: 'room', room_id: 'general' },
    from: { type: 'agent', id: 'alpha', network_id: 'home', fqid: 'svc://home/agents/alpha' },
    parts: [{ kind: 'text', text: over.text ?? 'hi' }],
    mentions: [BETA],
    created_at: '2026-11-24T03:41:07.123Z',
    ...over,
  };
}

const which = suite('which clients take channel events');

which('a client declaring experimental claude/channel does, and Claude Code by name does', () => {
  assert.ok(channelSupported({ experimental: { 'claude/channel': {} } }, { name: 'any', version: '1' }));
  assert.ok(channelSupported({}, { name: 'claude-code', version: '2.1.80' }));
});

which('a client declaring nothing, or other experimental capabilities, does not', () => {
  assert.not.ok(channelSupported({}, { name: 'codex-mcp-client', version: '1' }));
  assert.not.ok(channelSupported({ experimental: { 'claude/channel/permission': {} } }, { name: 'x', version: '1' }));
  assert.not.ok(channelSupported(undefined, undefined));
});

/** What a client sees in `initialize` from a server made with `channel`. */
async function initialized(channel: boolean) {
  const { server } = createMcpServer({ session: () => Promise.reject(new Error('no network')), agent: 'beta', channel });
  const client = new Client({ name: 'probe', version: '1' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  const seen = { experimental: client.getServerCapabilities()?.experimental, instructions: client.getInstructions() ?? '' };
  await client.close();
  await server.close();
  return seen;
}

which('svc mcp declares claude/channel and describes the events; a server made without channel (over HTTP) does neither', async () => {
  const on = await initialized(true);
  assert.equal(on.experimental, { 'claude/channel': {} });
  assert.match(on.instructions, /<channel source=/);
  const off = await initialized(false);
  assert.is(off.experimental, undefined);
  assert.not.match(off.instructions, /channel/);
});

which.run();

const events = suite('channel events');

events('a mention in a room is one event: where and how to reply, who, when, what, and the ids as meta', () => {
  assert.equal(channelEvents([msg({ id: 'm1', text: '@beta look' })], self), [
    {
      content:
        'room general · reply with send_message room_id="general"\n- m1 · 2026-11-24 03:41:07Z · alpha · mentions you:\n  @beta look',
      meta: {
        conversation: 'room',
        room_id: 'general',
        from: 'alpha',
        message_id: 'm1',
        message_ids: 'm1',
        reason: 'mention',
        ts: '2026-11-24T03:41:07.123Z',
      },
    },
  ]);
});

events('messages of a burst are grouped per conversation, in the order each conversation first appears', () => {
  const dm = { kind: 'dm' as const, dm_id: 'dm_1', participant_ids: ['home:alpha', 'home:beta'] };
  const out = channelEvents(
    [
      msg({ id: 'm1', target: { kind: 'thread', room_id: 'general', thread_id: 't1' } }),
      msg({ id: 'm2', target: dm, mentions: [], text: 'private' }),
      msg({
        id: 'm3',
        target: { kind: 'thread', room_id: 'general', thread_id: 't1' },
        from: { type: 'agent', id: 'gamma', network_id: 'far', fqid: 'svc://far/agents/gamma' },
        created_at: '2026-11-24T03:42:00.000Z',
      }),
    ],
    self,
  );
  assert.is(out.length, 2);
  assert.equal(out[0]!.meta, {
    conversation: 'thread',
    room_id: 'general',
    thread_id: 't1',
    from: 'alpha,far:gamma',
    message_id: 'm3',
    message_ids: 'm1,m3',
    reason: 'mention',
    ts: '2026-11-24T03:42:00.000Z',
  });
  assert.match(
    out[0]!.content,
    /^thread t1 \(room general\) · reply with send_message thread_id="t1"\n- m1 .*\n {2}hi\n- m3 · .* · far:gamma · mentions you:/,
  );
  assert.equal(out[1]!.meta, {
    conversation: 'dm',
    dm_id: 'dm_1',
    from: 'alpha',
    message_id: 'm2',
    message_ids: 'm2',
    reason: 'dm',
    ts: '2026-11-24T03:41:07.123Z',
  });
  for (const e of out) for (const k of Object.keys(e.meta)) assert.match(k, /^[a-zA-Z_][a-zA-Z0-9_]*$/, 'meta keys are identifiers');
});

events('a long burst in one conversation shows its newest messages and says how many more there are', () => {
  const many = Array.from({ length: EVENT_MESSAGES_MAX + 3 }, (_, i) => msg({ id: `m${i + 1}`, text: `number ${i + 1}` }));
  const [e] = channelEvents(many, self);
  assert.is(e!.meta.message_ids.split(',').length, EVENT_MESSAGES_MAX + 3, 'meta names them all');
  assert.not.match(e!.content, /number 3\n/);
  assert.match(e!.content, /number 4\n/);
  assert.match(e!.content, /\n\(3 earlier messages of this burst not shown: wait_for_messages returns them all\)$/);
});

events.run();

interface Sent {
  method: string;
  params?: Record<string, unknown>;
}

/** A host whose client initializes when told to, recording what is sent. */
function host(caps: ClientCapabilities, client: Implementation) {
  const sent: Sent[] = [];
  let ready = false;
  const h: ChannelHost & { sent: Sent[]; initialize(): void } = {
    sent,
    initialize: () => {
      ready = true;
    },
    getClientCapabilities: () => (ready ? caps : undefined),
    getClientVersion: () => (ready ? client : undefined),
    notification: async (n) => {
      sent.push(n);
    },
  };
  return h;
}

let cursor = 0;
function deliver(inbox: Inbox, m: Message): void {
  cursor++;
  inbox.push({
    cursor: `c${cursor}`,
    event: { id: `ev${cursor}`, type: 'message.created', network_id: 'home', created_at: m.created_at, message: m },
    ack: () => undefined,
  });
}

const edits = suite('edits in the inbox');

edits('an edit that newly mentions the agent arrives once as a message; other edits and deletes do not', () => {
  const inbox = new Inbox({ self, flush: async () => undefined });
  const m = msg({ id: 'm9', mentions: [self.fqid] });
  const event = (type: 'message.edited' | 'message.deleted', mentions_added?: string[]) => {
    cursor++;
    inbox.push({
      cursor: `c${cursor}`,
      event: {
        id: `ev${cursor}`,
        type,
        network_id: 'home',
        created_at: m.created_at,
        message: m,
        ...(mentions_added ? { mentions_added } : {}),
      },
      ack: () => undefined,
    });
  };
  event('message.edited', []);
  event('message.deleted');
  assert.equal(inbox.pending('mentions'), []);
  event('message.edited', [self.fqid]);
  assert.equal(
    inbox.pending('mentions').map((x) => x.id),
    ['m9'],
  );
});

edits.run();

const push = suite<{ dir: string }>('arrivals pushed as channel events');
push.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-channel-unit-'));
});
push.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

push('arrivals before the client initialized are held, then pushed as one event per conversation', async (ctx) => {
  const h = host({ experimental: { 'claude/channel': {} } }, { name: 'svc-test', version: '1' });
  const inbox = new Inbox({ self, flush: async () => undefined });
  const lines: string[] = [];
  const c = startChannel({ server: h, inbox, self, file: path.join(ctx.dir, 'a.json'), log: (l) => lines.push(l) });
  try {
    deliver(inbox, msg({ id: 'm1' }));
    deliver(inbox, msg({ id: 'm2', mentions: [] }));
    deliver(inbox, msg({ id: 'm3' }));
    await sleep(400);
    assert.equal(h.sent, [], 'nothing before initialize');
    h.initialize();
    await sleep(300);
    assert.is(h.sent.length, 1);
    assert.is(h.sent[0]!.method, CHANNEL_METHOD);
    assert.is((h.sent[0]!.params!.meta as Record<string, string>).message_ids, 'm1,m3', 'the room message without a mention is left out');
    assert.equal(lines, ['svc mcp: the client takes claude/channel events; mentions and DMs are pushed to it']);
  } finally {
    c.close();
  }
});

push('a message already pushed is not pushed again, also after a restart that replays it', async (ctx) => {
  const file = path.join(ctx.dir, 'b.json');
  const h = host({ experimental: { 'claude/channel': {} } }, { name: 'svc-test', version: '1' });
  h.initialize();
  const inbox = new Inbox({ self, flush: async () => undefined });
  const c = startChannel({ server: h, inbox, self, file, log: () => undefined });
  try {
    deliver(inbox, msg({ id: 'm1' }));
    await sleep(300);
    assert.is(h.sent.length, 1);
    c.close();
    // What a restart does: a fresh inbox gets the unconsumed message again.
    const again = new Inbox({ self, flush: async () => undefined });
    const c2 = startChannel({ server: h, inbox: again, self, file, log: () => undefined });
    deliver(again, msg({ id: 'm1' }));
    deliver(again, msg({ id: 'm4' }));
    await sleep(300);
    c2.close();
    assert.is(h.sent.length, 2);
    assert.is((h.sent[1]!.params!.meta as Record<string, string>).message_ids, 'm4');
  } finally {
    c.close();
  }
});

push('what arrived before the channel started (the replay before the client spoke) is pushed too', async (ctx) => {
  const h = host({ experimental: { 'claude/channel': {} } }, { name: 'svc-test', version: '1' });
  h.initialize();
  const inbox = new Inbox({ self, flush: async () => undefined });
  deliver(inbox, msg({ id: 'm5' }));
  const c = startChannel({ server: h, inbox, self, file: path.join(ctx.dir, 'd.json'), log: () => undefined });
  try {
    deliver(inbox, msg({ id: 'm6' }));
    await sleep(300);
    assert.is(h.sent.length, 1);
    assert.is((h.sent[0]!.params!.meta as Record<string, string>).message_ids, 'm5,m6');
  } finally {
    c.close();
  }
});

push('a client without the capability gets nothing, and no state is written for it', async (ctx) => {
  const file = path.join(ctx.dir, 'c.json');
  const h = host({}, { name: 'codex-mcp-client', version: '1' });
  h.initialize();
  const inbox = new Inbox({ self, flush: async () => undefined });
  const c = startChannel({ server: h, inbox, self, file, log: () => undefined });
  try {
    deliver(inbox, msg({ id: 'm1' }));
    deliver(inbox, msg({ id: 'm2', target: { kind: 'dm', dm_id: 'dm_1', participant_ids: ['home:alpha', 'home:beta'] }, mentions: [] }));
    await sleep(300);
    assert.equal(h.sent, []);
    assert.not.ok(existsSync(file));
    assert.is(inbox.pending('mentions').length, 2, 'the inbox still has both for wait_for_messages');
  } finally {
    c.close();
  }
});

push.run();
