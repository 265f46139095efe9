// The person-read concern's part of the resolver (intents.ts). A person.read decides on no stored
// state: each marker becomes an effect, and the backend keeps it only if it advances the stored one.
// So the state it is decided on is empty, and so is the batch's overlay of it.

import type { CoreView, Overlaid, Put } from '../part.js';
import type { PersonReadEffect, PersonReadOp, PersonReadOutcome } from './ops.js';

/** What a person.read is decided on: nothing stored. */
export type PersonReadState = object;

export function readPerson(_core: CoreView, _state: PersonReadState, op: PersonReadOp, put: Put<PersonReadEffect>): PersonReadOutcome {
  for (const marker of op.markers) put({ op: 'person_read.advance', person: op.person, marker: { ...marker } });
  return { op: 'person.read' };
}

/** Nothing to lay over: later ops of a batch decide on nothing either. */
export const noOverlay = (): Overlaid<PersonReadState, PersonReadEffect> => ({ note() {} });
