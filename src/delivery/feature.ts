// Delivery an operator can see (#42 part 4), as a feature: per agent, what holds its attachment,
// the wakes handed over and not acknowledged, the last ACK and read (GET /v1/agents/{id}/delivery);
// the agent_wakes_waiting warning (GET /v1/network, svc doctor); per-agent gauges on /metrics.
// Attachments tell it what happened through `ctx.extensions.delivery` (network/delivery.ts), MCP
// waits and history reads through what reached whom (network/reached.ts); the redelivery itself is the attachment's (src/live/attach/session.ts),
// which knows the socket. Everything is kept in the store's key/value table, so every instance on
// one Postgres store answers alike; the warning and the gauges come from a summary each instance
// re-reads from the store every few seconds.

import { Counter, Gauge } from 'prom-client';
import type { DeliveryConfig } from '../config/types.js';
import type { FeatureFactory } from '../feature.js';
import { deliverySettings, type Deliveries } from '../network/delivery.js';
import { deliveryRoutes } from './routes.js';
import { DeliveryState } from './state.js';
import { ageSeconds, waitingAgents, waitingWarning, type Waiting } from './view.js';

/** Agents given their own gauge series at most (the longest waiting): bounds /metrics' cardinality. */
export const METRIC_AGENTS = 100;

/** How often the summary behind the warning is re-read: a quarter of the threshold, between 250 ms and 5 s. */
const refreshMs = (c: DeliveryConfig): number => Math.min(5000, Math.max(250, Math.floor(c.warn_after_ms / 4)));

export const deliveryFeature: FeatureFactory = (app) => {
  const { ctx } = app;
  const state = new DeliveryState(ctx);
  let waiting: Waiting[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const refresh = async (): Promise<Waiting[]> => {
    try {
      const rows = await state.allWakes();
      // A removed agent's rows are no one's to acknowledge: not reported. (Few rows when all is well.)
      const ids = [...new Set(rows.map((w) => w.agent_id))];
      const known = new Set((await Promise.all(ids.map((id) => ctx.store.getAgent(id)))).flatMap((a) => (a ? [a.id] : [])));
      waiting = waitingAgents(rows.filter((w) => known.has(w.agent_id)));
      state.forget(rows.filter((w) => !known.has(w.agent_id)));
    } catch (err) {
      // A read cut short by the store closing under it is no news.
      if (!closed) ctx.log('warn', 'delivery: the pending wakes could not be read', { error: String((err as Error)?.message ?? err) });
    }
    return waiting;
  };
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void refresh().finally(schedule), refreshMs(deliverySettings(ctx.config)));
    timer.unref();
  };

  const reg = [app.metrics.registry];
  new Gauge({
    name: 'svc_agent_pending_wakes',
    help: `Wakes handed to the agent and not acknowledged (agents with any, the ${METRIC_AGENTS} longest waiting)`,
    labelNames: ['agent'],
    registers: reg,
    async collect() {
      this.reset();
      for (const w of (await refresh()).slice(0, METRIC_AGENTS)) this.set({ agent: w.agent_id }, w.pending);
    },
  });
  new Gauge({
    name: 'svc_agent_oldest_pending_seconds',
    help: `Age of the agent's oldest unacknowledged wake (agents with any, the ${METRIC_AGENTS} longest waiting)`,
    labelNames: ['agent'],
    registers: reg,
    collect() {
      this.reset();
      const now = Date.now();
      for (const w of waiting.slice(0, METRIC_AGENTS)) this.set({ agent: w.agent_id }, ageSeconds(w.oldest_at, now));
    },
  });
  const redelivered = new Counter({ name: 'svc_wake_redeliveries_total', help: 'Wakes sent again for want of an ACK', registers: reg });
  const gaveUp = new Counter({
    name: 'svc_wake_redelivery_exhausted_total',
    help: 'Wakes offered server.delivery.max_offers times without an ACK (reported, kept pending)',
    registers: reg,
  });

  const delivery: Deliveries = {
    attached: (agentId, by, client, ttlMs, startCursor) => state.attached(agentId, by, client, ttlMs, startCursor),
    renew: (agentId, by, client, since, ttlMs) => state.renew(agentId, by, client, since, ttlMs),
    detached: (agentId, by) => state.detached(agentId, by),
    offered: (agentId, w, offers) => {
      if (offers > 1) redelivered.inc();
      state.offered(agentId, w, offers);
    },
    acked: (agentId, wakes) => state.acked(agentId, wakes),
    gaveUp: (agentId, w) => {
      gaveUp.inc();
      state.gaveUp(agentId, w);
    },
  };

  schedule();
  return {
    routes: deliveryRoutes(state),
    provides: { delivery },
    // An MCP wait's hand-over is its acknowledgement; a history read is the agent's read.
    reached: {
      handedOver: (agentId) => state.acked(agentId, []),
      pageRead: (reader) => {
        if (reader.type === 'agent') state.read(reader.id);
      },
    },
    warnings: () => waitingWarning(waiting, deliverySettings(ctx.config).warn_after_ms, Date.now()),
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await state.settled();
    },
  };
};
