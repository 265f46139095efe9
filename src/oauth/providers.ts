// One provider per base URL callers use (the issuer is part of every token and document), built
// on first use with the same options and the state read from the store (adapter and keys, the same
// on every instance). The feature builds this once; routes, the consent page and the token
// resolver share it. The provider module (oidc-provider and its ~300 modules) is imported on the
// first OAuth request, not at start: most servers never see one, and every `svc serve` paid for it.
// The base URL comes from the request's Host (or X-Forwarded-Host), which any caller chooses, so
// the providers kept are bounded: the most recently used MAX_PROVIDERS, an older one built again
// when asked for (its state is in the store; only its in-memory caches are lost).

import type { IncomingMessage } from 'node:http';
import type { BuiltProvider, ProviderOptions } from './provider.js';

/** What every provider shares that is read from the store: where state lives and the keys. */
export type StoredState = Pick<ProviderOptions, 'adapter' | 'cookieKeys' | 'jwks'>;

/** Providers kept at once (base URLs a server is really reached by are few). */
export const MAX_PROVIDERS = 8;

export class Providers {
  private readonly byBase = new Map<string, Promise<BuiltProvider>>();

  constructor(
    private readonly opts: Omit<ProviderOptions, keyof StoredState>,
    /** The stored state; a failed read is tried again by the next request. */
    private readonly state: () => Promise<StoredState>,
    /** The base URL (`http(s)://host[:port]`) a request was made to. */
    readonly baseOf: (req: IncomingMessage) => string,
  ) {}

  /** The provider serving the base URL of `req`. */
  for(req: IncomingMessage): Promise<BuiltProvider> {
    const base = this.baseOf(req);
    let p = this.byBase.get(base);
    if (p) {
      // Most recently used last: the first in the map is the one dropped.
      this.byBase.delete(base);
      this.byBase.set(base, p);
    } else {
      for (const oldest of this.byBase.keys()) {
        if (this.byBase.size < MAX_PROVIDERS) break;
        this.byBase.delete(oldest);
      }
      p = Promise.all([this.state(), import('./provider.js')]).then(([s, { createProvider }]) =>
        createProvider(base, { ...this.opts, ...s }),
      );
      p.catch(() => this.byBase.delete(base));
      this.byBase.set(base, p);
    }
    return p;
  }

  /** How many providers are kept. */
  get size(): number {
    return this.byBase.size;
  }
}
