import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { receiptsOf } from '../../src/receipts/view.js';

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

test.run();
