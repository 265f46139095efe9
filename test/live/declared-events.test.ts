// Event types a feature adds (Feature.events) are judged as the feature declares them: live/
// visibility.ts names none of them, so an event nobody declares (and with no message) is one of no
// conversation, seen only by readers of pairing metadata; and the app refuses two features
// declaring one type.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { createApp } from '../../src/app.js';
import type { FeatureFactory } from '../../src/feature.js';
import { defaultFeatures } from '../../src/features.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import type { Principal } from '../../src/auth/principal.js';
import {
  ALL_CAPABILITIES,
  ATTACHMENT_IGNORES,
  attachmentIgnores,
  attachmentWants,
  liveViewerOf,
  resolveAudience,
  viewerSees,
} from '../../src/live/visibility.js';
import type { ServiceEvent, Target } from '../../src/protocol/types.js';
import { reactionEvent } from '../../src/reactions/feature.js';
import { receiptsEvent } from '../../src/receipts/feature.js';
import { MemoryStore } from '../../src/store/memory/index.js';
import { createRoom, NET, reactionAdded } from '../helpers/store-fixtures.js';
import { testConfig } from '../helpers/server.js';

const test = suite('event types features declare');
const settings = { public_read: true, agent_registration: 'disabled' as const };
const anonymous: Principal = { kind: 'anonymous' };
const alpha: Principal = {
  kind: 'static',
  tokenId: 'a',
  scopes: new Set(['observe']),
  agents: new Set(['alpha']),
  credentialKey: 'token:a',
};
const admin: Principal = { kind: 'static', tokenId: 'root', scopes: new Set(['admin']), credentialKey: 'token:root' };
const PUB: Target = { kind: 'room', room_id: 'pub' };

const receipts = (target: Target): ServiceEvent => ({
  id: 'e1',
  type: 'message.receipts',
  network_id: NET,
  created_at: 't',
  receipts: { target, marks: [] },
});

async function publicRoom(): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.write([createRoom('pub', { members: ['alpha'] })]);
  return store;
}

const sees = (p: Principal, a: Awaited<ReturnType<typeof resolveAudience>>) => viewerSees(liveViewerOf(p, settings), a, NET);

test('a type declared public and for attachments reaches anonymous readers and members’ attachments', async () => {
  const store = await publicRoom();
  const a = await resolveAudience(store, NET, reactionAdded(PUB), [reactionEvent]);
  assert.equal([sees(anonymous, a), sees(alpha, a)], [true, true]);
  assert.ok(attachmentWants(a, reactionAdded(PUB), 'alpha', ALL_CAPABILITIES, NET));
  await store.close();
});

test('a type declared for observers only reaches no anonymous reader and no attachment', async () => {
  const store = await publicRoom();
  const a = await resolveAudience(store, NET, receipts(PUB), [receiptsEvent]);
  assert.equal([sees(anonymous, a), sees(alpha, a)], [false, true]);
  assert.not.ok(attachmentWants(a, receipts(PUB), 'alpha', ALL_CAPABILITIES, NET));
  await store.close();
});

test('attachments queue neither the core types they never receive nor the types declared for observers only', () => {
  const declared = [reactionEvent, receiptsEvent];
  const ignored = attachmentIgnores(declared);
  assert.ok(ignored.has('message.receipts') && ignored.has('agent.connected'));
  assert.not.ok(ignored.has('reaction.updated'));
  // One Set while the declarations stand: the broker shares a queue filter among subscribers by it.
  assert.is(attachmentIgnores(declared), ignored);
  assert.equal([...attachmentIgnores([])], [...ATTACHMENT_IGNORES]);
});

test('a type nobody declares concerns no conversation: only readers of pairing metadata see it', async () => {
  const store = await publicRoom();
  const a = await resolveAudience(store, NET, reactionAdded(PUB));
  assert.is(a.kind, 'pairing');
  assert.equal([sees(anonymous, a), sees(admin, a)], [false, true]);
  assert.not.ok(attachmentWants(a, reactionAdded(PUB), 'alpha', ALL_CAPABILITIES, NET));
  await store.close();
});

test('two features declaring one event type are refused when the app is made', async () => {
  const again: FeatureFactory = () => ({ events: [receiptsEvent] });
  const raw = testConfig({ store: { backend: 'memory' } });
  let err: unknown;
  try {
    const app = await createApp(parseConfig(raw, { baseDir: tmpdir(), env: {} }), {
      log: silentLogger,
      features: [...defaultFeatures, again],
    });
    await app.close();
  } catch (e) {
    err = e;
  }
  assert.match(String(err), /two features declare the event message\.receipts; only one may/);
});

test.run();
