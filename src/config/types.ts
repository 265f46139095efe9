// The resolved configuration: what `loadConfig` returns after validation, defaults and secrets.

import type { RetentionPolicy, RoomDeclaration, Scope } from '../protocol/types.js';
import type { InboundHookConfig, WebhookConfig } from './webhooks.js';
import type { A2aAgentConfig } from './a2a-agents.js';

/** postgres: the schema holding a network's tables when `store.schema` is not set (schemas/config.schema.json says so too). */
export const DEFAULT_STORE_SCHEMA = 'public';

export type AuthMode = 'none' | 'bearer' | 'open';
export type Registration = 'open' | 'token' | 'disabled';

export interface TokenConfig {
  /** Stable credential identity; derived from the value's hash when omitted in the file. */
  id: string;
  /** Plaintext bearer value (from `value` or `value_env`). */
  value: string;
  scopes: Scope[];
  /** Optional allowlist of local agent ids the token may assert. */
  agents?: string[];
}

export interface RoomConfig extends RoomDeclaration {
  federation?: { pairings: string[] };
  /** Overrides server.loop_guard for this room and its threads, field by field. */
  loop_guard?: Partial<LoopGuardConfig>;
}

export interface RelayConfig {
  url: string;
  room: string;
  /** Opens the relay WebSocket; the pairing's token when omitted. */
  token?: string;
  /** The relay-wide access token, for relays that require one (`svc relay --access-token-env`). */
  access_token?: string;
}

export interface PairingConfig {
  id: string;
  /** Absent on the inviting side: the peer's id is learned (process-locally) when it first answers. */
  remote_network_id?: string;
  remote_network_name?: string;
  remote_base_url?: string;
  token: string;
  /** Whether the peer's network id was known when the pairing was made (joining side). */
  bound?: boolean;
  relay?: RelayConfig;
}

export interface LimitsConfig {
  /** Requests per second per credential (0 = off). */
  per_credential_rps: number;
  /** Requests per second per client address (0 = off). */
  per_address_rps: number;
  /** Failed authentications per client address per minute before 429 (0 = off; the schema's default is 20). */
  auth_failures_per_minute?: number;
  /** Open SSE streams per client address (0 = no cap; the schema's default is 32). */
  sse_streams_per_address?: number;
  /** Bytes of message JSON in one history or search page (the schema's default is 4 MiB). */
  page_bytes?: number;
  /** Seconds a request body may take to arrive before 408 (the schema's default is 30). */
  body_seconds?: number;
  /** Open wait_for_messages calls on /v1/mcp per credential on one instance (0 = no cap; the schema's default is 16). */
  mcp_waits_per_credential?: number;
  /** Open wait_for_messages calls on /v1/mcp on one instance (0 = no cap; the schema's default is 1000). */
  mcp_waits_per_server?: number;
  /** Bytes of one uploaded file (the schema's default is 25 MiB). */
  file_bytes?: number;
  /** Uploads per credential per minute on one instance (0 = off, the default). */
  file_uploads_per_minute?: number;
  /** Bytes one credential may upload per UTC day on one instance (0 = off, the default). */
  file_bytes_per_day?: number;
}

/** Where a Postgres store keeps uploaded files' bytes (`store.files`). */
export interface FilesStoreConfig {
  backend: 'database' | 's3';
  bucket?: string;
  endpoint?: string;
  region?: string;
  prefix?: string;
  access_key_env?: string;
  secret_key_env?: string;
  force_path_style?: boolean;
  /** s3: the keys read from access_key_env and secret_key_env (secrets, never printed). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface LoopGuardConfig {
  enabled: boolean;
  /** Consecutive agent-only messages between agents in one conversation before sends are refused. */
  max_consecutive: number;
  /** A pause longer than this (ms) resets the count. */
  pause_ms: number;
}

/** Redelivery and the waiting-wake warning (server.delivery; docs/live.md). */
export interface DeliveryConfig {
  /** A wake not acknowledged this long after it was sent is sent again. */
  redeliver_after_ms: number;
  /** Times a wake is sent to one attachment at most before it is reported. */
  max_offers: number;
  /** Oldest unacknowledged wake older than this raises the agent_wakes_waiting warning. */
  warn_after_ms: number;
}

/** server.delivery's defaults (the schema's), for configs built without the loader. */
export const DELIVERY_DEFAULTS: DeliveryConfig = { redeliver_after_ms: 60_000, max_offers: 5, warn_after_ms: 300_000 };

/** server.a2a (docs/a2a.md, Inbound). */
export interface A2aInboundConfig {
  /** Local agent ids served as A2A agents (each a skill of the network's card); `*` serves every agent. */
  agents: string[];
  /** Days a task is kept after its last change. */
  task_days: number;
  /** Tasks one caller may keep at most (older ones are refused new ones until they expire). */
  max_tasks_per_caller: number;
  /** Push notifications may go to loopback and private addresses. */
  push_allow_private_network: boolean;
}

/** server.a2a's defaults (the schema's), for configs built without the loader. */
export const A2A_INBOUND_DEFAULTS: A2aInboundConfig = {
  agents: [],
  task_days: 7,
  max_tasks_per_caller: 1000,
  push_allow_private_network: false,
};

export interface Config {
  network: { id: string; name: string };
  server: {
    listen_addr: string;
    allowed_origins?: string[];
    human_ingress: boolean;
    direct_messages: boolean;
    debug_events: boolean;
    /** Delivered and read receipts (docs/receipts.md); false stops recording them. Default true. */
    receipts?: boolean;
    heartbeat_interval_ms: number;
    event_buffer: number;
    /** How often each pairing re-checks the remote /v1/network. */
    pairing_check_interval_ms: number;
    limits: LimitsConfig;
    loop_guard: LoopGuardConfig;
    /** Redelivery of unacknowledged wakes and their warning; the loader fills DELIVERY_DEFAULTS. */
    delivery?: DeliveryConfig;
    /** The inbound A2A gateway (docs/a2a.md): which local agents it serves; absent or empty: none. */
    a2a?: A2aInboundConfig;
    /** How long messages are kept (#40 part 4, src/retention/); absent: forever. */
    retention?: RetentionPolicy;
    /** Uploaded files (src/files/): how long an upload no message references is kept (default 1h). */
    files?: { unreferenced_ttl?: string; pairing_carry_bytes?: number };
  };
  store: {
    backend: 'sqlite' | 'memory' | 'postgres';
    /** Absolute path (resolved against the config file's folder). */
    path: string;
    /** Journal size that triggers a background checkpoint. */
    checkpoint_bytes: number;
    /** postgres: the connection URL (from `url` or `url_env`); a secret, never printed. */
    url?: string;
    /** postgres: the schema holding the network's tables (DEFAULT_STORE_SCHEMA when not set). */
    schema?: string;
    /** postgres: where files' bytes live (absent: in the database). */
    files?: FilesStoreConfig;
  };
  auth: {
    mode: AuthMode;
    public_read: boolean;
    agent_registration: Registration;
    tokens: TokenConfig[];
  };
  rooms: RoomConfig[];
  pairings: PairingConfig[];
  require_pair_network_binding: boolean;
  /** Outbound webhooks (#28 part 3; config/webhooks.ts). */
  webhooks: WebhookConfig[];
  /** Inbound hooks (#28 part 4). */
  inbound_hooks: InboundHookConfig[];
  /** Remote A2A agents as room members (config/a2a-agents.ts, src/a2a/outbound/). */
  a2a_agents: A2aAgentConfig[];
}

/** Where the config came from, for reloads, `svc doctor` and the secret-file rules. */
export interface LoadedConfig {
  config: Config;
  /** Absolute path of the file, or undefined for the embedded default. */
  file?: string;
  /** Operator-facing warnings found while loading (the bind posture warning, ...). */
  warnings: import('../protocol/types.js').Warning[];
}
