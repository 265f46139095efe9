// The applied hooks in the in-memory backend: records by kind and id.

import type { MemoryAdapter } from '../../part.js';
import { NO_STATE, type HooksState } from './decide.js';
import { hookKey, type HookEffect } from './ops.js';
import type { AppliedHookRecord, HookReads } from './records.js';

export class MemoryHooks implements MemoryAdapter<HookEffect, HooksState, HookReads> {
  private readonly byKey = new Map<string, AppliedHookRecord>();

  apply(e: HookEffect): void {
    if (e.op === 'hook.put') this.byKey.set(hookKey(e.hook), e.hook);
    else this.byKey.delete(hookKey(e));
  }

  readonly state: HooksState = NO_STATE;

  readonly reads: HookReads = {
    // By kind, then id, as every backend lists them.
    list: async () => [...this.byKey.values()].sort((a, b) => cmp(hookKey(a), hookKey(b))).map((h) => ({ ...h })),
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
