// The request limits as a feature (server.limits): an admission check for every routed request
// and attach upgrade, which also counts failed authentications per address. The limiter itself is limiter.ts beside it.

import { Counter } from 'prom-client';
import type { FeatureFactory } from '../feature.js';
import { RequestLimits } from './limiter.js';

export const requestLimitsFeature: FeatureFactory = (app) => {
  const limitRefusals = new Counter({
    name: 'svc_request_limit_refusals_total',
    help: 'Requests refused by server.limits',
    registers: [app.metrics.registry],
  });
  const limits = new RequestLimits(app.ctx.config.server.limits);
  return {
    admit: (req, principal, failedAuth) => {
      try {
        limits.admit(req, principal, failedAuth);
      } catch (err) {
        limitRefusals.inc();
        throw err;
      }
    },
    reloaded: (config) => limits.configure(config.server.limits),
  };
};
