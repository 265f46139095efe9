// The basis of a write: the versions of the rooms and agents a message was decided on when the
// decision read them from what this instance kept (tentative.ts). The write checks them as it
// commits and writes nothing when one has changed (StaleBasis); PostgresStore.decide then decides
// again on fresh reads. All of it stays inside this backend: the store contract knows none of it.

import type { MessageInsertOp, WriteOp } from '../types.js';

/** A record as a decision saw it: its row version (null: not stored). */
export interface Basis {
  kind: 'room' | 'agent';
  id: string;
  version: string | null;
}

/** A message insert that carries the basis it was decided on. */
export type BasedInsert = MessageInsertOp & { basis?: Basis[] };

/** The records the batch's messages were decided on. */
export function basisOf(ops: readonly WriteOp[]): Basis[] {
  const out: Basis[] = [];
  for (const op of ops) if (op.op === 'message.insert' && (op as BasedInsert).basis) out.push(...(op as BasedInsert).basis!);
  return out;
}

/** A write refused because a record of its basis changed: nothing was written. */
export class StaleBasis extends Error {
  readonly code = 'stale';
  constructor() {
    super('a room or agent this message was decided on has changed');
  }
}
