// Wire types of the webhook admin API (#28 parts 3 and 4): schemas/api/webhook*.schema.json.

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  rooms?: string[];
  allow_private_network: boolean;
  /** The last event sequence number the outbox read; null before its worker first ran. */
  cursor: number | null;
  /** Exact counts (the store counts them; svc_webhook_pending shows the same). */
  pending: number;
  dead: number;
  /** Where it is declared: the server's svc.yaml, or `svc apply` (kept in the store). */
  source: HookSource;
}

/** Where a hook is declared. svc.yaml wins an id declared in both. */
export type HookSource = 'config' | 'apply';

/** An outbound webhook as `svc apply` declares it (POST /v1/apply): svc.yaml's keys, the secret resolved. */
export interface DeclaredWebhook {
  id: string;
  url: string;
  events?: string[];
  rooms?: string[];
  /** The signing secret, read from `secret_env` by the applying CLI; never answered back. */
  secret: string;
  /** The variable the secret was read from (shown to operators; informative only). */
  secret_env?: string;
  allow_private_network?: boolean;
  timeout_ms?: number;
  retry?: { window_ms?: number; initial_ms?: number; max_ms?: number };
}

/** An inbound hook as `svc apply` declares it. */
export interface DeclaredInboundHook {
  id: string;
  room: string;
  sender: string;
  sender_name?: string;
  secret: string;
  secret_env?: string;
}

export interface InboundHookView {
  id: string;
  room: string;
  sender: string;
  sender_name?: string;
  path: string;
  source: HookSource;
}

/** pending: to be tried (again) at `next_attempt_at`; delivered: the target answered 2xx; dead: the retry window ran out. */
export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** A delivery as the API shows it (the store's record adds the signed payload: store/webhooks/records.ts). */
export interface WebhookDeliveryView {
  /** The `webhook-id` header: the same on every attempt, so receivers can deduplicate. */
  id: string;
  webhook_id: string;
  /** The event's sequence number (the cursor's value when it was queued, for a test). */
  seq: number;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: string;
  /** When the retry window began (the first attempt, or a manual retry). */
  window_start?: string;
  next_attempt_at: string;
  last_attempt_at?: string;
  delivered_at?: string;
  /** The HTTP status of the last attempt, when the target answered. */
  last_status?: number;
  last_error?: string;
}

export type WebhookList = { webhooks: WebhookView[]; inbound_hooks: InboundHookView[] };
