import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AuthFailures } from '../../src/request-limits/auth-failures.js';

const t = suite('failed authentications per address (pure)');

t('allows the limit, refuses further failures until the window ends, then counts afresh', () => {
  const f = new AuthFailures(3, 60_000);
  for (let i = 0; i < 3; i++) assert.ok(f.fail('a', 1000 + i).ok);
  assert.equal(f.fail('a', 11_000), { ok: false, retryAfterMs: 50_000 });
  assert.ok(f.fail('b', 11_000).ok, 'another key has its own window');
  assert.ok(f.fail('a', 61_000).ok, 'a new window after the minute');
});

t('a limit of 0 refuses nothing and keeps no state', () => {
  const f = new AuthFailures(0);
  for (let i = 0; i < 100; i++) assert.ok(f.fail('a', i).ok);
  assert.is(f.size, 0);
});

t('a raised limit applies to the current window', () => {
  const f = new AuthFailures(1);
  assert.ok(f.fail('a', 0).ok);
  assert.not.ok(f.fail('a', 1).ok);
  f.limit = 2;
  assert.ok(f.fail('a', 2).ok);
});

t('ended windows are swept', () => {
  const f = new AuthFailures(5, 1000);
  f.fail('a', 0);
  f.fail('b', 500);
  f.sweep(1200);
  assert.is(f.size, 1);
});

t.run();
