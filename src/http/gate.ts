// The one admission gate for every way a caller reaches the server: routed HTTP requests (the SSE
// stream is one), and the WebSocket upgrade. The order is the same for all of them, so a surface
// cannot be used to skip a step: request limits (429) -> credential (401) -> precheck -> authorize
// (401/403). Limits come before the 401 so that guessing tokens is limited per address on every
// path (failed authentications: 429 past server.limits.auth_failures_per_minute, on by default),
// not only where a handler happens to check the token late.

import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.js';
import { authorize, type Action, type PolicySettings } from '../auth/policy.js';
import { authenticate, bearerOf, type Authenticator, type Principal } from '../auth/principal.js';

export interface GateDeps {
  auth: () => Authenticator;
  /** Resolves a console session cookie to its bearer token (set by the console). */
  sessionToken?: (req: IncomingMessage) => string | undefined;
  /**
   * Throws AppError (429) to refuse (request limits); sees the principal when the credential is
   * valid, and `failedAuth` when one was presented and refused (counted per address).
   */
  admit?: (req: IncomingMessage, principal: Principal | undefined, failedAuth?: boolean) => void;
}

export interface GateRequest {
  /** The action the route performs; omitted for routes that authorize in their handler. */
  action?: Action;
  /** The route answers an invalid credential itself instead of a 401. */
  lenientAuth?: boolean;
  /** The route judges the Authorization header itself (inbound hooks): the caller is anonymous here. */
  ownCredential?: boolean;
  /** Runs after the 401 and before authorization (a feature switched off answers 404 or 503). */
  precheck?: () => void;
}

/** The principal of a request: header first, then console cookie; an invalid header is an error. */
export async function principalOf(
  deps: GateDeps,
  req: IncomingMessage,
  action?: Action,
): Promise<{ principal?: Principal; error?: string }> {
  const header = req.headers.authorization;
  const auth = deps.auth();
  if (header === undefined) {
    const token = deps.sessionToken?.(req);
    if (token !== undefined) {
      const r = await authenticate(auth, { present: true, token });
      if (r.ok) return { principal: r.principal };
    }
  }
  // The action lets a feature's resolver accept its tokens on its routes only (OAuth on /v1/mcp).
  const r = await authenticate(auth, bearerOf(header), action === undefined ? { req } : { action, req });
  return r.ok ? { principal: r.principal } : { error: r.reason };
}

/** Admits a caller or throws the AppError to answer with; returns who is calling. */
export async function admitCaller(deps: GateDeps, policy: PolicySettings, req: IncomingMessage, r: GateRequest = {}): Promise<Principal> {
  const who = r.ownCredential ? {} : await principalOf(deps, req, r.action);
  // A refused credential counts as a failure on every surface (routes, SSE, the attach upgrade) here.
  deps.admit?.(req, who.principal, who.error !== undefined);
  // After the limits: an invalid Authorization header is never answered with anything but 401 (the spec).
  if (who.error !== undefined && !r.lenientAuth) throw new AppError('unauthorized', who.error);
  r.precheck?.();
  const principal: Principal = who.principal ?? { kind: 'anonymous' };
  if (r.action) {
    const d = authorize(principal, r.action, policy);
    if (!d.allow) throw new AppError(d.status === 401 ? 'unauthorized' : 'forbidden', d.reason);
  }
  return principal;
}
