// svc's rules run inside the provider, around its own routes (Koa middleware and events, which the
// library runs before its router): a registration request is admitted by the registration gate
// before its body is read, a code exchanged for tokens confirms its pending grant before the
// answer is sent, and authorization errors of registered clients are shown, not redirected.

import type { IncomingMessage } from 'node:http';
import type Provider from 'oidc-provider';
import { noUnverifiedErrorRedirects } from './authorization-errors.js';
import type { RegistrationRefusal } from './registration.js';

export interface ProviderRules {
  /** Judges a registration request (rate per address, total cap) before the provider reads it. */
  admitRegistration?: (req: IncomingMessage) => Promise<RegistrationRefusal | undefined>;
  /** Called once a code was exchanged for tokens, with the grant it was issued under. */
  codeExchanged?: (grantId: string) => Promise<void>;
  log?: (message: string) => void;
}

/** Installs the rules on `provider`. */
export function installRules(provider: Provider, rules: ProviderRules): void {
  noUnverifiedErrorRedirects(provider);
  provider.use(async (ctx, next) => {
    if (rules.admitRegistration && ctx.method === 'POST' && ctx.path === '/reg') {
      const refused = await rules.admitRegistration(ctx.req);
      if (refused) {
        ctx.status = refused.status;
        if (refused.retryAfterSeconds) ctx.set('retry-after', String(refused.retryAfterSeconds));
        ctx.set('cache-control', 'no-store');
        ctx.body = refused.body;
        return;
      }
    }
    await next();
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200 || ctx.oidc.params?.grant_type !== 'authorization_code') return;
    const code = ctx.oidc.entities.AuthorizationCode as { grantId?: string } | undefined;
    if (!code?.grantId || !rules.codeExchanged) return;
    // The tokens are issued already; a failure here leaves the grant pending, which ends it in minutes.
    await rules
      .codeExchanged(code.grantId)
      .catch((err: Error) => rules.log?.(`oauth: confirming grant ${code.grantId} failed: ${err.message}`));
  });
}
