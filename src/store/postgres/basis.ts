// The basis of a write: the versions of the rooms and agents a message was decided on when the
// decision read them from what this instance kept (tentative.ts). The write checks them as it
// commits and writes nothing when one has changed (StaleBasis); PostgresStore.decide then decides
// again on fresh reads. All of it stays inside this backend: the store contract knows none of it.

import type { MessageInsertOp, RoomRecord, StoredEvent, WriteOp } from '../types.js';
import { giveRooms } from '../event-rooms.js';

/** A record as a decision saw it: its row version (null: not stored). */
export interface Basis {
  kind: 'room' | 'agent';
  id: string;
  version: string | null;
}

/** A message insert that carries the basis it was decided on, and the rooms of that basis. */
export type BasedInsert = MessageInsertOp & { basis?: Basis[]; rooms?: RoomRecord[] };

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

/**
 * Gives each event of a write that only appends (write.ts `optimistic`) the room its message was
 * decided on (StoredEvent.room). The basis guard confirmed, as the write committed, that the room
 * was still that record, and nothing in the write changed it: live delivery takes the audience from
 * it instead of reading the room again, a transaction per send where the agents are attached to
 * the instance that takes the sends (the feed's pages of other instances' events carry it already).
 */
export function withDecidedRooms(ops: readonly WriteOp[], events: readonly StoredEvent[]): void {
  giveRooms(decidedRooms(ops), events);
}

/** The rooms the batch's messages were decided on. */
export function decidedRooms(ops: readonly WriteOp[]): RoomRecord[] {
  const rooms = new Map<string, RoomRecord>();
  for (const op of ops) for (const r of (op as BasedInsert).rooms ?? []) rooms.set(r.id, r);
  return [...rooms.values()];
}
