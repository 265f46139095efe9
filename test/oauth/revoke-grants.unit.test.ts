// revokeGrantsOf (src/oauth/grants.ts), the revocation a removed agent's `agent.removed` event runs:
// every grant of the agent id but the current registration's goes, a grant stored by an earlier
// release under the bare agent id included (it names no registration, so it is refused anyway and
// would otherwise stay listed), and no other agent's grant is touched.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kindOf } from '../../src/oauth/adapter.js';
import { revokeGrantsOf } from '../../src/oauth/grants.js';
import { openStore } from '../../src/store/open.js';

const grant = (id: string, accountId: string) => ({
  kind: kindOf('Grant'),
  id,
  grant_id: id,
  value: JSON.stringify({ accountId, clientId: 'c1', iat: 1, exp: 1 + 30 * 24 * 3600 }),
});

test('the grants of an agent id go, but those of its current registration and of other agents', async () => {
  const store = await openStore({ backend: 'memory', path: '', checkpoint_bytes: 0 });
  try {
    for (const [id, account] of [
      ['g-old', 'beta#act_old'],
      ['g-cur', 'beta#act_cur'],
      ['g-bare', 'beta'],
      ['g-other', 'gamma#act_x'],
      ['g-other-bare', 'gamma'],
    ] as const)
      await store.kv.put(grant(id, account));
    assert.is(await revokeGrantsOf(store.kv, 'beta', 'act_cur'), 2);
    const left = (await store.kv.list(kindOf('Grant'))).map((r) => r.id).sort();
    assert.equal(left, ['g-cur', 'g-other', 'g-other-bare']);
    // The agent gone: every grant of its id goes.
    assert.is(await revokeGrantsOf(store.kv, 'beta'), 1);
    assert.equal((await store.kv.list(kindOf('Grant'))).map((r) => r.id).sort(), ['g-other', 'g-other-bare']);
  } finally {
    await store.close();
  }
});

test.run();
