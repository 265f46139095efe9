// Which protocol era a stdio connection speaks, from its first message: a 2026-07-28 client sends
// every request with the per-request `_meta` envelope (its protocol version under
// `io.modelcontextprotocol/protocolVersion`) and opens with `server/discover` or a plain request;
// a 2025 client opens with `initialize` and no envelope. `svc mcp` starts the transport itself,
// reads that first message, and then hands the connection (the first message included) to the
// 1.x SDK server (2025 era: the channel and the existing behaviour) or to the 2.x SDK's stdio
// entry (2026-07-28). Lines it cannot read are answered before and after (malformed-input.ts).

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { answerMalformedInput } from './malformed-input.js';

export type Era = 'legacy' | 'modern';

/** The `_meta` key a 2026-07-28 request names its protocol version under. */
export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** The era a connection's first message opens. Anything without the envelope claim is 2025-era. */
export function eraOf(first: JSONRPCMessage): Era {
  const params = (first as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return 'legacy';
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return 'legacy';
  return PROTOCOL_VERSION_META in meta ? 'modern' : 'legacy';
}

/**
 * A transport over `wire` for the server the era chose: `start()` finds the wire started, sends and
 * closes go to it, and its messages (the held first one first) come here.
 */
class Relay implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #started!: () => void;
  readonly started = new Promise<void>((resolve) => {
    this.#started = resolve;
  });

  constructor(private readonly wire: Transport) {}

  async start(): Promise<void> {
    this.#started();
  }
  send(message: JSONRPCMessage): Promise<void> {
    return this.wire.send(message);
  }
  close(): Promise<void> {
    return this.wire.close();
  }
}

/**
 * Starts `wire` and calls `choose` with the era of its first message and the transport to serve it
 * on; once that transport is started (the chosen server connected), the first message is handed
 * over and the rest follow as they come.
 */
export async function splitByEra(wire: Transport, choose: (era: Era, transport: Transport) => void | Promise<void>): Promise<void> {
  const relay = new Relay(wire);
  // Messages held until the chosen server is connected: the first, and any sent meanwhile.
  let held: JSONRPCMessage[] | undefined;
  wire.onmessage = (message) => {
    if (held) return void held.push(message);
    if (held === undefined && relay.onmessage) return relay.onmessage(message);
    held = [message];
    void (async () => {
      await choose(eraOf(message), relay);
      await relay.started;
      const queue = held!;
      held = undefined;
      for (const m of queue) relay.onmessage?.(m);
    })();
  };
  wire.onclose = () => relay.onclose?.();
  wire.onerror = (err) => relay.onerror?.(err);
  answerMalformedInput(wire);
  await wire.start();
}
