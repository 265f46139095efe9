// wakeOf: which events wake an agent. Its names are matched in place (no FQID or scoped id is
// built per attachment), so names that differ only at an edge must not match.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { wakeOf } from '../../src/live/agent-events.js';
import type { Message, ServiceEvent, Target } from '../../src/protocol/types.js';

const room: Target = { kind: 'room', room_id: 'r1' };

function created(o: { mentions?: string[]; target?: Target; from?: string; fromNet?: string }): ServiceEvent {
  const message: Message = {
    id: 'm1',
    network_id: 'net',
    target: o.target ?? room,
    from: { type: 'agent', id: o.from ?? 'someone', network_id: o.fromNet ?? 'net', fqid: 'svc://x/agents/y' },
    parts: [{ kind: 'text', text: 'hi' }],
    mentions: o.mentions ?? [],
    created_at: '2026-12-01T00:00:00.000Z',
  };
  return { id: 'e1', type: 'message.created', network_id: 'net', created_at: message.created_at, message };
}

const test = suite('wakeOf');

test('a mention by FQID wakes exactly that agent of that network', () => {
  const e = created({ mentions: ['svc://net/agents/a1'] });
  assert.equal(wakeOf(e, 'net', 'a1'), { message_id: 'm1', reason: 'mention', target: room });
  for (const [net, id] of [
    ['net', 'a'],
    ['net', 'a11'],
    ['net', '1'],
    ['ne', 'a1'],
    ['nett', 'a1'],
    ['other', 'a1'],
  ] as const)
    assert.is(wakeOf(e, net, id), undefined, `${net}/${id}`);
  for (const m of ['svc://net/agents/xa1', 'svc://net/rooms/a1', 'svc://nex/agents/a1', 'svx://net/agents/a1', 'svc://net/agentsXa1'])
    assert.is(wakeOf(created({ mentions: [m] }), 'net', 'a1'), undefined, m);
});

test('a DM wakes its participants by scoped id, not a name that only starts or ends the same', () => {
  const dm: Target = { kind: 'dm', dm_id: 'd1', participant_ids: ['net:a1', 'net:b2'] };
  assert.equal(wakeOf(created({ target: dm, from: 'b2' }), 'net', 'a1'), { message_id: 'm1', reason: 'dm', target: dm });
  assert.is(wakeOf(created({ target: dm, from: 'b2' }), 'net', 'a'), undefined);
  assert.is(wakeOf(created({ target: dm, from: 'b2' }), 'ne', 't:a1'), undefined);
  assert.is(wakeOf(created({ target: { ...dm, participant_ids: ['netxa1', 'other:a1'] } }), 'net', 'a1'), undefined);
});

test("the agent's own message and passive room traffic wake nobody; an edit wakes only the newly mentioned", () => {
  assert.is(wakeOf(created({ mentions: ['svc://net/agents/a1'], from: 'a1' }), 'net', 'a1'), undefined);
  assert.ok(wakeOf(created({ mentions: ['svc://net/agents/a1'], from: 'a1', fromNet: 'peer' }), 'net', 'a1'));
  assert.is(wakeOf(created({}), 'net', 'a1'), undefined);
  const edited = { ...created({ mentions: ['svc://net/agents/a1', 'svc://net/agents/b2'] }), type: 'message.edited' as const };
  assert.is(wakeOf({ ...edited, mentions_added: ['svc://net/agents/b2'] }, 'net', 'a1'), undefined);
  assert.equal(wakeOf({ ...edited, mentions_added: ['svc://net/agents/b2'] }, 'net', 'b2')?.reason, 'mention');
  assert.is(wakeOf(edited, 'net', 'a1'), undefined);
});

test.run();
