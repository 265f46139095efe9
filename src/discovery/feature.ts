// The discovery documents as a Feature.

import type { FeatureFactory } from '../feature.js';
import { discoveryRoutes } from './routes.js';

export const discoveryFeature: FeatureFactory = (app) => ({ routes: discoveryRoutes({ address: () => app.address() }) });
