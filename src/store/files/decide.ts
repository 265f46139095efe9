// The files concern's part of the resolver (intents.ts): its ops decided against the current
// state, and the batch overlay's view of the files and references its earlier effects changed.

import type { CoreView, Put } from '../part.js';
import { StoreError } from '../types.js';
import type { FileEffect, FileOp, FileOutcome } from './ops.js';
import type { FileRecord } from './records.js';

/** What the files ops are decided on. */
export interface FileState {
  file(id: string): FileRecord | undefined;
  /** How many messages reference the file. */
  refCount(id: string): number;
}

export function decideFile(core: CoreView, state: FileState, op: FileOp, put: Put<FileEffect>): FileOutcome {
  switch (op.op) {
    case 'file.add':
      if (state.file(op.file.id)) throw new StoreError('conflict', `file ${op.file.id} exists`);
      put({ op: 'file.put', file: op.file });
      return { op: 'file.add', file: op.file };
    case 'file.ref': {
      const file = state.file(op.ref.file_id);
      if (!file) throw new StoreError('not_found', `file ${op.ref.file_id}`);
      if (!core.hasMessage(op.ref.message_id)) throw new StoreError('not_found', `message ${op.ref.message_id}`);
      put({ op: 'file.ref.put', ref: op.ref });
      return { op: 'file.ref', file };
    }
    case 'file.remove': {
      const file = state.file(op.id);
      if (!file || state.refCount(op.id) > 0) return { op: 'file.remove', removed: false, ...(file ? { file } : {}) };
      put({ op: 'file.delete', id: op.id });
      return { op: 'file.remove', removed: true, file };
    }
  }
}

/** The files and references a batch's earlier effects changed, laid over the base state. */
export class FileOverlay implements FileState {
  private files: Map<string, FileRecord | null> | undefined;
  private added: Map<string, number> | undefined;

  constructor(private readonly base: FileState) {}

  note(e: FileEffect): void {
    if (e.op === 'file.put') (this.files ??= new Map()).set(e.file.id, e.file);
    else if (e.op === 'file.delete') (this.files ??= new Map()).set(e.id, null);
    else (this.added ??= new Map()).set(e.ref.file_id, (this.added.get(e.ref.file_id) ?? 0) + 1);
  }

  file(id: string): FileRecord | undefined {
    const f = this.files?.get(id);
    return f === null ? undefined : (f ?? this.base.file(id));
  }

  refCount(id: string): number {
    return this.base.refCount(id) + (this.added?.get(id) ?? 0);
  }
}
