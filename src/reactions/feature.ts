// Reactions (#28): the routes, and the stored part they keep (src/store/reactions/). Reads add
// reactions to message pages (src/store/reactions/summary.ts), events flow like any other (live
// delivery, pairings' outboxes).

import { storing, type FeatureFactory, type LiveEvent } from '../feature.js';
import { reactionsPart } from '../store/reactions/part.js';
import { withReactions } from '../store/reactions/summary.js';
import { reactionRelay } from './relay.js';
import { reactionRoutes } from './routes.js';

/** A reaction follows its message: seen by whoever sees the message's conversation, anonymous public readers and attached agents too. */
export const reactionEvent: LiveEvent = { type: 'reaction.updated', target: (e) => e.reaction?.target, public: true, attachments: true };

export const reactionsFeature: FeatureFactory = storing([reactionsPart], (app) => ({
  routes: reactionRoutes,
  events: [reactionEvent],
  messages: (messages) => withReactions(app.ctx.store, messages),
  relays: reactionRelay,
}));
