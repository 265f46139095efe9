// The ingest-shaped writes of the in-process store benchmarks (store-write.ts, store-ab.ts): a
// room with one member, then one message per write, shaped as sendMessage's, `concurrency` writes
// in flight at a time (as concurrent HTTP requests would be).

import { newId } from '../../src/protocol/ids.js';
import type { Message, ServiceEvent } from '../../src/protocol/types.js';
import type { Store } from '../../src/store/types.js';

/** What the writes need of a store (store-ab.ts passes another checkout's, of the same shape). */
export type Writable = Pick<Store, 'write'>;

const from = { type: 'agent' as const, id: 'p', network_id: 'n', fqid: 'svc://n/agents/p' };

/** Creates room `r` (member `p`), where the writes go. */
export async function createIngestRoom(store: Writable): Promise<void> {
  await store.write([
    {
      op: 'room.create',
      room: { id: 'r', name: 'r', members: ['p'], visibility: 'public', write_policy: 'members' },
      at: 'x',
      event: () => ({ id: newId('evt'), type: 'room.created', network_id: 'n', created_at: 'x' }),
    },
  ]);
}

/** Writes `n` messages of `text` to room `r`, one per write, `concurrency` at a time; `minted`: ids minted as a send without an id has them. */
export async function writeIngest(store: Writable, n: number, concurrency: number, text: string, minted = false): Promise<void> {
  const one = () => {
    const at = new Date().toISOString();
    const message: Message = {
      id: newId('msg'),
      network_id: 'n',
      target: { kind: 'room', room_id: 'r' },
      from,
      parts: [{ kind: 'text', text }],
      mentions: [],
      created_at: at,
    };
    const event: ServiceEvent = { id: newId('evt'), type: 'message.created', network_id: 'n', created_at: at, message };
    return store.write([
      {
        op: 'message.insert',
        record: { message, conv: 'room:r', event_id: event.id },
        ...(minted ? { minted } : {}),
        event,
        artifacts: [],
      },
    ]);
  };
  for (let i = 0; i < n; i += concurrency) {
    const batch = [];
    for (let j = 0; j < concurrency && i + j < n; j++) batch.push(one());
    await Promise.all(batch);
  }
}
