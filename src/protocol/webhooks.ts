// Wire types of the webhook admin API (#28 parts 3 and 4): schemas/api/webhook*.schema.json.

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  rooms?: string[];
  allow_private_network: boolean;
  /** The last event sequence number the outbox read; null before its worker first ran. */
  cursor: number | null;
  /** Counted up to 1000. */
  pending: number;
  dead: number;
}

export interface InboundHookView {
  id: string;
  room: string;
  sender: string;
  sender_name?: string;
  path: string;
}

export interface WebhookDeliveryView {
  id: string;
  webhook_id: string;
  seq: number;
  event_type: string;
  status: 'pending' | 'delivered' | 'dead';
  attempts: number;
  created_at: string;
  window_start?: string;
  next_attempt_at: string;
  last_attempt_at?: string;
  delivered_at?: string;
  last_status?: number;
  last_error?: string;
}

export type WebhookList = { webhooks: WebhookView[]; inbound_hooks: InboundHookView[] };
