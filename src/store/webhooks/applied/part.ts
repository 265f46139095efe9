// The hooks `svc apply` declared as one store part (store/part.ts): its op, its effects, and its
// adapters. Kept by the webhooks feature (src/webhooks/feature.ts, applied.ts); not copied by `svc
// store copy` (the target's operator applies its own).

import type { StorePart } from '../../part.js';
import { applyHooks, hooksOverlay, type HooksState } from './decide.js';
import { MemoryHooks } from './memory.js';
import { isHookEffect, type HookEffect, type HooksApplyOp, type HooksApplyOutcome } from './ops.js';
import { postgresHooks } from './postgres.js';
import type { HookReads } from './records.js';
import { sqliteHooks } from './sqlite.js';

export const hooksPart: StorePart<HooksApplyOp, HooksApplyOutcome, HookEffect, HooksState, HookReads> = {
  name: 'hooks',
  ops: ['hooks.apply'],
  owns: isHookEffect,
  needs: () => ({}),
  decide: applyHooks,
  overlay: hooksOverlay,
  memory: () => new MemoryHooks(),
  sqlite: sqliteHooks,
  postgres: postgresHooks,
};
