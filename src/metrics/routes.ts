// GET /metrics (admin): Prometheus text exposition of the app's registry.

import type { CounterSeries, HistogramSeries, Metrics } from '../metrics-registry.js';
import type { Route } from '../http/router.js';

export function metricsRoutes(metrics: Metrics): Route[] {
  return [
    {
      method: 'GET',
      path: '/metrics',
      action: 'metrics',
      raw: true,
      handler: async ({ res, ctx }) => {
        // Store health is probed at scrape time, so the value is never stale.
        metrics.storeHealthy.set((await ctx.store.ping()) ? 1 : 0);
        metrics.searchIndexLag.set(ctx.store.searchIndexLag?.() ?? 0);
        metrics.storeDataBytes.set(ctx.store.dataBytes?.() ?? 0);
        const text = await metrics.registry.metrics();
        res.writeHead(200, {
          'content-type': metrics.registry.contentType,
          'cache-control': 'no-store',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
      },
    },
  ];
}

/** The HTTP observer (app.http.observe): requests and latency by route pattern, method and status. */
export function observeHttp(metrics: Metrics): (route: string, method: string, status: number, seconds: number) => void {
  // Series by route pattern, method and status, found with map lookups on strings the server
  // reuses (route patterns, parsed method names) instead of a labels object per request.
  const byRoute = new Map<string, Map<string, { duration: HistogramSeries; byStatus: Map<number, CounterSeries> }>>();
  return (route, method, status, seconds) => {
    let byMethod = byRoute.get(route);
    if (!byMethod) byRoute.set(route, (byMethod = new Map()));
    let s = byMethod.get(method);
    if (!s) byMethod.set(method, (s = { duration: metrics.httpDuration.series(route, method), byStatus: new Map() }));
    let requests = s.byStatus.get(status);
    if (!requests) s.byStatus.set(status, (requests = metrics.httpRequests.series(route, method, String(status))));
    requests.inc();
    s.duration.observe(seconds);
  };
}
