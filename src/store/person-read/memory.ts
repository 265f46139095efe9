// The person-read concern in the in-memory backend: person -> conversation -> marker.

import type { MemoryAdapter } from '../part.js';
import type { PersonReadState } from './decide.js';
import { advancesMarker, type PersonReadEffect } from './ops.js';
import type { PersonReadMarker, PersonReadReads } from './records.js';

export class MemoryPersonRead implements MemoryAdapter<PersonReadEffect, PersonReadState, PersonReadReads> {
  private readonly byPerson = new Map<string, Map<string, PersonReadMarker>>();

  apply(e: PersonReadEffect): void {
    let mine = this.byPerson.get(e.person);
    if (!mine) this.byPerson.set(e.person, (mine = new Map()));
    if (advancesMarker(mine.get(e.marker.conv), e.marker)) mine.set(e.marker.conv, { ...e.marker });
  }

  readonly state: PersonReadState = {};

  readonly reads: PersonReadReads = {
    markers: async (person) => [...(this.byPerson.get(person)?.values() ?? [])].map((m) => ({ ...m })),
  };
}
