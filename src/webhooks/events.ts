// Which stored events go to which webhook, and what is POSTed for each: pure.

import type { WebhookConfig } from '../config/webhooks.js';
import type { ServiceEvent } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';
import type { WebhookDelivery } from '../store/webhooks/records.js';

/** The room an event belongs to, when it belongs to one. */
export function roomOfEvent(e: ServiceEvent): string | undefined {
  const t = e.message?.target;
  if (t) return t.kind === 'dm' ? undefined : t.room_id;
  return e.room?.id ?? e.thread?.room_id ?? e.room_id;
}

/** Whether an event is sent to a webhook: its type is listed, it is no DM's, and its room is listed (when rooms are). */
export function matches(w: Pick<WebhookConfig, 'events' | 'rooms'>, e: ServiceEvent): boolean {
  if (!w.events.includes('*') && !w.events.includes(e.type)) return false;
  // DMs are between their participants: no config-wide subscription sends them out.
  if (e.type === 'dm.created' || e.message?.target.kind === 'dm' || e.dm) return false;
  if (w.rooms === undefined) return true;
  const room = roomOfEvent(e);
  return room !== undefined && w.rooms.includes(room);
}

/** The delivery id (the `webhook-id` header) of an event for a webhook: the same after any crash or retry. */
export function deliveryId(webhookId: string, eventId: string): string {
  return `wh_${webhookId}_${eventId}`;
}

/** The JSON body of a delivery, in the Standard Webhooks shape: `{type, timestamp, data}`. */
export function payloadOf(type: string, timestamp: string, data: unknown): string {
  return JSON.stringify({ type, timestamp, data });
}

/**
 * The event as a delivery carries it: each file part of its message gains `download_url`, the
 * file's GET /v1/files/{id} on this server (#41 part 5). The URL is authenticated like every read
 * (a token that may read the message); the bytes themselves never ride in a delivery.
 */
export function withFileUrls(e: ServiceEvent, filesBase: string | undefined): ServiceEvent {
  const m = e.message;
  if (!m || filesBase === undefined || !m.parts.some((p) => p.kind === 'file')) return e;
  const parts = m.parts.map((p) => {
    const id = (p as { file_id?: unknown }).file_id;
    return p.kind === 'file' && typeof id === 'string' ? { ...p, download_url: `${filesBase}/v1/files/${encodeURIComponent(id)}` } : p;
  });
  return { ...e, message: { ...m, parts } };
}

/** A new pending delivery of a stored event; `filesBase` is this server's URL, for its files' links. */
export function deliveryOf(webhookId: string, e: StoredEvent, at: string, filesBase?: string): WebhookDelivery {
  return {
    id: deliveryId(webhookId, e.event.id),
    webhook_id: webhookId,
    seq: e.seq,
    event_type: e.event.type,
    payload: payloadOf(e.event.type, e.event.created_at, withFileUrls(e.event, filesBase)),
    status: 'pending',
    attempts: 0,
    created_at: at,
    window_start: at,
    next_attempt_at: at,
  };
}
