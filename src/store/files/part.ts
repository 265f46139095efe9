// The files concern as one store part (part.ts): uploads' records and the messages that reference
// them. Kept by the files feature (src/files/); the bytes are its blob store's.

import type { StorePart } from '../part.js';
import { decideFile, FileOverlay, type FileState } from './decide.js';
import { MemoryFiles } from './memory.js';
import { isFileEffect, type FileEffect, type FileOp, type FileOutcome } from './ops.js';
import { postgresFiles } from './postgres.js';
import type { FileReads } from './records.js';
import { sqliteFiles } from './sqlite.js';

export const filesPart: StorePart<FileOp, FileOutcome, FileEffect, FileState, FileReads> = {
  name: 'files',
  ops: ['file.add', 'file.ref', 'file.remove'],
  owns: isFileEffect,
  // A reference names its message (not_found otherwise); Postgres locks its row too.
  needs: (op) => (op.op === 'file.ref' ? { messages: [op.ref.message_id] } : {}),
  decide: decideFile,
  overlay: (base) => new FileOverlay(base),
  memory: () => new MemoryFiles(),
  sqlite: sqliteFiles,
  postgres: postgresFiles,
  // With each page of copied messages, the files they reference and the references (uploads no
  // message references are not carried: they are drafts that expire). The bytes are the blob
  // store's: `svc export --with-files` carries them (src/export/with-files.ts).
  copy: {
    page: async (reads, messageIds) => {
      const refs = await reads.refsOfMessages(messageIds);
      const out: FileEffect[] = [];
      for (const id of new Set(refs.map((r) => r.file_id))) {
        const file = await reads.get(id);
        if (file) out.push({ op: 'file.put', file });
      }
      for (const ref of refs) if (out.some((e) => e.op === 'file.put' && e.file.id === ref.file_id)) out.push({ op: 'file.ref.put', ref });
      return out;
    },
  },
};
