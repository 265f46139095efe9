// The applied-hooks concern's part of the resolver (intents.ts): a hooks.apply replaces whole
// records, so it is decided on no stored state and a batch has nothing to lay over.

import type { CoreView, Overlaid, Put } from '../../part.js';
import type { HookEffect, HooksApplyOp, HooksApplyOutcome } from './ops.js';

/** What a hooks.apply is decided on: nothing. */
export type HooksState = Record<never, never>;

export const NO_STATE: HooksState = {};

export function applyHooks(_core: CoreView, _state: HooksState, op: HooksApplyOp, put: Put<HookEffect>): HooksApplyOutcome {
  // A removed hook that is also put is replaced: one effect per row (Postgres runs a batch as one statement).
  for (const r of op.remove ?? [])
    if (!op.put.some((h) => h.kind === r.kind && h.id === r.id)) put({ op: 'hook.delete', kind: r.kind, id: r.id });
  for (const hook of op.put) put({ op: 'hook.put', hook });
  return { op: 'hooks.apply' };
}

/** Later ops of a batch read nothing, so the overlay keeps nothing. */
export const hooksOverlay = (base: HooksState): Overlaid<HooksState, HookEffect> => ({ ...base, note: () => {} });
