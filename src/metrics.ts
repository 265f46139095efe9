// Prometheus metrics (prom-client), one registry per app. Series names are ours (SPEC.md leaves
// them open); every label value is a route pattern, status, direction or pairing id, never a token.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'route' | 'method' | 'status'>;
  httpDuration: Histogram<'route' | 'method'>;
  sseSubscribers: Gauge;
  attachClients: Gauge;
  brokerDrops: Counter<'surface'>;
  eventsPublished: Counter;
  storeHealthy: Gauge;
  storeWriteDuration: Histogram;
  relayFrames: Counter<'pairing' | 'direction'>;
  relayConnections: Gauge<'pairing'>;
  relayFailures: Counter<'pairing'>;
  relayOutboxPending: Gauge<'pairing'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_process_' });
  const r = [registry];
  return {
    registry,
    httpRequests: new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests by route pattern, method and status', labelNames: ['route', 'method', 'status'], registers: r }),
    httpDuration: new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'HTTP request latency by route pattern',
      labelNames: ['route', 'method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: r,
    }),
    sseSubscribers: new Gauge({ name: 'svc_sse_subscribers', help: 'Open SSE streams', registers: r }),
    attachClients: new Gauge({ name: 'svc_attach_clients', help: 'Attachments past READY', registers: r }),
    brokerDrops: new Counter({ name: 'svc_broker_drops_total', help: 'Subscribers dropped for falling behind, by surface', labelNames: ['surface'], registers: r }),
    eventsPublished: new Counter({ name: 'svc_events_published_total', help: 'Events published to the broker', registers: r }),
    storeHealthy: new Gauge({ name: 'svc_store_healthy', help: '1 when the store answers its health probe', registers: r }),
    storeWriteDuration: new Histogram({ name: 'svc_store_write_duration_seconds', help: 'Durable write latency (apply + journal fsync)', buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25], registers: r }),
    relayFrames: new Counter({ name: 'svc_relay_frames_total', help: 'Pairing relay frames by pairing and direction (in|out)', labelNames: ['pairing', 'direction'], registers: r }),
    relayConnections: new Gauge({ name: 'svc_relay_connected', help: '1 when the pairing relay socket is open', labelNames: ['pairing'], registers: r }),
    relayFailures: new Counter({ name: 'svc_relay_failures_total', help: 'Failed pairing requests (discovery or relay)', labelNames: ['pairing'], registers: r }),
    relayOutboxPending: new Gauge({ name: 'svc_relay_outbox_pending', help: 'Messages waiting to be relayed', labelNames: ['pairing'], registers: r }),
  };
}
