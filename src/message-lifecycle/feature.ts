// Messages that change and go (#40): edits with their earlier versions, deletes that leave a
// tombstone, and the pairing relay of both. The store keeps them in its core (store/intents.ts:
// message.edit, message.delete); this feature is the routes and the relay.

import type { FeatureFactory } from '../feature.js';
import { lifecycleRelays } from './relay.js';
import { lifecycleRoutes } from './routes.js';

export const messageLifecycleFeature: FeatureFactory = () => ({
  routes: lifecycleRoutes,
  relays: lifecycleRelays,
});
