// One provider per base URL callers use (the issuer is part of every token and document), built
// on first use with the same options. The feature builds this once; routes, the consent page and
// the token resolver share it.

import type { IncomingMessage } from 'node:http';
import { createProvider, type BuiltProvider, type ProviderOptions } from './provider.js';

export class Providers {
  private readonly byBase = new Map<string, BuiltProvider>();

  constructor(
    private readonly opts: ProviderOptions,
    /** The base URL (`http(s)://host[:port]`) a request was made to. */
    readonly baseOf: (req: IncomingMessage) => string,
  ) {}

  /** The provider serving the base URL of `req`. */
  for(req: IncomingMessage): BuiltProvider {
    const base = this.baseOf(req);
    let p = this.byBase.get(base);
    if (!p) {
      p = createProvider(base, this.opts);
      this.byBase.set(base, p);
    }
    return p;
  }
}
