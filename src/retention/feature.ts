// Retention as a feature (#40 part 4): `server.retention` and `rooms[].retention` (svc.yaml, and
// `svc apply` for rooms) are kept by a purge that runs once a minute on one instance at a time
// (job.ts), counted by svc_retention_purged_messages_total; how long each of its writes held the
// event loop (the stall it causes) by svc_retention_write_seconds.

import { Counter, Histogram } from 'prom-client';
import type { FeatureFactory } from '../feature.js';
import { RetentionJob } from './job.js';

export const retentionFeature: FeatureFactory = (app) => {
  /** How often the purge runs (at least once a minute); tests set it lower, for the app they start. */
  const intervalMs = Number(process.env.SVC_RETENTION_INTERVAL_MS) || 60_000;
  const purged = new Counter({
    name: 'svc_retention_purged_messages_total',
    help: 'Messages removed by retention, by conversation kind',
    labelNames: ['kind'],
    registers: [app.metrics.registry],
  });
  const writes = new Histogram({
    name: 'svc_retention_write_seconds',
    help: 'The synchronous part of each purge write: how long it held the event loop',
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [app.metrics.registry],
  });
  const job = new RetentionJob(app.ctx, {
    purged: (kind, n) => purged.inc({ kind }, n),
    wrote: (ms) => writes.observe(ms / 1000),
  });
  let timer: NodeJS.Timeout | undefined;
  const run = () =>
    void job.tick().catch((err: unknown) => app.ctx.log('warn', 'retention purge failed', { error: (err as Error).message }));
  return {
    started: () => {
      timer = setInterval(run, intervalMs);
      timer.unref();
      run();
    },
    close: async () => {
      clearInterval(timer);
      await job.close();
    },
  };
};
