// The part of oidc-provider's API svc uses (the package ships no type declarations).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    InvalidClientMetadata: new (description?: string) => Error;
  };

  /** One stored object of a model (the adapter contract of oidc-provider). */
  export interface AdapterPayload {
    [key: string]: unknown;
  }
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }
  /** Built once per model name (AccessToken, Client, Grant, Interaction, ...). */
  export type AdapterConstructor = new (model: string) => Adapter;

  export interface Interaction {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { uid?: string; accountId?: string };
    grantId?: string;
    returnTo: string;
    exp: number;
    save(ttl: number): Promise<string>;
  }
  export interface ClientInfo {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
  }
  export interface GrantInstance {
    jti: string;
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }
  export interface AccessTokenInstance {
    accountId: string;
    clientId: string;
    grantId: string;
    aud?: string | string[];
    scope?: string;
    exp: number;
    isExpired: boolean;
  }

  /** The part of the Koa context svc's provider middleware touches. */
  export interface ProviderContext {
    readonly method: string;
    readonly path: string;
    readonly req: IncomingMessage;
    status: number;
    body: unknown;
    type: string;
    state: Record<string, unknown>;
    set(field: string, value: string): void;
    remove(field: string): void;
    oidc?: { route?: string; client?: ClientInfo; entities: Record<string, unknown>; params?: Record<string, unknown> };
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void;
    /** Provider events (Koa's EventEmitter), each with the request's context first; `server_error` carries the error of a 500 answer. */
    on(event: string, listener: (ctx: ProviderContext, ...rest: never[]) => void): this;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      opts?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    readonly Client: { find(id: string): Promise<ClientInfo | undefined> };
    readonly Grant: (new (init: {
      accountId: string;
      clientId: string;
      /** Seconds it lives, instead of the configured ttl.Grant. */
      expiresIn?: number;
    }) => GrantInstance) & {
      find(id: string): Promise<GrantInstance | undefined>;
    };
    readonly AccessToken: { find(token: string): Promise<AccessTokenInstance | undefined> };
    readonly Session: { findByUid(uid: string): Promise<{ accountId?: string; destroy(): Promise<void> } | undefined> };
  }
}

declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  import type { AdapterConstructor } from 'oidc-provider';
  const MemoryAdapter: AdapterConstructor;
  export default MemoryAdapter;
}
