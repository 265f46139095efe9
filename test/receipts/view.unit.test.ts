import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { receiptsOf } from '../../src/receipts/view.js';
import { readingAs } from '../../src/receipts/readers.js';

const rec = (reader: string, kind: 'delivered' | 'read', lo: number, hi: number, at: string) => ({
  reader,
  conv: 'room:r',
  kind,
  ranges: [[lo, hi, at] as [number, number, string]],
});

test('lists the addressed readers first, the sender excepted, then others with a mark', () => {
  const out = receiptsOf(
    5,
    ['agent:a', 'agent:b', 'agent:s'],
    [rec('agent:a', 'delivered', 1, 9, 'T1'), rec('human:op', 'read', 5, 5, 'T2'), rec('agent:x', 'read', 6, 9, 'T3')],
    'agent:s',
  );
  assert.equal(out, [
    { reader: { type: 'agent', id: 'a' }, state: 'delivered', delivered_at: 'T1' },
    { reader: { type: 'agent', id: 'b' }, state: 'pending' },
    { reader: { type: 'human', id: 'op' }, state: 'read', delivered_at: 'T2', read_at: 'T2' },
  ]);
});

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

test.run();
