// The parts that plug into the core server, in start order. Each is a FeatureFactory (src/app.ts).

import type { FeatureFactory } from './app.js';
import { liveFeature } from './live/index.js';
import { reliabilityFeature } from './reliability.js';
import { consoleFeature } from './console/feature.js';
import { discoveryFeature } from './discovery/feature.js';
import { pairingFeature } from './pairing/index.js';

export const FEATURES: readonly FeatureFactory[] = [reliabilityFeature, consoleFeature, discoveryFeature, pairingFeature, liveFeature];
