// Token lookups remember what they hashed: a static token that matched is found again without
// hashing, a wrong guess is never remembered (it always takes the hash and the constant-time scan
// of every configured token), and an agent token's key is the same however often it is asked.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { agentCredentialKey, StaticTokens } from '../../src/auth/credentials.js';

/** Counts timingSafeEqual calls while `f` runs. */
function comparisons(f: () => void): number {
  const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const real = crypto.timingSafeEqual;
  let n = 0;
  crypto.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    n++;
    return real(a, b);
  }) as typeof real;
  syncBuiltinESMExports();
  try {
    f();
  } finally {
    crypto.timingSafeEqual = real;
    syncBuiltinESMExports();
  }
  return n;
}

test('a static token that matched is found again without a scan; a wrong guess scans every token every time', () => {
  const tokens = new StaticTokens([
    { id: 'a', value: 'first-token-value', scopes: ['observe'] },
    { id: 'b', value: 'second-token-value', scopes: ['write'] },
  ]);
  assert.is(
    comparisons(() => assert.is(tokens.find('second-token-value')?.id, 'b')),
    2,
  );
  assert.is(
    comparisons(() => assert.is(tokens.find('second-token-value')?.id, 'b')),
    0,
  );
  for (let i = 0; i < 3; i++)
    assert.is(
      comparisons(() => assert.is(tokens.find('second-token-valuX'), undefined)),
      2,
    );
  assert.is(
    comparisons(() => assert.is(tokens.find(''), undefined)),
    2,
  );
  // Another set of tokens (a new config) remembers nothing of the first.
  const next = new StaticTokens([{ id: 'c', value: 'first-token-value', scopes: ['admin'] }]);
  assert.is(next.find('second-token-value'), undefined);
  assert.is(next.find('first-token-value')?.id, 'c');
});

test("an agent token's credential key is its SHA-256, the same on every call, for many more tokens than are remembered", () => {
  const expect = (t: string) => `agent:${createHash('sha256').update(t).digest('hex')}`;
  for (let i = 0; i < 3000; i++) assert.is(agentCredentialKey(`agt_v1_${i}`), expect(`agt_v1_${i}`));
  for (let i = 0; i < 3000; i += 7) assert.is(agentCredentialKey(`agt_v1_${i}`), expect(`agt_v1_${i}`));
});

test.run();
