// Request limits (server.limits): a token bucket per credential and one per client address,
// both off (0) by default (the spec defines no rate limits), and a limit on failed authentications
// per address (auth-failures.ts), on by default. Each key has its own
// bucket, so a client that floods only drains its own and gets cheap 429s while others are served.

import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import type { LimitsConfig } from '../config/types.js';
import { AUTH_FAILURES_PER_MINUTE, AuthFailures } from './auth-failures.js';
import { burstFor, clientAddress, type Take, TokenBuckets } from '../http/token-buckets.js';

/** Paths never limited: load balancers and orchestrators probe them. */
const EXEMPT = new Set(['/healthz', '/readyz']);

/** The per-credential and per-address limiter that `app.http.admit` calls for every routed request. */
export class RequestLimits {
  private perCredential: TokenBuckets | undefined;
  private perAddress: TokenBuckets | undefined;
  private current: LimitsConfig = { per_credential_rps: 0, per_address_rps: 0 };
  private readonly failures = new AuthFailures(AUTH_FAILURES_PER_MINUTE);

  constructor(
    cfg: LimitsConfig,
    private readonly clock: () => number = Date.now,
  ) {
    this.configure(cfg);
  }

  /** Applies new settings; buckets are kept while their rate is unchanged. */
  configure(cfg: LimitsConfig): void {
    if (cfg.per_credential_rps !== this.current.per_credential_rps) {
      this.perCredential =
        cfg.per_credential_rps > 0 ? new TokenBuckets(cfg.per_credential_rps, burstFor(cfg.per_credential_rps)) : undefined;
    }
    if (cfg.per_address_rps !== this.current.per_address_rps) {
      this.perAddress = cfg.per_address_rps > 0 ? new TokenBuckets(cfg.per_address_rps, burstFor(cfg.per_address_rps)) : undefined;
    }
    this.failures.limit = cfg.auth_failures_per_minute ?? AUTH_FAILURES_PER_MINUTE;
    this.current = { ...cfg };
  }

  get enabled(): boolean {
    return this.perCredential !== undefined || this.perAddress !== undefined;
  }

  /**
   * Throws a 429 AppError with Retry-After when the request's address or credential is over its
   * limit, or when `failedAuth` (its credential was refused) and the address used up its failures.
   */
  admit(req: IncomingMessage, principal: Principal | undefined, failedAuth = false): void {
    const now = this.clock();
    if (failedAuth) {
      const v = this.failures.fail(clientAddress(req), now);
      if (!v.ok) {
        const seconds = Math.max(1, Math.ceil(v.retryAfterMs / 1000));
        throw new AppError(
          'too_many_requests',
          `too many failed authentications from this client address (limit ${this.failures.limit} per minute, server.limits.auth_failures_per_minute); retry after ${seconds} s`,
          { 'retry-after': String(seconds) },
        );
      }
    }
    if (!this.enabled) return;
    const path = (req.url ?? '/').split('?')[0]!;
    if (EXEMPT.has(path)) return;
    if (this.perAddress) refuse(this.perAddress.take(clientAddress(req), now), 'client address', this.current.per_address_rps);
    // Only real credentials have an identity to limit; anonymous callers share their address's bucket.
    if (this.perCredential && principal && (principal.kind === 'static' || principal.kind === 'agent')) {
      refuse(this.perCredential.take(principal.credentialKey, now), 'credential', this.current.per_credential_rps);
    }
  }
}

function refuse(t: Take, what: string, rps: number): void {
  if (t.ok) return;
  const seconds = Math.max(1, Math.ceil(t.retryAfterMs / 1000));
  throw new AppError('too_many_requests', `too many requests from this ${what} (limit ${rps} per second); retry after ${seconds} s`, {
    'retry-after': String(seconds),
  });
}
