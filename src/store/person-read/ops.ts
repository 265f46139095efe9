// The person-read concern's write intent, its outcome, the effect it resolves to, and the one rule
// every backend applies to that effect (advancesMarker).

import type { PersonReadMarker } from './records.js';

/**
 * Moves one person's markers forward; a marker older than the stored one changes nothing. Never
 * reads stored state in the decision, so it cannot race: the backend applies the same comparison.
 */
export interface PersonReadOp {
  op: 'person.read';
  /** Who: `token:<id>`, `agent:<id>`, or `trusted` (auth off). */
  person: string;
  markers: PersonReadMarker[];
}

/** What a person.read did (nothing to report: a marker that did not advance is no refusal). */
export interface PersonReadOutcome {
  op: 'person.read';
}

/** One marker to store if it advances the stored one ("advance if newer", applied by each backend). */
export interface PersonReadEffect {
  op: 'person_read.advance';
  person: string;
  marker: PersonReadMarker;
}

export const isPersonReadEffect = (e: { op: string }): e is PersonReadEffect => e.op === 'person_read.advance';

/**
 * Whether `next` replaces `prev` (the same rule as agents' read markers: not older, another
 * message). The SQL backends write the same comparison into their upserts.
 */
export function advancesMarker(prev: PersonReadMarker | undefined, next: PersonReadMarker): boolean {
  return prev === undefined || (prev.at <= next.at && prev.message_id !== next.message_id);
}

// This concern's row of the store's op, outcome and effect unions (part.ts, PartTypes).
declare module '../part.js' {
  interface PartTypes {
    personRead: { op: PersonReadOp; outcome: PersonReadOutcome; effect: PersonReadEffect };
  }
}
