// The webhooks feature's sections of the file `svc apply` carries: `webhooks:` and `inbound_hooks:`.
// Declared here for the command's help and the keys a declarations file may have; the work
// (apply-plan.ts) loads only when `svc apply` runs.

import type { ApplySection } from '../feature-cli.js';

export const hooksApplySection: ApplySection = {
  keys: ['webhooks', 'inbound_hooks'],
  what: ['webhooks', 'inbound hooks'],
  work: async () => (await import('./apply-plan.js')).hooksApply,
};
