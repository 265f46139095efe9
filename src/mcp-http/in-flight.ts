// Cancellation across requests. Without sessions, `notifications/cancelled` for a tool call
// arrives in a POST of its own, while the call runs in another; the SDK client cancels this way
// and keeps the call's response stream open. The calls running on this instance are kept here
// by caller and JSON-RPC id, so a cancellation ends the call it names (its server closes, which
// aborts the handler: a wait ends and consumes nothing). A cancellation that reaches another
// instance finds nothing here; the call then runs to its timeout.

/** The in-flight calls of this instance, by caller and request id. */
export class InFlight {
  readonly #calls = new Map<string, () => void>();

  /** Keeps `stop` for the call `id` of `caller`; returns the function that forgets it. */
  add(caller: string, id: string | number, stop: () => void): () => void {
    const key = `${caller}\n${typeof id}:${id}`;
    this.#calls.set(key, stop);
    return () => {
      if (this.#calls.get(key) === stop) this.#calls.delete(key);
    };
  }

  /** Stops the call `id` of `caller`, if it runs here. */
  cancel(caller: string, id: string | number): void {
    this.#calls.get(`${caller}\n${typeof id}:${id}`)?.();
  }

  get size(): number {
    return this.#calls.size;
  }
}

type JsonRpcId = string | number;

/** The ids of the requests in a JSON-RPC message or batch. */
export function requestIds(body: unknown): JsonRpcId[] {
  const out: JsonRpcId[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    const r = m as { method?: unknown; id?: unknown };
    if (typeof r?.method === 'string' && (typeof r.id === 'string' || typeof r.id === 'number')) out.push(r.id);
  }
  return out;
}

/** The request ids named by the `notifications/cancelled` of a message or batch. */
export function cancelledIds(body: unknown): JsonRpcId[] {
  const out: JsonRpcId[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    const n = m as { method?: unknown; params?: { requestId?: unknown } };
    const id = n?.method === 'notifications/cancelled' ? n.params?.requestId : undefined;
    if (typeof id === 'string' || typeof id === 'number') out.push(id);
  }
  return out;
}
