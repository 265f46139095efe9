// The agent cards of the A2A gateway (A2A 1.0, section Agent Card): one for the network, at
// /.well-known/agent-card.json, whose skills are the agents that opted in (server.a2a.agents),
// and one per such agent at /v1/a2a/agents/{id}/.well-known/agent-card.json, naming its base URL
// for both bindings (JSON-RPC: POST to it; HTTP+JSON: the paths below it). Pure: the cards as the
// JSON the spec shows, from the config, the agents and the base URL the caller reached.

import type { Config } from '../../config/types.js';

/** The base path of an agent on the gateway. */
export const agentPath = (id: string): string => `/v1/a2a/agents/${encodeURIComponent(id)}`;

/** The A2A protocol version both bindings speak. */
export const PROTOCOL_VERSION = '1.0';

/** An agent as its card shows it. */
export interface CardAgent {
  id: string;
  name?: string;
}

/** Whether `id` opted in to the gateway: named in server.a2a.agents, or that list holds `*`. */
export function optedIn(config: Config, id: string): boolean {
  const agents = config.server.a2a?.agents ?? [];
  return agents.includes('*') || agents.includes(id);
}

/** Bearer tokens: an agent token, a write token that acts as one agent, an OAuth token granted `a2a`. */
const SECURITY = {
  securitySchemes: {
    bearer: {
      httpAuthSecurityScheme: {
        scheme: 'Bearer',
        description: "svc's agent token, a write token that may act as exactly one agent, or an OAuth access token with the a2a scope",
      },
    },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
};

const MODES = { defaultInputModes: ['text/plain', 'application/json'], defaultOutputModes: ['text/plain', 'application/json'] };

const skillOf = (a: CardAgent, net: string) => ({
  id: a.id,
  name: a.name ?? a.id,
  description: `Agent ${a.id} of network ${net}: a message becomes a direct message to it, its reply the task's result.`,
  tags: ['svc', 'agent'],
});

/** The card of one agent on this network, reached at `base`. */
export function agentCard(config: Config, a: CardAgent, base: string, version: string, push: boolean): Record<string, unknown> {
  const url = `${base}${agentPath(a.id)}`;
  return {
    name: a.name ?? a.id,
    description: `Agent ${a.id} of the svc network ${config.network.name} (${config.network.id}), reached through its A2A gateway.`,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: PROTOCOL_VERSION },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: PROTOCOL_VERSION },
    ],
    provider: { organization: config.network.name, url: base },
    version,
    documentationUrl: `${base}/llms.txt`,
    capabilities: { streaming: true, pushNotifications: push },
    ...SECURITY,
    ...MODES,
    skills: [skillOf(a, config.network.id)],
  };
}

/**
 * The network's card: each agent that opted in is a skill (its id the skill's id). A client talks
 * to one agent through that agent's own card; the network's interfaces point at the first agent's,
 * for a client that sends to the network card itself.
 */
export function networkCard(
  config: Config,
  agents: readonly CardAgent[],
  base: string,
  version: string,
  push: boolean,
): Record<string, unknown> {
  const first = agents[0];
  const interfaces = first
    ? [
        { url: `${base}${agentPath(first.id)}`, protocolBinding: 'JSONRPC', protocolVersion: PROTOCOL_VERSION },
        { url: `${base}${agentPath(first.id)}`, protocolBinding: 'HTTP+JSON', protocolVersion: PROTOCOL_VERSION },
      ]
    : [];
  return {
    name: config.network.name,
    description: `The svc network ${config.network.name} (${config.network.id}). Each skill is one of its agents; each agent's own card is at ${base}/v1/a2a/agents/{skill id}/.well-known/agent-card.json.`,
    supportedInterfaces: interfaces,
    provider: { organization: config.network.name, url: base },
    version,
    documentationUrl: `${base}/llms.txt`,
    capabilities: { streaming: true, pushNotifications: push },
    ...SECURITY,
    ...MODES,
    skills: agents.map((a) => skillOf(a, config.network.id)),
  };
}
