// The feature's stored parts as it reads them: the webhook outbox (store/webhooks/) and the hooks
// `svc apply` declared (store/webhooks/applied/). The feature declares both (feature.ts), so a store it runs
// on has them; one opened without them is a wiring mistake, named rather than read as empty.

import { hooksPart } from '../store/webhooks/applied/part.js';
import type { HookReads } from '../store/webhooks/applied/records.js';
import type { Store } from '../store/types.js';
import { webhooksPart } from '../store/webhooks/part.js';
import type { WebhookReads } from '../store/webhooks/records.js';

const missing = (name: string) => new Error(`the store was opened without the ${name} part, which the webhooks feature keeps`);

/** The outbox's reads of `store`. */
export function outboxOf(store: Store): WebhookReads {
  const reads = store.part(webhooksPart);
  if (!reads) throw missing(webhooksPart.name);
  return reads;
}

/** The applied hooks' reads of `store`. */
export function appliedOf(store: Store): HookReads {
  const reads = store.part(hooksPart);
  if (!reads) throw missing(hooksPart.name);
  return reads;
}
