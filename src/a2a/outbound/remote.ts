// One remote A2A agent as the SDK's client reaches it: the card fetched with the agent's bearer
// token, a client built from that card (JSON-RPC or HTTP+JSON, whichever the card offers first),
// SendMessage blocking until the task ends, and GetTask while a task the agent returned early is
// still running. Loaded only when some a2a_agents exist (the SDK is not part of a server's start).

import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentCard, Message, Task } from '@a2a-js/sdk';
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { cardUrlOf, type A2aAgentConfig } from '../../config/a2a-agents.js';
import { guardedAgent } from '../../http/outbound.js';
import { stillRunning } from './parts.js';

/** The longest pause between two GetTask polls of a running task. */
const MAX_POLL_MS = 2_000;

export class RemoteAgent {
  private client: Client | undefined;

  constructor(readonly conf: A2aAgentConfig) {}

  /** The guarded connection pool (undefined: private addresses allowed), made on first use. */
  private guarded: Promise<{ fetch: typeof fetch; dispatcher: unknown }> | undefined;

  /**
   * `fetch` with the agent's token, and the call's deadline when the caller gave none. Unless
   * `allow_private_network`, every connection (the card's, each interface the card names, each
   * redirect) passes the outbound guard (src/http/outbound.ts): the card's author, not the operator, chooses the
   * interface URLs the token is sent to.
   */
  private readonly fetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (this.conf.token !== undefined) headers.set('authorization', `Bearer ${this.conf.token}`);
    const opts = { ...init, headers, signal: init?.signal ?? AbortSignal.timeout(this.conf.timeout_ms) };
    if (this.conf.allow_private_network) return fetch(input, opts);
    this.guarded ??= Promise.all([import('undici'), guardedAgent(() => false)]).then(([u, dispatcher]) => ({
      fetch: u.fetch as unknown as typeof fetch,
      dispatcher,
    }));
    const g = await this.guarded;
    return g.fetch(input, { ...opts, dispatcher: g.dispatcher } as RequestInit);
  };

  /** Fetches the card (the health check) and builds the client from it; throws when either fails. */
  async check(): Promise<AgentCard> {
    const resolver = new DefaultAgentCardResolver({ fetchImpl: this.fetch });
    // An empty path: cardUrlOf is the card's own URL, not a base the well-known path is added to.
    const card = await resolver.resolve(cardUrlOf(this.conf), '');
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: this.fetch }), new RestTransportFactory({ fetchImpl: this.fetch })],
      cardResolver: resolver,
    });
    this.client = await factory.createFromAgentCard(card);
    return card;
  }

  /** Sends one message and answers the agent's reply: a Message, or a Task that is no longer running (or was at the deadline). */
  async send(message: Message): Promise<Message | Task> {
    if (!this.client) await this.check();
    const client = this.client!;
    const deadline = Date.now() + this.conf.timeout_ms;
    const signal = AbortSignal.timeout(this.conf.timeout_ms);
    let answer = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, { signal });
    // An agent may answer a blocking send with a task still working: ask again until it ends.
    let pause = 100;
    while (!('messageId' in answer) && stillRunning(answer) && Date.now() + pause < deadline) {
      await sleep(pause);
      pause = Math.min(pause * 2, MAX_POLL_MS);
      answer = await client.getTask({ tenant: '', id: answer.id }, { signal });
    }
    return answer;
  }
}
