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
};
