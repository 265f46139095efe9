// What a feature is: the contract between the core server (src/app.ts) and the parts that plug
// into it (each in its own folder as <folder>/feature.ts; the default list is src/features.ts).
// Features import this file, never app.ts, so the app and its features form no cycle.

import type http from 'node:http';
import type { Config, LoadedConfig } from './config/types.js';
import type { Authenticator, Principal, TokenResolver } from './auth/principal.js';
import type { ServiceEvent, Target, Warning } from './protocol/types.js';
import type { Preparer } from './events/pump.js';
import type {
  AddToMessages,
  ApplyPart,
  NetworkContext,
  Provided,
  RemoteSenderCheck,
  ReservedAgent,
  SendExtension,
} from './network/context.js';
import type { StoredEvent } from './store/types.js';
import type { ReachObserver } from './network/reached.js';
import type { RelayedEvent } from './network/relayed-event.js';
import type { AnyPart } from './store/part.js';
import type { Route, Router } from './http/router.js';
import type { HttpDeps } from './http/server.js';
import type { UpgradeHandler } from './http/upgrade.js';
import type { Metrics } from './metrics-registry.js';

export type { UpgradeHandler };

/**
 * Refuses a request or upgrade before it is served (request limits); throws AppError. `failedAuth`
 * says the caller's credential (bearer token, sign-in code) was refused.
 */
export type Admit = (req: http.IncomingMessage, principal: Principal | undefined, failedAuth?: boolean) => void;

/**
 * An event type a feature adds, with how the live surfaces (SSE, attachments; src/live/visibility.ts)
 * find who may receive it: whoever may see the conversation it names, as for that conversation's
 * messages.
 */
export interface LiveEvent {
  type: ServiceEvent['type'];
  /** The conversation an event of this type is about, read from its payload. */
  target: (e: ServiceEvent) => Target | undefined;
  /** Anonymous public readers receive it when that conversation is a public room or its thread. */
  public: boolean;
  /** Attached agents taking part in that conversation receive it. */
  attachments: boolean;
  /** Each event of this type replaces its conversation's one before (the log and the SSE replay buffer keep the newest). */
  replacesItsLast?: boolean;
}

/**
 * What one part of the server adds (live, console, pairings, metrics, guards). The app combines
 * every feature's contributions into lists; no feature patches another's slot.
 */
export interface Feature {
  routes?: Route[];
  upgrade?: UpgradeHandler;
  /** Checked for every routed request and attach upgrade, before the credential is judged. */
  admit?: Admit;
  /** A bearer token from somewhere other than the Authorization header (the console's cookie). */
  sessionToken?: (req: http.IncomingMessage) => string | undefined;
  /** Judges bearer tokens that are none of svc's own, on the routes it names (OAuth on /v1/mcp). */
  tokenResolver?: TokenResolver;
  /** The WWW-Authenticate value a 401 to this request carries, if any (RFC 9728 on /v1/mcp). */
  challenge?: (req: http.IncomingMessage) => string | undefined;
  /** What it observes of what reached whom (network/reached.ts): deliveries, hand-overs, reads. */
  reached?: ReachObserver;
  /** Around each message send: a check before it is stored, an observer after. */
  send?: SendExtension;
  /** Decides messages from remote-origin senders (one feature at most: the pairings). */
  remoteSenders?: RemoteSenderCheck;
  /**
   * What it provides to the network's rules by name (`Provided`, network/context.ts), one feature
   * at most each: the app puts it into `ctx.extensions`; without the feature it is absent.
   */
  provides?: Partial<Provided>;
  /** Events of its own that pairings repeat on their peer. */
  relays?: RelayedEvent | readonly RelayedEvent[];
  /** Event types of its own, with who receives each live; one feature at most declares a type. */
  events?: readonly LiveEvent[];
  /** Adds what it keeps about messages to each page of them the reads return (history, search). */
  messages?: AddToMessages;
  observe?: {
    /** Each finished HTTP request. */
    http?: (route: string, method: string, status: number, seconds: number) => void;
    /** The latency of each durable write. */
    write?: (seconds: number) => void;
    /** Each published event, in sequence order (after `prepare`). */
    event?: (e: StoredEvent) => void;
    /** Each live subscriber the broker let go (by surface). */
    drop?: (surface: string) => void;
    /** Each HTTP request that waited for a later event-loop iteration (http/turns.ts). */
    waited?: () => void;
  };
  /** Operator warnings (GET /v1/network, svc doctor). */
  warnings?: () => Warning[];
  /** Declarations `svc apply` carries beyond rooms and agents. */
  apply?: ApplyPart;
  /** Agent ids this feature names (inbound hook senders); self-registration may not claim them. */
  reservedAgents?: () => readonly ReservedAgent[];
  /** Readies each batch of stored events before live delivery (it may read the store). */
  prepare?: Preparer;
  /** Called after listen with the bound address. */
  started?: (addr: { host: string; port: number }) => void;
  reloaded?: (config: Config) => void;
  close?: () => Promise<void> | void;
}

/**
 * Builds one feature for a running app; called once, in list order, before the app listens.
 * `store` names the stored concerns it keeps (store/part.ts): the app opens the store with the
 * parts of its features, before any of them is built, so a feature left out of the list leaves
 * no tables behind.
 */
export type FeatureFactory = ((app: App) => Feature) & { readonly store?: readonly AnyPart[] };

/** A feature factory that keeps these stored concerns. */
export function storing(parts: readonly AnyPart[], build: (app: App) => Feature): FeatureFactory {
  return Object.assign(build, { store: parts });
}

/** What the running features declare for each other, combined by the app once every feature is built. */
export interface Declared {
  /** The event types features add (`Feature.events`). */
  readonly events: readonly LiveEvent[];
}

/** The running server as its features see it. */
export interface App {
  readonly ctx: NetworkContext;
  /** Empty while features are being built: read it when serving, not in a factory. */
  readonly declared: Declared;
  readonly metrics: Metrics;
  readonly router: Router;
  readonly http: HttpDeps;
  readonly server: http.Server;
  readonly file: string | undefined;
  /** The authenticator for the current config (rebuilt on reload). */
  auth(): Authenticator;
  listen(addr?: string): Promise<{ host: string; port: number }>;
  reload(loaded: LoadedConfig): Promise<void>;
  /** Records that a changed config file was refused (why, without its path): an operator warning until a reload succeeds. */
  refuseReload(file: string, reason: string): void;
  close(): Promise<void>;
  address(): { host: string; port: number } | undefined;
}
