// Metrics per remote A2A agent, on the app's registry (label values are a2a_agents ids).

import { Counter, Gauge, type Registry } from 'prom-client';

export interface A2aMetrics {
  /** 1 when the agent's last card check or call succeeded, 0 when it is down or not checked yet. */
  up: Gauge<'agent'>;
  /** Card checks that failed. */
  checkFailures: Counter<'agent'>;
  /** Mentions and DMs handled, by outcome: replied, failed (the call failed), down (answered with a notice at once). */
  messages: Counter<'agent' | 'outcome'>;
}

export function a2aMetrics(registry: Registry): A2aMetrics {
  const registers = [registry];
  return {
    up: new Gauge({
      name: 'svc_a2a_agent_up',
      help: 'Whether a remote A2A agent answers (1) or is down or unchecked (0)',
      labelNames: ['agent'],
      registers,
    }),
    checkFailures: new Counter({
      name: 'svc_a2a_card_check_failures_total',
      help: 'Failed card checks of a remote A2A agent',
      labelNames: ['agent'],
      registers,
    }),
    messages: new Counter({
      name: 'svc_a2a_messages_total',
      help: 'Mentions and DMs to a remote A2A agent, by outcome (replied, failed, down)',
      labelNames: ['agent', 'outcome'],
      registers,
    }),
  };
}
