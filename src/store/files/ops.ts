// The files concern's write intents, their outcomes and the effects they resolve to (decide.ts).

import type { FileRecord, FileRef } from './records.js';

/** Stores a new upload's record (its blob is already kept). `conflict` when the id is taken. */
export interface FileAddOp {
  op: 'file.add';
  file: FileRecord;
}

/**
 * Notes that a message references a file, in the message's own batch; `not_found` when no such
 * file (or message) is stored, which refuses the send.
 */
export interface FileRefOp {
  op: 'file.ref';
  ref: FileRef;
}

/** Forgets an unreferenced file (collection); one a message references meanwhile stays (`removed: false`). */
export interface FileRemoveOp {
  op: 'file.remove';
  id: string;
}

export type FileOp = FileAddOp | FileRefOp | FileRemoveOp;

export type FileOutcome =
  | { op: 'file.add'; file: FileRecord }
  | { op: 'file.ref'; file: FileRecord }
  | { op: 'file.remove'; removed: boolean; file?: FileRecord };

/** What the files ops do to stored state. */
export type FileEffect = { op: 'file.put'; file: FileRecord } | { op: 'file.ref.put'; ref: FileRef } | { op: 'file.delete'; id: string };

const EFFECTS = new Set(['file.put', 'file.ref.put', 'file.delete']);
export const isFileEffect = (e: { op: string }): e is FileEffect => EFFECTS.has(e.op);

// This concern's row of the store's op, outcome and effect unions (part.ts, PartTypes).
declare module '../part.js' {
  interface PartTypes {
    files: { op: FileOp; outcome: FileOutcome; effect: FileEffect };
  }
}
