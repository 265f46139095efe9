// Which reactions go to a pairing, the request that carries one, and which reaction requests a
// relay peer may reach through this server (pure).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isRelayable } from '../../src/pairing/inbound.js';
import { isReactionRelayable, reactionRelay, reactionRequestFor } from '../../src/reactions/relay.js';
import type { ReactionChange, Target } from '../../src/protocol/types.js';

const change = (target: Target, fromNet = 'home', action: 'added' | 'removed' = 'added'): ReactionChange => ({
  message_id: 'msg_1',
  target,
  emoji: '👍',
  action,
  by: `${fromNet}:alpha`,
  from: { type: 'agent', id: 'alpha', network_id: fromNet, fqid: `svc://${fromNet}/agents/alpha` },
  count: 1,
});
const facts = {
  localNetworkId: 'home',
  remoteNetworkId: 'away',
  remoteDirectMessages: true,
  roomFederated: (id: string) => id === 'shared',
};

test('a local actor’s reaction in a federated room or a DM with the peer is relayed', () => {
  assert.ok(isReactionRelayable(change({ kind: 'room', room_id: 'shared' }), facts));
  assert.ok(isReactionRelayable(change({ kind: 'thread', room_id: 'shared', thread_id: 't' }), facts));
  assert.ok(isReactionRelayable(change({ kind: 'dm', dm_id: 'd', participant_ids: ['home:alpha', 'away:beta'] }), facts));
});

test('a reaction that arrived by relay, or outside what the pairing shares, is not', () => {
  assert.not.ok(isReactionRelayable(change({ kind: 'room', room_id: 'shared' }, 'away'), facts));
  assert.not.ok(isReactionRelayable(change({ kind: 'room', room_id: 'local-only' }), facts));
  assert.not.ok(isReactionRelayable(change({ kind: 'dm', dm_id: 'd', participant_ids: ['home:alpha', 'home:beta'] }), facts));
  assert.not.ok(
    isReactionRelayable(change({ kind: 'dm', dm_id: 'd', participant_ids: ['home:alpha', 'away:beta'] }), {
      ...facts,
      remoteDirectMessages: false,
    }),
  );
});

test('the relayed request is PUT or DELETE on the same message id, as the actor of this network', () => {
  assert.equal(reactionRequestFor(change({ kind: 'room', room_id: 'shared' })), {
    method: 'PUT',
    path: '/v1/messages/msg_1/reactions/%F0%9F%91%8D',
    body: { from: { type: 'agent', id: 'alpha', network_id: 'home' } },
  });
  assert.is(reactionRequestFor(change({ kind: 'room', room_id: 'shared' }, 'home', 'removed')).method, 'DELETE');
});

test('a relay peer reaches the reaction routes, and no other PUT or DELETE', () => {
  assert.ok(isRelayable('PUT', '/v1/messages/msg_1/reactions/%F0%9F%91%8D', [reactionRelay]));
  assert.ok(isRelayable('DELETE', '/v1/messages/msg_1/reactions/:ship:', [reactionRelay]));
  assert.not.ok(isRelayable('GET', '/v1/messages/msg_1/reactions', [reactionRelay]));
  assert.not.ok(isRelayable('DELETE', '/v1/rooms/general', [reactionRelay]));
  assert.not.ok(isRelayable('PUT', '/v1/messages/msg_1/reactions/a/b', [reactionRelay]));
  assert.not.ok(isRelayable('DELETE', '/v1/agents/alpha', [reactionRelay]));
});

test('without the reactions feature (nothing relays them) a relay peer reaches no reaction route', () => {
  assert.not.ok(isRelayable('PUT', '/v1/messages/msg_1/reactions/%F0%9F%91%8D'));
  assert.ok(isRelayable('POST', '/v1/messages'));
});

test.run();
