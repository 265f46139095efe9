// Metrics as a feature: GET /metrics, the HTTP request timers and waits, the store write timer, and the
// counts of published and dropped live events. The registry is src/metrics-registry.ts.

import type { FeatureFactory } from '../feature.js';
import { metricsRoutes, observeHttp } from './routes.js';

export const metricsFeature: FeatureFactory = (app) => {
  const m = app.metrics;
  const writes = m.storeWriteDuration.series();
  const published = m.eventsPublished.series();
  const waited = m.httpWaited.series();
  m.brokerDrops.inc({ surface: 'sse' }, 0);
  m.brokerDrops.inc({ surface: 'attach' }, 0);
  return {
    routes: metricsRoutes(m),
    observe: {
      http: observeHttp(m),
      write: (seconds) => writes.observe(seconds),
      event: () => published.inc(),
      drop: (surface) => m.brokerDrops.inc({ surface }),
      waited: () => waited.inc(),
    },
  };
};
