// The files concern in the in-memory backend: records by id, references by file.

import type { MemoryAdapter } from '../part.js';
import type { FileState } from './decide.js';
import type { FileEffect } from './ops.js';
import type { FileReads, FileRecord, FileRef } from './records.js';

export class MemoryFiles implements MemoryAdapter<FileEffect, FileState, FileReads> {
  private readonly files = new Map<string, FileRecord>();
  private readonly refsOf = new Map<string, FileRef[]>();
  /** Files a forgotten message referenced: collectable whatever their age. */
  private readonly released = new Set<string>();

  apply(e: FileEffect): void {
    if (e.op === 'file.put') this.files.set(e.file.id, { ...e.file });
    else if (e.op === 'file.delete') {
      this.files.delete(e.id);
      this.refsOf.delete(e.id);
      this.released.delete(e.id);
    } else {
      const list = this.refsOf.get(e.ref.file_id) ?? [];
      if (!list.some((r) => r.message_id === e.ref.message_id)) this.refsOf.set(e.ref.file_id, [...list, { ...e.ref }]);
    }
  }

  // A deleted message references nothing; a file it referenced may be collected at once once no
  // other message does (as the SQL backends set its collection time back to the start).
  forget(messageId: string): void {
    for (const [id, list] of this.refsOf) {
      const left = list.filter((r) => r.message_id !== messageId);
      if (left.length === list.length) continue;
      this.released.add(id);
      if (left.length > 0) this.refsOf.set(id, left);
      else this.refsOf.delete(id);
    }
  }

  readonly state: FileState = {
    file: (id) => this.files.get(id),
    refCount: (id) => this.refsOf.get(id)?.length ?? 0,
  };

  readonly reads: FileReads = {
    get: async (id) => {
      const f = this.files.get(id);
      return f && { ...f };
    },
    refs: async (id) => (this.refsOf.get(id) ?? []).map((r) => ({ ...r })),
    refsOfMessages: async (ids) => {
      const want = new Set(ids);
      return [...this.refsOf.values()]
        .flat()
        .filter((r) => want.has(r.message_id))
        .map((r) => ({ ...r }));
    },
    unreferenced: async (before, limit) =>
      [...this.files.values()]
        .filter((f) => (f.created_at < before || this.released.has(f.id)) && !this.refsOf.has(f.id))
        .sort((a, b) => {
          const x = this.released.has(a.id) ? '' : a.created_at;
          const y = this.released.has(b.id) ? '' : b.created_at;
          return x < y ? -1 : x > y ? 1 : 0;
        })
        .slice(0, limit)
        .map((f) => ({ ...f })),
    blobUsers: async (sha256) => [...this.files.values()].filter((f) => f.sha256 === sha256).length,
  };
}
