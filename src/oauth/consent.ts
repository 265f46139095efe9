// The consent page at /console/oauth/<uid>, where an authorization request lands: a person signed
// in to the console (the same session cookie, with the console's CSRF rule for the POST) picks the
// agent the client will act as, or registers a new one, and approves or denies. The answer goes
// back to oidc-provider as the interaction's result: login as the agent, and a grant of `mcp
// offline_access` on <base>/v1/mcp; a denial is access_denied.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import { AppError } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { authorize } from '../auth/policy.js';
import { cookieMayAuthenticate } from '../console/csrf.js';
import { HTML, sendPage } from '../console/respond.js';
import { CONTENT_SECURITY_POLICY } from '../console/security.js';
import type { Route } from '../http/router.js';
import { registerAgent } from '../network/agents.js';
import type { NetworkContext } from '../network/context.js';
import { cannotGrantPage, type ConsentClient, consentPage, expiredPage, refusedPage, reloadPage, signInFirstPage } from './consent-page.js';
import type { AgentRecord } from '../store/records.js';
import { accountIdOf } from './account.js';
import { grantableAgents, mayGrantAgent } from './grantable.js';
import { PENDING_GRANT_TTL } from './grants.js';
import { A2A_SCOPE, MCP_SCOPE } from './metadata.js';
import type { Providers } from './providers.js';

const NO_STORE = { 'cache-control': 'no-store', 'content-type': HTML };
const FORM_LIMIT = 8 * 1024;

/** The CSP of the page: the console's, with the form also allowed to end at the client's redirect origin. */
function cspFor(redirectUri: string | undefined): string {
  let origin = '';
  try {
    if (redirectUri) origin = new URL(redirectUri).origin;
  } catch {}
  // Chromium applies form-action to the redirects after a submission: approve ends at the client.
  return origin && origin !== 'null'
    ? CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${origin}`)
    : CONTENT_SECURITY_POLICY;
}

function send(req: IncomingMessage, res: ServerResponse, status: number, body: string, csp?: string): void {
  // same-origin, not the console's no-referrer: with no-referrer a form POST carries `Origin: null`,
  // which the console's CSRF check (rightly) refuses. No URL here carries a secret.
  sendPage(req, res, status, body, { ...NO_STORE, 'referrer-policy': 'same-origin', ...(csp ? { 'content-security-policy': csp } : {}) });
}

/** The open interaction this browser holds for `uid`, or undefined. */
async function interactionOf(
  providers: Providers,
  req: IncomingMessage,
  res: ServerResponse,
  uid: string,
): Promise<Interaction | undefined> {
  try {
    const i = await (await providers.for(req)).provider.interactionDetails(req, res);
    return i.uid === uid ? i : undefined;
  } catch {
    return undefined;
  }
}

async function clientOf(providers: Providers, req: IncomingMessage, i: Interaction): Promise<ConsentClient> {
  const id = String(i.params.client_id ?? '');
  const client = await (await providers.for(req)).provider.Client.find(id);
  let host = '';
  try {
    host = new URL(String(i.params.redirect_uri ?? '')).host;
  } catch {}
  return { id, ...(client?.clientName ? { name: client.clientName } : {}), redirectHost: host };
}

async function choices(ctx: NetworkContext, p: Principal) {
  const agents = grantableAgents(p, await ctx.store.listAgents());
  const mayRegister = p.kind !== 'anonymous' && authorize(p, 'agent.register', ctx.config.auth).allow;
  return { agents: agents.map((a) => ({ id: a.id, ...(a.name ? { name: a.name } : {}) })), mayRegister };
}

/** Finishes the interaction with `result` and sends the browser on (to the client's redirect). */
async function finish(providers: Providers, req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>): Promise<void> {
  const to = await (await providers.for(req)).provider.interactionResult(req, res, result, { mergeWithLastSubmission: false });
  sendPage(req, res, 303, '', { 'cache-control': 'no-store', location: to });
}

/** The agent the form chose: an existing one the person may grant, or a new one registered now. */
async function chosenAgent(ctx: NetworkContext, p: Principal, form: URLSearchParams): Promise<AgentRecord> {
  const picked = form.get('agent') ?? '';
  if (picked !== '') {
    const agent = await ctx.store.getAgent(picked);
    if (!agent || !mayGrantAgent(p, agent)) throw new AppError('forbidden', `you may not let a client act as agent ${picked}`);
    return agent;
  }
  const name = (form.get('new_name') ?? '').trim();
  if (name === '') throw new AppError('bad_request', 'name the new agent, or pick an existing one');
  if (!(await choices(ctx, p)).mayRegister) throw new AppError('forbidden', 'your session may not register agents');
  return (await registerAgent(ctx, p, { name })).record;
}

/**
 * The provider keeps a browser session logged in as the last agent chosen; choosing another would
 * send the browser through its logout confirmation. The session means nothing here (the person is
 * the console session), so it is dropped and the provider starts a new one.
 */
async function forgetOtherAccount(provider: Provider, i: Interaction, accountId: string): Promise<void> {
  if (!i.session?.uid) return;
  const s = await provider.Session.findByUid(i.session.uid);
  if (s?.accountId === accountId) return;
  await s?.destroy();
  delete i.session;
  await i.save(i.exp - Math.floor(Date.now() / 1000));
}

/** GET and POST /console/oauth/:uid. */
export function consentRoutes(providers: Providers): Route[] {
  const path = '/console/oauth/:uid';
  return [
    {
      method: 'GET',
      path,
      raw: true,
      handler: async ({ req, res, params, principal, ctx, url }) => {
        const uid = params.uid!;
        const i = await interactionOf(providers, req, res, uid);
        if (!i) return send(req, res, 400, expiredPage());
        const client = await clientOf(providers, req, i);
        if (principal.kind === 'anonymous') {
          // A visit sent here by another site lacks the SameSite=Strict session cookie: reload once.
          if (url.searchParams.get('again') === null) return send(req, res, 200, reloadPage(uid));
          return send(req, res, 401, signInFirstPage(uid, client));
        }
        const c = await choices(ctx, principal);
        if (c.agents.length === 0 && !c.mayRegister) return send(req, res, 403, cannotGrantPage(client));
        send(req, res, 200, consentPage({ uid, client, ...c }), cspFor(String(i.params.redirect_uri ?? '')));
      },
    },
    {
      method: 'POST',
      path,
      raw: true,
      body: { kind: 'form', limit: FORM_LIMIT },
      handler: async ({ req, res, params, principal, ctx, body }) => {
        // The gate ignores a cross-site cookie; this also stops a cross-site form where no session is needed (auth mode none).
        if (!cookieMayAuthenticate(req.method, req.headers))
          throw new AppError('forbidden', 'the consent must come from the console itself (cross-site request refused)');
        const form = (body as URLSearchParams | undefined) ?? new URLSearchParams();
        const i = await interactionOf(providers, req, res, params.uid!);
        if (!i) return send(req, res, 400, expiredPage());
        if (principal.kind === 'anonymous') return send(req, res, 401, signInFirstPage(params.uid!, await clientOf(providers, req, i)));
        if (form.get('decision') !== 'approve') {
          return finish(providers, req, res, { error: 'access_denied', error_description: 'the request was denied on the consent page' });
        }
        let agent: AgentRecord;
        try {
          agent = await chosenAgent(ctx, principal, form);
        } catch (err) {
          // A person at a browser gets a page, not the API's JSON error.
          if (!(err instanceof AppError)) throw err;
          return send(req, res, err.status, refusedPage(err.message, params.uid!));
        }
        const { provider, resource } = await providers.for(req);
        // The account is this registration of the agent, so nothing granted now acts as a later agent of its id.
        const accountId = accountIdOf(agent);
        await forgetOtherAccount(provider, i, accountId);
        // Pending until its code is exchanged (grants.ts): a consent whose code is never used is not kept.
        const grant = new provider.Grant({ accountId, clientId: String(i.params.client_id), expiresIn: PENDING_GRANT_TTL });
        // `mcp` is one of the provider's scopes as well as the resource's: the request names it
        // without a resource too, so it is granted both ways.
        // `a2a` too (the A2A gateway): a token carries it only when its client asked for it.
        grant.addResourceScope(resource, `${MCP_SCOPE} ${A2A_SCOPE}`);
        grant.addOIDCScope(`${MCP_SCOPE} ${A2A_SCOPE} offline_access`);
        const grantId = await grant.save();
        await finish(providers, req, res, { login: { accountId }, consent: { grantId } });
      },
    },
  ];
}
