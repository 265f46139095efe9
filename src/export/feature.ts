// Export (#40 part 5): GET /v1/export streams the network as JSON Lines from one snapshot of the
// running store (stream.ts); `svc export` calls it, and `svc import` (server stopped) loads such a
// file into an empty store through the backend's copy writer (import-lines.ts). docs/export.md.

import type { FeatureFactory } from '../feature.js';
import { exportRoutes } from './routes.js';

export const exportFeature: FeatureFactory = () => ({ routes: exportRoutes });
