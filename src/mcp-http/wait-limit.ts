// The bounds on concurrent wait_for_messages calls on one instance. Each wait holds an open request
// and a feed subscription for up to five minutes, so neither one agent, nor one credential acting as
// many agents, nor everyone together (100 self-registered agents are 100 credentials) may pin an
// instance with them. A call past a bound is a tool error at once, naming the bound and its key.

import type { Scope } from '../mcp/inbox.js';
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
    return new LimitedInbox(this, agentId, credential, inbox);
  }

  /** Counts one more wait, or throws the refusal that names the bound it would pass. */
  admit(agentId: string, credential: string): void {
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

  /** Frees the place of a wait that ended. */
  release(agentId: string, credential: string): void {
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

/**
 * An inbox whose waits hold a place in `limit`. An open wait holds this for up to five minutes: a
 * class (no closures of its own) and no async frame, the place is freed when the wait settles.
 */
class LimitedInbox implements InboxPort {
  constructor(
    private readonly limit: WaitLimit,
    private readonly agentId: string,
    private readonly credential: string,
    private readonly inbox: InboxPort,
  ) {}

  pending(scope: Scope): ReturnType<InboxPort['pending']> {
    return this.inbox.pending(scope);
  }

  wait(scope: Scope, timeoutMs: number, signal?: AbortSignal): ReturnType<InboxPort['wait']> {
    // A refusal is a rejected promise, as from the async wait this was.
    try {
      this.limit.admit(this.agentId, this.credential);
    } catch (err) {
      return Promise.reject(err);
    }
    let waiting: ReturnType<InboxPort['wait']>;
    try {
      waiting = this.inbox.wait(scope, timeoutMs, signal);
    } catch (err) {
      this.limit.release(this.agentId, this.credential);
      return Promise.reject(err);
    }
    return waiting.finally(() => this.limit.release(this.agentId, this.credential));
  }
}
