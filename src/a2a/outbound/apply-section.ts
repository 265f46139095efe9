// The a2a-outbound feature's section of the file `svc apply` carries: `a2a_agents:`. Declared here
// for the command's help and the keys a declarations file may have; the work (apply-plan.ts) loads
// only when `svc apply` runs.

import type { ApplySection } from '../../feature-cli.js';

export const a2aAgentsApplySection: ApplySection = {
  keys: ['a2a_agents'],
  what: ['remote A2A agents'],
  work: async () => (await import('./apply-plan.js')).a2aAgentsApply,
};
