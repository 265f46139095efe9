// Store.decide for backends whose reads are current (memory, sqlite), and the fallback of the
// others: the decision runs once on the store's own reads and its intents are written.

import type { Decide, DecisionReads, Store, WriteOp, WriteResult } from './types.js';

/** The store's reads as a decision sees them. */
export function freshReads(store: Store): DecisionReads {
  return {
    room: (id) => store.getRoom(id),
    agent: (id) => store.getAgent(id),
    thread: (id) => store.getThread(id),
    message: (id) => store.getMessage(id),
    dm: (id) => store.getDm(id),
  };
}

/** Decides on fresh reads and writes what was decided. */
export async function decideOnFreshReads<T>(store: Store, decide: Decide<T>, write: (ops: WriteOp[]) => Promise<WriteResult>): Promise<T> {
  const d = await decide(freshReads(store));
  if ('answer' in d) return d.answer;
  return d.reply(await write(d.write));
}
