// The remote A2A agents `svc apply` carries (`a2a_agents:`): their part of the request, and the dry
// run's plan of them. Run by the CLI (apply-section.ts declares it): it stands on the wire types
// alone, so the command loads nothing of the server.

import type { ApplySectionWork } from '../../feature-cli.js';

export const a2aAgentsApply: ApplySectionWork = {
  // Tokens were read from auth_env here (as hook secrets are): the server calls the agent with them.
  request: (config) => ({ a2a_agents: config.a2a_agents }),
  // One the listing does not show is created; one it shows may differ in what it does not show (its card URL, token).
  plan: async (_client, req, agents) =>
    (req.a2a_agents ?? []).map((a) =>
      agents.some((x) => x.id === a.id)
        ? { kind: 'a2a_agent', id: a.id, action: 'unknown', details: ['registered; its card URL and token are not shown'] }
        : { kind: 'a2a_agent', id: a.id, action: 'created' },
    ),
};
