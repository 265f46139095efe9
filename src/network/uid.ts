// The network's own unique id (issue 38 item 19): generated once, on the first start of a store, and
// kept in it, so every instance on the store (several `svc serve` on one Postgres schema, a copy of
// its sqlite file, a `svc store copy`) answers the same one, and another network that happens to
// share its `network.id` (two networks both called `home`) never does. Clients key what they keep
// per network (agent tokens, `svc mcp` cursors) by the id and this uid. Shown in GET /v1/network.
// The memory store keeps nothing, this uid included, so each start of it is a new uid, on purpose:
// a restarted memory network has none of the agents, tokens or messages of the last start, so a
// token kept for that one would only be refused (401); with a new uid none is found, and the
// command says so with the way to register the agent again. No cursor or read marker of it is resumed.

import { newId } from '../protocol/ids.js';
import type { KvTable } from '../store/types.js';

const KIND = 'network';
const ID = 'uid';

/** The network uid a store keeps, without making one (`svc restore` compares it with a backup's). */
export async function storedUid(kv: KvTable): Promise<string | undefined> {
  const stored = await kv.get(KIND, ID);
  return stored ? (JSON.parse(stored.value) as string) : undefined;
}

/** The store's network uid; the first caller on a new store generates it (of two racing instances one wins). */
export async function networkUid(kv: KvTable): Promise<string> {
  const stored = await kv.get(KIND, ID);
  if (stored) return JSON.parse(stored.value) as string;
  const kept = await kv.putIfAbsent({ kind: KIND, id: ID, value: JSON.stringify(newId('nuid')) });
  return JSON.parse(kept.value) as string;
}
