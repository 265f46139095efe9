// Which agents a console session may let an OAuth client act as (src/oauth/grantable.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Principal } from '../../src/auth/principal.js';
import type { Scope } from '../../src/protocol/types.js';
import { grantableAgents, mayGrantAgent } from '../../src/oauth/grantable.js';

const AGENTS = [
  { id: 'mine', credential_key: 'token:writer' },
  { id: 'listed', credential_key: 'token:other' },
  { id: 'theirs', credential_key: 'agent:abc' },
];
const staticP = (scopes: Scope[], agents?: string[]): Principal => ({
  kind: 'static',
  tokenId: 'writer',
  scopes: new Set(scopes),
  ...(agents ? { agents: new Set(agents) } : {}),
  credentialKey: 'token:writer',
});
const ids = (p: Principal) => grantableAgents(p, AGENTS).map((a) => a.id);

test('an operator (auth mode none, or an admin token) may pick any agent', () => {
  assert.equal(ids({ kind: 'trusted', credentialKey: 'anonymous' }), ['listed', 'mine', 'theirs']);
  assert.equal(ids(staticP(['admin'])), ['listed', 'mine', 'theirs']);
});

test('a write or attach token may pick the agents it registered and those its agents list names', () => {
  assert.equal(ids(staticP(['write'])), ['mine']);
  assert.equal(ids(staticP(['attach'], ['listed'])), ['listed', 'mine']);
});

test('an observe-only token may pick none, even an agent it owns', () => {
  assert.equal(ids(staticP(['observe'], ['listed'])), []);
});

test("an agent token's session may pick its own agent only; an anonymous caller none", () => {
  assert.equal(ids({ kind: 'agent', agentId: 'theirs', scopes: new Set(['write']), credentialKey: 'agent:abc' }), ['theirs']);
  assert.not.ok(mayGrantAgent({ kind: 'anonymous' }, AGENTS[0]!));
});

test.run();
