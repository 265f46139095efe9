// The body and answer of POST /v1/apply (`svc apply`), with the declarations it carries. Re-exported by ./types.js.

import type { DeclaredInboundHook, DeclaredWebhook } from './webhooks.js';
import type { RetentionPolicy } from './lifecycle.js';
import type { Visibility, WritePolicy } from './room-policy.js';

/** A room as svc.yaml or `svc apply` declares it (config, apply and the wire share this shape). */

export interface RoomDeclaration {
  id: string;
  name?: string;
  members?: string[];
  visibility?: Visibility;
  write_policy?: WritePolicy;
  /** The room's own retention (#40 part 4); fields it leaves out follow server.retention. */
  retention?: RetentionPolicy;
  /** Agents join it when they register, so `members` is added, never taken away from. */
  join_on_register?: boolean;
}

export interface ApplyRequest {
  network_id: string;
  agents: { id: string; credential_key: string }[];
  rooms: RoomDeclaration[];
  /** Ours (#28): hooks kept in the store, merged with svc.yaml's (docs/webhooks.md). */
  webhooks?: DeclaredWebhook[];
  inbound_hooks?: DeclaredInboundHook[];
  /** Remote A2A agents kept in the store, merged with svc.yaml's (docs/a2a.md). */
  a2a_agents?: DeclaredA2aAgent[];
}

/** A remote A2A agent as `svc apply` declares it: svc.yaml's keys with the token resolved. */
export interface DeclaredA2aAgent {
  id: string;
  name?: string;
  card_url: string;
  rooms?: string[];
  token?: string;
  auth_env?: string;
  check_interval_ms?: number;
  down_after?: number;
  timeout_ms?: number;
  catch_up_max_age_ms?: number;
  allow_private_network?: boolean;
}

export interface ApplyResponse {
  applied: boolean;
  agents: { network_id: string; agent_id: string; actor_uid: string; actor_uri: string }[];
  rooms: {
    id: string;
    network_id: string;
    fqid: string;
    name: string;
    members: string[];
    visibility: Visibility;
    write_policy: WritePolicy;
  }[];
  /** Ours: what the call changed, so `svc apply` can report it. */
  changes?: {
    kind: 'room' | 'agent' | 'webhook' | 'inbound_hook' | 'a2a_agent';
    id: string;
    action: 'created' | 'updated' | 'unchanged';
  }[];
}
