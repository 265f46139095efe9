// The bounds on concurrent wait_for_messages calls on one instance. Each wait holds an open request
// and a feed subscription for up to five minutes, so neither one agent, nor one credential acting as
// many agents, nor everyone together (100 self-registered agents are 100 credentials) may pin an
// instance with them. A call past a bound is a tool error at once, naming the bound and its key.

import type { InboxPort } from '../mcp/session.js';

/** Concurrent wait_for_messages calls one agent may have open on one instance. */
export const WAITS_PER_AGENT = 4;
/** Defaults of server.limits.mcp_waits_per_credential and mcp_waits_per_server (0 there: no cap). */
export const WAITS_PER_CREDENTIAL = 16;
export const WAITS_PER_SERVER = 1000;

export interface WaitCaps {
  /** Open waits per credential (0: no cap). */
  perCredential: number;
  /** Open waits on this instance (0: no cap). */
  perServer: number;
}

export class WaitLimit {
  readonly #byAgent = new Map<string, number>();
  readonly #byCredential = new Map<string, number>();
  #total = 0;

  constructor(
    /** Read at each call, so a reload's new limits hold for the next wait. */
    readonly caps: () => WaitCaps = () => ({ perCredential: WAITS_PER_CREDENTIAL, perServer: WAITS_PER_SERVER }),
    readonly perAgent = WAITS_PER_AGENT,
  ) {}

  get open(): number {
    return this.#total;
  }

  /** `inbox` whose waits count against `agentId`'s, `credential`'s and the instance's bounds. */
  wrap(agentId: string, credential: string, inbox: InboxPort): InboxPort {
    return {
      pending: (scope) => inbox.pending(scope),
      // No async frame of its own held open for the whole wait: the place is freed when the
      // inbox's wait settles, and a refusal is a rejected promise as before.
      wait: (scope, timeoutMs, signal) => {
        try {
          this.#admit(agentId, credential);
        } catch (err) {
          return Promise.reject(err);
        }
        let waiting: Promise<Awaited<ReturnType<InboxPort['wait']>>>;
        try {
          waiting = inbox.wait(scope, timeoutMs, signal);
        } catch (err) {
          this.#release(agentId, credential);
          return Promise.reject(err);
        }
        return waiting.finally(() => this.#release(agentId, credential));
      },
    };
  }

  /** Counts one more wait, or throws the refusal that names the bound it would pass. */
  #admit(agentId: string, credential: string): void {
    const { perCredential, perServer } = this.caps();
    const a = this.#byAgent.get(agentId) ?? 0;
    if (a >= this.perAgent)
      throw new Error(
        `agent ${agentId} already has ${a} wait_for_messages calls open on this server (at most ${this.perAgent}); let one return first`,
      );
    const c = this.#byCredential.get(credential) ?? 0;
    if (perCredential > 0 && c >= perCredential)
      throw new Error(
        `this credential already has ${c} wait_for_messages calls open on this server (at most ${perCredential}, server.limits.mcp_waits_per_credential); let one return first`,
      );
    if (perServer > 0 && this.#total >= perServer)
      throw new Error(
        `this server already has ${this.#total} wait_for_messages calls open (at most ${perServer}, server.limits.mcp_waits_per_server); call again in a moment`,
      );
    this.#byAgent.set(agentId, a + 1);
    this.#byCredential.set(credential, c + 1);
    this.#total++;
  }

  #release(agentId: string, credential: string): void {
    const dec = (m: Map<string, number>, k: string) => {
      const left = (m.get(k) ?? 1) - 1;
      if (left > 0) m.set(k, left);
      else m.delete(k);
    };
    dec(this.#byAgent, agentId);
    dec(this.#byCredential, credential);
    this.#total--;
  }
}
