// Bounds on open dynamic client registration (POST /oauth/reg, RFC 7591): anyone may register, so
// what a registration may cost is bounded. Per client address, a number of registrations an hour
// (refused 429 before the body is read); in all, a number of stored clients (503); per client, a
// small metadata (client_name and the whole stored document; refused 400 invalid_client_metadata
// as RFC 7591 section 3.2.2 says); and a lifetime: a client that never obtained a grant is
// forgotten after a day (grants.ts keeps one that did while its grant lasts). Clients live in the
// store only: each provider keeps at most 100 parsed clients in memory, however many are stored.

import type { IncomingMessage } from 'node:http';
import type { AdapterConstructor, AdapterPayload } from 'oidc-provider';
import { CATALOGUE } from '../errors.js';
import { clientAddress, TokenBuckets } from '../http/token-buckets.js';
import type { KvTable } from '../store/types.js';
import { kindOf } from './adapter.js';
import { DelegatingAdapter } from './delegating-adapter.js';

export interface RegistrationLimits {
  /** Registrations one client address may make in an hour (a bucket of that size, refilled over the hour). */
  perAddressPerHour: number;
  /** Characters of `client_name`. */
  clientNameMaxChars: number;
  /** Bytes of the client's stored metadata (JSON). */
  metadataMaxBytes: number;
  /** Seconds a client that obtained no grant is kept. */
  unusedClientTtl: number;
  /** Clients stored at once (the unexpired ones). */
  maxClients: number;
}

export const REGISTRATION_LIMITS: RegistrationLimits = {
  perAddressPerHour: 20,
  clientNameMaxChars: 200,
  metadataMaxBytes: 4096,
  unusedClientTtl: 24 * 3600,
  maxClients: 1000,
};

/** A refusal of a registration request, as the OAuth error body it is answered with. */
export interface RegistrationRefusal {
  status: number;
  body: { error: string; error_description: string };
  retryAfterSeconds?: number;
}

/** Why stored client metadata is refused, or undefined. Pure. */
export function metadataRefusal(payload: AdapterPayload, limits: RegistrationLimits = REGISTRATION_LIMITS): string | undefined {
  const name = payload.client_name;
  if (typeof name === 'string' && [...name].length > limits.clientNameMaxChars)
    return `client_name: at most ${limits.clientNameMaxChars} characters`;
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  if (bytes > limits.metadataMaxBytes) return `the client metadata is ${bytes} bytes; at most ${limits.metadataMaxBytes} are kept`;
  return undefined;
}

/** The rate per address and the total cap, judged before the provider reads the request. */
export class RegistrationGate {
  private readonly buckets: TokenBuckets;

  constructor(
    private readonly kv: KvTable,
    readonly limits: RegistrationLimits = REGISTRATION_LIMITS,
    private readonly clock: () => number = Date.now,
  ) {
    this.buckets = new TokenBuckets(limits.perAddressPerHour / 3600, limits.perAddressPerHour);
  }

  async admit(req: IncomingMessage): Promise<RegistrationRefusal | undefined> {
    const taken = this.buckets.take(clientAddress(req), this.clock());
    if (!taken.ok) {
      const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
      return refusal(
        'too_many_requests',
        `too many client registrations from this address (limit ${this.limits.perAddressPerHour} per hour); retry after ${seconds} s`,
        seconds,
      );
    }
    if ((await this.kv.count(kindOf('Client'))) >= this.limits.maxClients) {
      return refusal(
        'service_unavailable',
        `this server holds as many registered clients as it keeps (${this.limits.maxClients}); unused ones are forgotten after ${this.limits.unusedClientTtl / 3600} h`,
        3600,
      );
    }
    return undefined;
  }
}

function refusal(code: 'too_many_requests' | 'service_unavailable', description: string, retryAfterSeconds: number): RegistrationRefusal {
  return { status: CATALOGUE[code].status, body: { error: code, error_description: description }, retryAfterSeconds };
}

/** oidc-provider's invalid_client_metadata error; imported when needed (the feature loads this file at start, the library on first use). */
async function invalidClientMetadata(description: string): Promise<Error> {
  const { errors } = await import('oidc-provider');
  return new errors.InvalidClientMetadata(description);
}

/** Wraps `Inner` so a stored client is refused when too large and, when newly registered, expires unless used. */
export function withRegistrationLimits(Inner: AdapterConstructor, limits: RegistrationLimits = REGISTRATION_LIMITS): AdapterConstructor {
  return class RegistrationLimitedAdapter extends DelegatingAdapter {
    constructor(model: string) {
      super(model, Inner);
    }
    override async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
      if (!this.isClient) return this.inner.upsert(id, payload, expiresIn as number);
      const refused = metadataRefusal(payload, limits);
      if (refused) throw await invalidClientMetadata(refused);
      // The library stores a registered client without a lifetime: it gets the unused one here.
      return this.inner.upsert(id, payload, expiresIn ?? limits.unusedClientTtl);
    }
  };
}
