// The public shapes of the attachment client (`attach()` in attach.ts).

import type { NetworkDocument, ServiceEvent } from '../protocol/types.js';
import type { WakeReason } from './attach-wake.js';
import type { CursorStore } from './cursor-store.js';
import type { SvcClient } from './svc-client.js';

/** What the attachment asks to receive (IDENTIFY.capabilities). */
export interface AttachCapabilities {
  rooms: boolean;
  threads: boolean;
  dms: boolean;
  artifacts: boolean;
}

/** READY, as the runtime sees it. */
export interface ReadyInfo {
  network_id: string;
  agent_id: string;
  actor_uid: string;
  actor_uri: string;
  /** Where delivery started on this session. */
  cursor: string;
  /** A reconnect (not the first READY of this attachment). */
  resumed: boolean;
}

/** One delivered event. */
export interface AttachedEvent {
  cursor: string;
  event: ServiceEvent;
  /** Set when the event wakes this agent: a message mentioning it, or a DM to it (never its own). */
  wake?: WakeReason;
  /** Marks the event processed. ACKs and the stored cursor move up to the highest cursor with nothing unprocessed before it. */
  ack(): void;
}

export type AttachStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'ready'; info: ReadyInfo }
  | { state: 'disconnected'; reason: string; retryInMs: number };

export interface AttachOptions {
  /** Base URL of the server (http or https). */
  url: string;
  /** An attach-scoped token, the agent's own `agt_v1_` token, or none for a first open-registration claim. */
  token?: string;
  agent: { id: string; name?: string };
  /** The network this runtime is configured for; preflight refuses another. Default: the server's. */
  networkId?: string;
  /** Default: everything; `dms` defaults to whether the server has DMs on (set it true to require them). */
  capabilities?: Partial<AttachCapabilities>;
  /** A CursorStore, a file path, or false (memory only). Default: `.svc/cursors/<network>/<agent>.json`. */
  cursorStore?: CursorStore | string | false;
  /** Start after this cursor instead of the stored one. */
  startCursor?: string;
  /** Receives each event once. */
  onEvent: (e: AttachedEvent) => void | Promise<void>;
  /**
   * `auto` (default): handlers run one at a time and an event is acknowledged when its handler
   * resolves; a handler that throws ends the session and the event comes again after the reconnect.
   * `manual`: handlers are called as events arrive and you call `ack()` on each, in any order.
   */
  ackMode?: 'auto' | 'manual';
  /** A new anonymous claim's token (READY, shown once): persist it before this resolves. */
  onAgentToken?: (token: string) => void | Promise<void>;
  onStatus?: (s: AttachStatus) => void;
  /** Backoff between reconnects: doubles from minMs to maxMs, with jitter. Default 500 ms .. 30 s. */
  reconnect?: { minMs?: number; maxMs?: number };
  /** Keep retrying when the first connection fails (default false: `ready` rejects). */
  waitForServer?: boolean;
  /**
   * Sent as User-Agent when attaching: a second runtime refused with `session_in_use` is told it, so
   * name the program and its process. Default: `svc-client/<version> (pid N)`.
   */
  userAgent?: string;
}

/** A failure that retrying cannot fix: preflight, a refused IDENTIFY, a refused credential. */
export class AttachError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AttachError';
  }
}

export interface Attachment {
  /** The first READY; rejects with AttachError (or ClientError) when the attachment cannot start. */
  readonly ready: Promise<ReadyInfo>;
  /** Settles when `close()` is called; rejects when a fatal error ends the attachment. */
  readonly done: Promise<void>;
  /** Attached right now (past READY, socket open). */
  readonly connected: boolean;
  /** The last acknowledged (and stored) cursor. */
  cursor(): string | undefined;
  /** The network document of the last preflight. */
  network(): NetworkDocument | undefined;
  /** A typed HTTP client with the attachment's current credential (the claimed token after a claim). */
  client(): SvcClient;
  /** Resolves once every acknowledged cursor so far is in the store. */
  flush(): Promise<void>;
  /** Detaches (close code 1000) and stores the cursor; unacknowledged events come again next time. */
  close(): Promise<void>;
}
