// The unions the stored concerns' types join (concerns.ts lists the parts themselves). Types only,
// so the store's contract (types.ts, write-ops.ts, effects.ts) can name them without importing a part.

import type { ReactionChangeOp, ReactionChangeOutcome, ReactionEffect } from './reactions/ops.js';
import type { ReceiptEffect, ReceiptOp, ReceiptOutcome } from './receipts/ops.js';
import type { PersonReadEffect, PersonReadOp, PersonReadOutcome } from './person-read/ops.js';
import type { WebhookEffect, WebhookOp, WebhookOutcome } from './webhooks/ops.js';
import type { HookEffect, HooksApplyOp, HooksApplyOutcome } from './webhooks/applied/ops.js';
import type { FileEffect, FileOp, FileOutcome } from './files/ops.js';

/** The write ops the parts decide (write-ops.ts joins them to the core's). */
export type PartOp = ReactionChangeOp | PersonReadOp | WebhookOp | HooksApplyOp | ReceiptOp | FileOp;
/** What those ops did. */
export type PartOutcome = ReactionChangeOutcome | PersonReadOutcome | WebhookOutcome | HooksApplyOutcome | ReceiptOutcome | FileOutcome;
/** What those ops do to stored state (effects.ts joins them to the core's). */
export type PartEffect = ReactionEffect | PersonReadEffect | WebhookEffect | HookEffect | ReceiptEffect | FileEffect;
