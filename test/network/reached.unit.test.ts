// What reached whom (src/network/reached.ts): whom a read counts for, and the features' observers
// joined into the one value the surfaces tell.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reachedBy, readingAs, type AttachmentDeliveries, type StreamDeliveries } from '../../src/network/reached.js';
import type { Message } from '../../src/protocol/types.js';

test('reads as its own agent with an agent token, and as whom `as` names only when it may act as them', () => {
  const agent = { kind: 'agent' as const, agentId: 'a', scopes: new Set<never>(), credentialKey: 'k' };
  assert.equal(readingAs(agent, undefined, true), { type: 'agent', id: 'a' });
  assert.is(readingAs(agent, 'b', true), undefined);
  const op = { kind: 'static' as const, tokenId: 'op', scopes: new Set(['write' as const]), credentialKey: 'token:op' };
  assert.is(readingAs(op, undefined, true), undefined);
  assert.equal(readingAs(op, 'b', true), { type: 'agent', id: 'b' });
  assert.equal(readingAs(op, 'human:ann', true), { type: 'human', id: 'ann' });
  assert.is(readingAs(op, 'human:ann', false), undefined);
  assert.is(readingAs({ kind: 'anonymous' }, 'b', true), undefined);
  const only = { ...op, agents: new Set(['c']) };
  assert.is(readingAs(only, 'b', true), undefined);
  assert.is(readingAs(only, 'human:ann', true), undefined);
});

test('observers joined: each told in order; a follower only when some feature follows', () => {
  const told: string[] = [];
  const follower = (name: string): AttachmentDeliveries => ({
    joinedRoom: (room, seq) => told.push(`${name} joined ${room} ${seq}`),
    sent: (seq) => told.push(`${name} sent ${seq}`),
    ackUpTo: (cursor) => told.push(`${name} ack ${cursor}`),
  });
  const none = reachedBy([]);
  assert.is(none.attachment('a', 0), undefined);
  assert.is(none.stream('a', 0), undefined);
  none.handedOver('a', { id: 'm' } as Message, 1);
  none.pageRead({ type: 'agent', id: 'a' }, []);

  const one = follower('one');
  assert.is(reachedBy([{ attachment: () => one }, { attachment: () => undefined }]).attachment('a', 0), one);

  const both = reachedBy([
    { attachment: () => follower('x'), handedOver: (agent, m, seq) => told.push(`x handed ${agent} ${m.id} ${seq}`) },
    { attachment: () => follower('y'), pageRead: (r, ms) => told.push(`y read ${r.type}:${r.id} ${ms.length}`) },
  ]);
  const d = both.attachment('a', 5)!;
  d.sent(6, { kind: 'room', room_id: 'r' });
  d.joinedRoom('r', 7);
  d.ackUpTo(7);
  both.handedOver('a', { id: 'm1' } as Message, 8);
  both.pageRead({ type: 'human', id: 'ann' }, [{ id: 'm1' } as Message]);
  assert.equal(told, [
    'x sent 6',
    'y sent 6',
    'x joined r 7',
    'y joined r 7',
    'x ack 7',
    'y ack 7',
    'x handed a m1 8',
    'y read human:ann 1',
  ]);

  const written: string[] = [];
  const stream = (name: string): StreamDeliveries => ({
    sent: (e) => written.push(`${name} ${e.seq}`),
    written: () => written.push(`${name} done`),
  });
  const s = reachedBy([{ stream: () => stream('p') }, { stream: () => stream('q') }]).stream('a', undefined)!;
  s.sent({ seq: 3 } as never);
  s.written();
  assert.equal(written, ['p 3', 'q 3', 'p done', 'q done']);
});

test.run();
