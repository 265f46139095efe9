// Who reads: the stored reader key (`agent:<id>`, `human:<id>`) and the identity a request reads as.
// An agent token reads as its agent; any other caller reads as someone only when it names them
// (`as`) and may act as them: an agent it may assert, or a person when it may send as a person.

import { mayAssertAgent, type Principal } from '../auth/principal.js';
import { canSendHuman } from '../auth/senders.js';
import type { ReceiptReader } from '../protocol/types.js';

/** The stored key of a reader. */
export const readerKey = (r: ReceiptReader): string => `${r.type}:${r.id}`;

/** The reader of a stored key (undefined for a key of another form). */
export function readerOf(key: string): ReceiptReader | undefined {
  const i = key.indexOf(':');
  const type = key.slice(0, i);
  if (i < 1 || (type !== 'agent' && type !== 'human')) return undefined;
  return { type, id: key.slice(i + 1) };
}

/**
 * Whom a read by `p` counts for: its own agent for an agent token, else the one named by `as`
 * (`<agent id>` or `human:<id>`) when `p` may act as them; undefined when nobody.
 */
export function readingAs(p: Principal, as: string | undefined, humanIngress: boolean): ReceiptReader | undefined {
  if (p.kind === 'agent') return as === undefined || as === p.agentId ? { type: 'agent', id: p.agentId } : undefined;
  if (as === undefined || as === '' || p.kind === 'anonymous') return undefined;
  if (as.startsWith('human:')) {
    const id = as.slice('human:'.length);
    return id !== '' && canSendHuman(humanIngress, p) ? { type: 'human', id } : undefined;
  }
  return mayAssertAgent(p, as) ? { type: 'agent', id: as } : undefined;
}
