// The reactions concern as one store part (part.ts): its op, its effects, and its adapters.

import type { StorePart } from '../part.js';
import { changeReaction, ReactionOverlay, type ReactionState } from './decide.js';
import { MemoryReactions } from './memory.js';
import { isReactionEffect, type ReactionChangeOp, type ReactionChangeOutcome, type ReactionEffect } from './ops.js';
import { postgresReactions } from './postgres.js';
import type { ReactionReads } from './records.js';
import { sqliteReactions } from './sqlite.js';

export const reactionsPart: StorePart<ReactionChangeOp, ReactionChangeOutcome, ReactionEffect, ReactionState, ReactionReads> = {
  name: 'reactions',
  ops: ['reaction.change'],
  owns: isReactionEffect,
  // The message must be stored (not_found otherwise); Postgres locks its row too.
  needs: (op) => ({ messages: [op.reaction.message_id] }),
  decide: changeReaction,
  overlay: (base) => new ReactionOverlay(base),
  memory: () => new MemoryReactions(),
  sqlite: sqliteReactions,
  postgres: postgresReactions,
  copy: {
    page: async (reads, messageIds) => (await reads.list(messageIds)).map((reaction) => ({ op: 'reaction.put', reaction })),
  },
};
