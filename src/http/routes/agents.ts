import { getAgent, listAgents, registerAgent, removeAgent } from '../../network/agents.js';
import { windowOf } from '../query.js';
import type { Route } from '../router.js';

export const agentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/agents',
    action: 'topology.list',
    handler: async ({ ctx, principal, url }) => ({ body: await listAgents(ctx, principal, windowOf(url.searchParams)) }),
  },
  {
    method: 'POST',
    path: '/v1/agents/register',
    action: 'agent.register',
    schema: 'register-agent',
    handler: async ({ ctx, principal, body }) => ({
      body: (await registerAgent(ctx, principal, body as { requested_agent_id?: string; name?: string })).registration,
    }),
  },
  {
    method: 'GET',
    path: '/v1/agents/:agent_id',
    action: 'topology.get',
    handler: async ({ ctx, principal, params }) => ({ body: await getAgent(ctx, principal, params.agent_id!) }),
  },
  {
    method: 'DELETE',
    path: '/v1/agents/:agent_id',
    action: 'admin',
    handler: async ({ ctx, params }) => ({ body: await removeAgent(ctx, params.agent_id!) }),
  },
];
