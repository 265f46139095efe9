// Reactions (#28): the routes. Storage is the store's reaction.change intent, reads add reactions
// to message pages (src/store/reaction-summary.ts), events flow like any other (live delivery,
// pairings' outboxes).

import type { FeatureFactory } from '../feature.js';
import { reactionRoutes } from './routes.js';

export const reactionsFeature: FeatureFactory = () => ({ routes: reactionRoutes });
