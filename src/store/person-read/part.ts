// People's read markers (#29 part 4) as one store part (part.ts): the console's unread counts keep
// them (src/console/feature.ts). `svc store copy` does not carry them, as before the part.

import type { StorePart } from '../part.js';
import { noOverlay, readPerson, type PersonReadState } from './decide.js';
import { MemoryPersonRead } from './memory.js';
import { isPersonReadEffect, type PersonReadEffect, type PersonReadOp, type PersonReadOutcome } from './ops.js';
import { postgresPersonRead } from './postgres.js';
import type { PersonReadReads } from './records.js';
import { sqlitePersonRead } from './sqlite.js';

export const personReadPart: StorePart<PersonReadOp, PersonReadOutcome, PersonReadEffect, PersonReadState, PersonReadReads> = {
  name: 'person-read',
  ops: ['person.read'],
  owns: isPersonReadEffect,
  needs: () => ({}),
  decide: readPerson,
  overlay: noOverlay,
  memory: () => new MemoryPersonRead(),
  sqlite: sqlitePersonRead,
  postgres: postgresPersonRead,
};
