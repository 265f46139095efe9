// GET /metrics (admin): Prometheus text exposition of the app's registry.

import type { Metrics } from '../../metrics.js';
import type { Route } from '../router.js';

export function metricsRoutes(metrics: Metrics): Route[] {
  return [
    {
      method: 'GET',
      path: '/metrics',
      action: 'metrics',
      raw: true,
      handler: async ({ res, net }) => {
        // Store health is probed at scrape time, so the value is never stale.
        metrics.storeHealthy.set(net.store.ping() ? 1 : 0);
        const text = await metrics.registry.metrics();
        res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      },
    },
  ];
}

/** The HTTP observer (app.http.observe): requests and latency by route pattern, method and status. */
export function observeHttp(metrics: Metrics): (route: string, method: string, status: number, seconds: number) => void {
  return (route, method, status, seconds) => {
    metrics.httpRequests.inc({ route, method, status: String(status) });
    metrics.httpDuration.observe({ route, method }, seconds);
  };
}
