import { getAgent, listAgents, registerAgent, removeAgent } from '../../network/agents.js';
import { windowOf } from '../query.js';
import type { Route } from '../router.js';

export const agentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/agents',
    action: 'topology.list',
    handler: async ({ net, principal, url }) => ({ body: await listAgents(net, principal, windowOf(url.searchParams)) }),
  },
  {
    method: 'POST',
    path: '/v1/agents/register',
    action: 'agent.register',
    schema: 'register-agent',
    handler: async ({ net, principal, body }) => ({
      body: (await registerAgent(net, principal, body as { requested_agent_id?: string; name?: string })).registration,
    }),
  },
  {
    method: 'GET',
    path: '/v1/agents/:agent_id',
    action: 'topology.get',
    handler: async ({ net, principal, params }) => ({ body: await getAgent(net, principal, params.agent_id!) }),
  },
  {
    method: 'DELETE',
    path: '/v1/agents/:agent_id',
    action: 'admin',
    handler: async ({ net, params }) => ({ body: await removeAgent(net, params.agent_id!) }),
  },
];
