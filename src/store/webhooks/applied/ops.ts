// The applied-hooks concern's write intent, its outcome and the effects it resolves to (decide.ts).

import type { AppliedHookRecord } from './records.js';

/** Stores applied hooks whole (a stored kind+id is replaced); `remove` deletes them by kind and id. */
export interface HooksApplyOp {
  op: 'hooks.apply';
  put: AppliedHookRecord[];
  remove?: { kind: AppliedHookRecord['kind']; id: string }[];
}

export interface HooksApplyOutcome {
  op: 'hooks.apply';
}

/** What a hooks.apply does to stored state. */
export type HookEffect = { op: 'hook.put'; hook: AppliedHookRecord } | { op: 'hook.delete'; kind: AppliedHookRecord['kind']; id: string };

export const isHookEffect = (e: { op: string }): e is HookEffect => e.op === 'hook.put' || e.op === 'hook.delete';

/** A hook's key: its kind and id. */
export const hookKey = (h: { kind: AppliedHookRecord['kind']; id: string }): string => `${h.kind}\n${h.id}`;

// This concern's row of the store's op, outcome and effect unions (part.ts, PartTypes).
declare module '../../part.js' {
  interface PartTypes {
    hooks: { op: HooksApplyOp; outcome: HooksApplyOutcome; effect: HookEffect };
  }
}
