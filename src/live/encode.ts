// Serialize each event once for every subscriber: the JSON of the envelope and the attachment EVENT
// frame are cached on the event object that the broker hands to all of them (SSE frames: sse.ts).

import { jsonOf } from '../protocol/json-cache.js';
import type { ServiceEvent } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';

const attach = new WeakMap<StoredEvent, Buffer>();
const attachTextOnly = new WeakMap<StoredEvent, Buffer | null>();

/** The envelope as JSON, computed once per event object (and shared with the replay buffer). */
export const eventJson = (e: ServiceEvent): string => jsonOf(e);

const frameOf = (seq: number, eventText: string): Buffer => Buffer.from(`{"op":"EVENT","cursor":"${seq}","event":${eventText}}`);

/**
 * The attachment EVENT frame (cursor = the durable seq). Without the `artifacts` capability a
 * message keeps only its text parts, and a message left without parts is not sent (undefined).
 */
export function attachFrame(e: StoredEvent, artifacts: boolean): Buffer | undefined {
  const m = e.event.message;
  if (artifacts || !m || m.parts.every((p) => p.kind === 'text')) {
    let b = attach.get(e);
    if (b === undefined) {
      b = frameOf(e.seq, eventJson(e.event));
      attach.set(e, b);
    }
    return b;
  }
  let b = attachTextOnly.get(e);
  if (b === undefined) {
    const parts = m.parts.filter((p) => p.kind === 'text');
    b = parts.length === 0 ? null : frameOf(e.seq, JSON.stringify({ ...e.event, message: { ...m, parts } }));
    attachTextOnly.set(e, b);
  }
  return b ?? undefined;
}
