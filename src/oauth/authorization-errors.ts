// Where an authorization request's error goes. oidc-provider sends it to the client's redirect URI
// whenever that URI is registered for the client; but anyone may register a client here (open
// dynamic registration), so a registered URI is verified by nobody, and sending an error there
// without a person involved makes the server an open redirector (RFC 9700 section 4.11.2). Errors
// of the authorization request itself, for a dynamically registered client, are shown as a page
// instead. A URL-form client's redirect URIs are published at its own https address (client ID
// metadata documents), and an answer after the consent page (a denial) follows a person's
// decision on a page that named where it returns: both still go back to the client.

import type Provider from 'oidc-provider';
import type { ProviderContext } from 'oidc-provider';
import { isUrlClientId } from './client-metadata.js';
import { authorizationErrorPage } from './consent-page.js';

/** What oidc-provider's error renderer is given. */
interface ErrorOut {
  error?: string;
  error_description?: string;
  statusCode?: number;
}

/** Where the request's error is kept (Koa's per-request state) between the event and the middleware. */
const ERROR = 'svcAuthorizationError';

/** The provider's `renderError` in the console's look (instead of the library's page). */
export function renderError(ctx: ProviderContext, out: ErrorOut): void {
  ctx.type = 'html';
  ctx.set('cache-control', 'no-store');
  ctx.body = authorizationErrorPage(out.error ?? 'server_error', out.error_description);
}

/** Installs the rule on `provider`: its authorization errors for registered clients become a page. */
export function noUnverifiedErrorRedirects(provider: Provider): void {
  provider.on('authorization.error', (ctx, err?: ErrorOut) => {
    ctx.state[ERROR] = err;
  });
  provider.on('server_error', (ctx) => {
    ctx.state[ERROR] = { error: 'server_error', statusCode: 500 } satisfies ErrorOut;
  });
  provider.use(async (ctx, next) => {
    await next();
    const err = ctx.state[ERROR] as ErrorOut | undefined;
    const client = ctx.oidc?.client;
    // The resume route runs after the consent page; only the request itself is judged here.
    if (!err || ctx.oidc?.route !== 'authorization' || !client || isUrlClientId(client.clientId)) return;
    ctx.remove('location');
    ctx.status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 400;
    renderError(ctx, err);
  });
}
