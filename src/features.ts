// The parts that plug into the core server. Each is a FeatureFactory (src/app.ts) returning what
// it adds; the app combines the contributions into lists, so this order only sets start order.

import type { FeatureFactory } from './app.js';
import { liveFeature } from './live/index.js';
import { loopGuardFeature } from './loop-guard-feature.js';
import { requestLimitsFeature } from './request-limits-feature.js';
import { metricsFeature } from './metrics-feature.js';
import { consoleFeature } from './console/feature.js';
import { discoveryFeature } from './discovery/feature.js';
import { pairingFeature } from './pairing/index.js';

export const FEATURES: readonly FeatureFactory[] = [metricsFeature, requestLimitsFeature, loopGuardFeature, consoleFeature, discoveryFeature, pairingFeature, liveFeature];
