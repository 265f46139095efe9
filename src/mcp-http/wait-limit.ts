// The bound on concurrent wait_for_messages calls per agent on one instance: each wait holds an
// open request and a feed subscription for up to five minutes, so one agent (or one leaked token)
// cannot pin an instance with thousands of them. A call past the bound is a tool error at once.

import type { InboxPort } from '../mcp/session.js';

/** Concurrent wait_for_messages calls one agent may have open on one instance. */
export const WAITS_PER_AGENT = 4;

export class WaitLimit {
  readonly #open = new Map<string, number>();

  constructor(readonly max = WAITS_PER_AGENT) {}

  /** `inbox` whose waits count against `agentId`'s bound. */
  wrap(agentId: string, inbox: InboxPort): InboxPort {
    return {
      pending: (scope) => inbox.pending(scope),
      wait: async (scope, timeoutMs, signal) => {
        const n = this.#open.get(agentId) ?? 0;
        if (n >= this.max)
          throw new Error(
            `agent ${agentId} already has ${n} wait_for_messages calls open on this server (at most ${this.max}); let one return first`,
          );
        this.#open.set(agentId, n + 1);
        try {
          return await inbox.wait(scope, timeoutMs, signal);
        } finally {
          const left = (this.#open.get(agentId) ?? 1) - 1;
          if (left > 0) this.#open.set(agentId, left);
          else this.#open.delete(agentId);
        }
      },
    };
  }
}
