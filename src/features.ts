// The parts that plug into the core server, in start order. Each is a FeatureFactory (src/app.ts).

import type { FeatureFactory } from './app.js';

export const FEATURES: readonly FeatureFactory[] = [];
