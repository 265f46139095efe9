// A reader as the receipts part stores it: `agent:<id>` or `human:<id>`. (Whom a request reads as
// is the network's: network/reached.ts, readingAs.)

import type { Reader } from '../protocol/types.js';

/** The stored key of a reader. */
export const readerKey = (r: Reader): string => `${r.type}:${r.id}`;

/** The reader of a stored key (undefined for a key of another form). */
export function readerOf(key: string): Reader | undefined {
  const i = key.indexOf(':');
  const type = key.slice(0, i);
  if (i < 1 || (type !== 'agent' && type !== 'human')) return undefined;
  return { type, id: key.slice(i + 1) };
}
