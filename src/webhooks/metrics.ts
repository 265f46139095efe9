// Metrics per outbound webhook, on the app's registry (label values are webhook ids from svc.yaml).

import { Counter, Gauge, type Registry } from 'prom-client';

export interface WebhookMetrics {
  /** Deliveries the target took (2xx). */
  delivered: Counter<'webhook'>;
  /** Failed attempts (each retry counts), and deliveries dead-lettered. */
  failed: Counter<'webhook'>;
  dead: Counter<'webhook'>;
  /** Deliveries waiting (pending) on the instance that delivers the webhook. */
  pending: Gauge<'webhook'>;
  /** Age in seconds of the oldest pending delivery (0: none): how far behind the target is. */
  lag: Gauge<'webhook'>;
}

export function webhookMetrics(registry: Registry): WebhookMetrics {
  const registers = [registry];
  return {
    delivered: new Counter({
      name: 'svc_webhook_delivered_total',
      help: 'Webhook deliveries the target took',
      labelNames: ['webhook'],
      registers,
    }),
    failed: new Counter({ name: 'svc_webhook_failed_total', help: 'Failed webhook delivery attempts', labelNames: ['webhook'], registers }),
    dead: new Counter({ name: 'svc_webhook_dead_total', help: 'Webhook deliveries dead-lettered', labelNames: ['webhook'], registers }),
    pending: new Gauge({ name: 'svc_webhook_pending', help: 'Webhook deliveries waiting', labelNames: ['webhook'], registers }),
    lag: new Gauge({
      name: 'svc_webhook_lag_seconds',
      help: 'Age of the oldest waiting webhook delivery',
      labelNames: ['webhook'],
      registers,
    }),
  };
}
