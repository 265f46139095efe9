// Who may send as whom and who may claim an agent id: pure decisions of src/auth/.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existingClaimRefusal, newClaimRefusal } from '../../src/auth/agent-claims.js';
import type { Principal } from '../../src/auth/principal.js';
import { agentSenderRefusal, canSendHuman, humanSenderRefusal, localSenderRefusal } from '../../src/auth/senders.js';

const trusted: Principal = { kind: 'trusted', credentialKey: 'anonymous' };
const anonymous: Principal = { kind: 'anonymous' };
const agentTok = (agentId: string): Principal => ({
  kind: 'agent',
  agentId,
  scopes: new Set(['write', 'attach', 'observe']),
  credentialKey: `agent:${agentId}-key`,
});
const token = (scopes: string[], agents?: string[]): Principal => ({
  kind: 'static',
  tokenId: 't',
  scopes: new Set(scopes) as never,
  ...(agents ? { agents: new Set(agents) } : {}),
  credentialKey: 'token:t',
});

const senders = suite('sender decisions');

senders('origin is accepted only from a trusted relay, and a pair-only token sends no local sender', () => {
  assert.is(localSenderRefusal(trusted, true), undefined);
  assert.match(localSenderRefusal(token(['write']), true)!, /origin is only accepted/);
  assert.match(localSenderRefusal(token(['pair']), false)!, /pair credentials relay remote-origin messages only/);
  assert.is(localSenderRefusal(token(['write']), false), undefined);
  assert.is(localSenderRefusal(anonymous, false), undefined);
});

senders('an agent is spoken for only by its own credential, unless the caller is trusted', () => {
  assert.is(agentSenderRefusal(agentTok('a1'), 'a1', 'agent:a1-key'), undefined);
  assert.match(agentSenderRefusal(agentTok('a1'), 'a2', undefined)!, /may not send as agent a2/);
  assert.match(agentSenderRefusal(token(['write']), 'a1', 'agent:a1-key')!, /registered to another credential/);
  assert.is(agentSenderRefusal(token(['write']), 'fresh', undefined), undefined);
  assert.is(agentSenderRefusal(trusted, 'a1', 'agent:a1-key'), undefined);
  assert.match(agentSenderRefusal(token(['write'], ['x']), 'y', undefined)!, /may not send as agent y/);
});

senders('a person never sends with an agent credential or under a registered agent id', () => {
  assert.match(humanSenderRefusal(agentTok('a1'), 'op', false)!, /agent token sends only as its own agent/);
  assert.match(humanSenderRefusal(token(['write'], ['a1']), 'op', false)!, /agents allowlist cannot send human messages/);
  assert.match(humanSenderRefusal(token(['write']), 'a1', true)!, /a1 is a registered agent id/);
  assert.is(humanSenderRefusal(token(['write']), 'op', false), undefined);
});

senders('the console offers the human composer to unrestricted writers when human ingress is on', () => {
  assert.ok(canSendHuman(true, token(['write'])));
  assert.ok(canSendHuman(true, trusted));
  assert.not.ok(canSendHuman(false, trusted));
  assert.not.ok(canSendHuman(true, token(['write'], ['a1'])));
  assert.not.ok(canSendHuman(true, token(['observe'])));
  assert.not.ok(canSendHuman(true, agentTok('a1')));
});

senders.run();

const claims = suite('agent claim decisions');

claims('a new claim follows the registration mode and the token scopes', () => {
  assert.is(newClaimRefusal(trusted, 'x', 'disabled'), undefined);
  assert.equal(newClaimRefusal(agentTok('a1'), 'x', 'open'), { status: 403, reason: 'an agent token acts only as its own agent' });
  assert.is(newClaimRefusal(anonymous, 'x', 'open'), undefined);
  assert.is(newClaimRefusal(anonymous, 'x', 'token')?.status, 403);
  assert.match(newClaimRefusal(token(['attach'], ['y']), 'x', 'open')!.reason, /not in its agents allowlist/);
  assert.is(newClaimRefusal(token(['write'], ['x']), 'x', 'disabled'), undefined);
  assert.is(newClaimRefusal(token(['admin']), 'x', 'disabled'), undefined);
  assert.match(newClaimRefusal(token(['attach']), 'x', 'disabled')!.reason, /registration is disabled/);
  assert.is(newClaimRefusal(token(['attach']), 'x', 'token'), undefined);
  assert.match(newClaimRefusal(token(['write']), 'x', 'token')!.reason, /needs the attach or admin scope/);
});

claims('an id already claimed resolves for its credential and conflicts for others', () => {
  assert.is(existingClaimRefusal(token(['attach']), 'x', 'token:t'), undefined);
  assert.equal(existingClaimRefusal(token(['attach']), 'x', 'token:other'), {
    status: 409,
    reason: 'agent id x is already registered to another credential',
  });
  assert.is(existingClaimRefusal(anonymous, 'x', 'agent:k')?.status, 409);
  assert.is(existingClaimRefusal(agentTok('y'), 'x', 'agent:y-key')?.status, 403);
  assert.is(existingClaimRefusal(token(['attach'], ['y']), 'x', 'token:t')?.status, 403);
  assert.is(existingClaimRefusal(agentTok('x'), 'x', 'agent:x-key'), undefined);
});

claims.run();
