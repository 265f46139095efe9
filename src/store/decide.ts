// Store.decide for backends whose reads are current (memory, sqlite), and the fallback of the
// others: the decision runs once on the store's own reads and its intents are written.

import type { Decide, DecisionReads, Store, WriteOp, WriteResult } from './types.js';

/** The store's reads as a decision sees them. */
export function freshReads(store: Pick<Store, 'getRoom' | 'getAgent' | 'getThread' | 'getMessage' | 'getDm'>): DecisionReads {
  return {
    room: (id) => store.getRoom(id),
    agent: (id) => store.getAgent(id),
    thread: (id) => store.getThread(id),
    message: (id) => store.getMessage(id),
    dm: (id) => store.getDm(id),
  };
}

/** Decides on fresh reads and writes what was decided. */
export function decideOnFreshReads<T>(store: Store, decide: Decide<T>, write: (ops: WriteOp[]) => Promise<WriteResult>): Promise<T> {
  return decideOn(freshReads(store), decide, write);
}

/** Decides on `reads` (current ones) and writes what was decided. */
export async function decideOn<T>(reads: DecisionReads, decide: Decide<T>, write: (ops: WriteOp[]) => Promise<WriteResult>): Promise<T> {
  const d = await decide(reads);
  if ('answer' in d) return d.answer;
  return d.reply(await write(d.write));
}
