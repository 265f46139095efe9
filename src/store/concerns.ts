// The one list of the stored concerns that are parts (part.ts); each adds its types to the store's
// unions itself (part.ts, PartTypes).
// A new stored concern is a folder of src/store/ with a StorePart, named here once; the features
// that use it declare it (src/feature.ts), and the store is opened with the parts of its features.

import type { AnyPart } from './part.js';
import { reactionsPart } from './reactions/part.js';
import { personReadPart } from './person-read/part.js';
import { webhooksPart } from './webhooks/part.js';
import { hooksPart } from './webhooks/applied/part.js';
import { receiptsPart } from './receipts/part.js';
import { filesPart } from './files/part.js';

export type { PartEffect, PartOp, PartOutcome } from './part.js';

/** Every part, in the order each backend applies their effects: `svc store copy` and tools open stores with all of them. */
export const ALL_PARTS: readonly AnyPart[] = [reactionsPart, personReadPart, webhooksPart, hooksPart, receiptsPart, filesPart];

/** The parts of these names (a checkpoint worker gets names, not values); throws on an unknown name. */
export function partsNamed(names: readonly string[]): AnyPart[] {
  return names.map((n) => {
    const p = ALL_PARTS.find((x) => x.name === n);
    if (!p) throw new Error(`unknown store part ${JSON.stringify(n)}`);
    return p;
  });
}
