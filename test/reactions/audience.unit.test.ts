// Who receives a reaction.updated event (live/visibility.ts on a memory store, as the reactions
// feature declares it): whoever may see the message's conversation. Anonymous public readers get those of public rooms only; an allowlisted
// token gets those of rooms and DMs its agents are in; attached agents get those of their rooms
// and DMs.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Principal } from '../../src/auth/principal.js';
import { ALL_CAPABILITIES, attachmentWants, liveViewerOf, resolveAudience, viewerSees } from '../../src/live/visibility.js';
import { reactionEvent } from '../../src/reactions/feature.js';
import { MemoryStore } from '../../src/store/memory/index.js';
import { createRoom, send, msg, NET, reactionAdded } from '../helpers/store-fixtures.js';

const settings = { public_read: true, agent_registration: 'disabled' as const };
const anonymous: Principal = { kind: 'anonymous' };
const only = (agent: string): Principal => ({
  kind: 'static',
  tokenId: agent,
  scopes: new Set(['observe']),
  agents: new Set([agent]),
  credentialKey: `token:${agent}`,
});

test('a reaction is seen where its message is, and wakes no one', async () => {
  const store = new MemoryStore();
  await store.write([
    createRoom('pub', { members: ['alpha'] }),
    createRoom('priv', { visibility: 'private', members: ['alpha'] }),
    send(msg('d1', { kind: 'dm', dm_id: 'dm1', participant_ids: [`${NET}:alpha`, `${NET}:beta`] })),
  ]);
  const declared = [reactionEvent];
  const pub = await resolveAudience(store, NET, reactionAdded({ kind: 'room', room_id: 'pub' }), declared);
  const priv = await resolveAudience(store, NET, reactionAdded({ kind: 'room', room_id: 'priv' }), declared);
  const dm = await resolveAudience(
    store,
    NET,
    reactionAdded({ kind: 'dm', dm_id: 'dm1', participant_ids: [`${NET}:alpha`, `${NET}:beta`] }),
    declared,
  );
  const sees = (p: Principal) => [pub, priv, dm].map((a) => viewerSees(liveViewerOf(p, settings), a, NET));
  assert.equal(sees(anonymous), [true, false, false]);
  assert.equal(sees(only('alpha')), [true, true, true]);
  assert.equal(sees(only('beta')), [true, false, true]);
  assert.equal(sees(only('gamma')), [true, false, false]);
  const wants = (agent: string) =>
    [pub, priv, dm].map((a) => attachmentWants(a, reactionAdded({ kind: 'room', room_id: 'x' }), agent, ALL_CAPABILITIES, NET));
  assert.equal(wants('alpha'), [true, true, true]);
  assert.equal(wants('beta'), [false, false, true]);
  await store.close();
});

test.run();
