// GET /install.md, /skill.md, /llms.txt: rendered per request from the live config and the
// caller's access. /install.md decides access itself (the loopback carve-out).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import { authorize, type Action } from '../auth/policy.js';
import type { Principal } from '../auth/principal.js';
import type { NetworkContext } from '../network/context.js';
import type { Route } from '../http/router.js';
import { baseUrlOf } from './base-url.js';
import { renderInstall } from './install.js';
import { renderLlms } from './llms.js';
import { isDirectLoopback } from './loopback.js';
import { renderSkill } from './skill.js';
import { accessOf, ANONYMOUS, docView, type CallerAccess, type DocView } from './view.js';

type Renderer = (v: DocView, a: CallerAccess, base: string) => string;

export interface DiscoveryDeps {
  address: () => { host: string; port: number } | undefined;
}

const MARKDOWN = 'text/markdown; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

function send(req: IncomingMessage, res: ServerResponse, type: string, text: string): void {
  const body = Buffer.from(text);
  res.writeHead(200, {
    'content-type': type,
    'content-length': String(body.length),
    // The body depends on who asks.
    'cache-control': 'no-store',
    vary: 'Authorization, Cookie',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

async function render(
  deps: DiscoveryDeps,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: NetworkContext,
  p: Principal,
  access: CallerAccess,
  type: string,
  fn: Renderer,
): Promise<void> {
  const base = baseUrlOf(
    req.headers,
    Boolean((req.socket as { encrypted?: boolean }).encrypted),
    deps.address() ?? { host: '127.0.0.1', port: 0 },
  );
  send(req, res, type, fn(await docView(ctx, p, access), access, base));
}

/** The principal /install.md renders for, or the refusal (the spec, Route checks). */
export function installPrincipal(ctx: NetworkContext, req: IncomingMessage, principal: Principal): Principal {
  // lenientAuth let an invalid Authorization header through as anonymous; detect it.
  const invalidHeader = req.headers.authorization !== undefined && principal.kind === 'anonymous';
  const d = authorize(principal, 'doc.install', ctx.config.auth);
  if (isDirectLoopback(req.socket.remoteAddress, req.headers)) {
    return d.allow && !invalidHeader ? principal : { kind: 'anonymous' };
  }
  if (invalidHeader) throw new AppError('unauthorized', 'the bearer token is not valid');
  if (!d.allow) throw new AppError(d.status === 401 ? 'unauthorized' : 'forbidden', d.reason);
  return principal;
}

function doc(path: string, action: Action, type: string, fn: Renderer, deps: DiscoveryDeps): Route {
  return {
    method: 'GET',
    path,
    action,
    raw: true,
    handler: ({ req, res, ctx, principal }) => render(deps, req, res, ctx, principal, accessOf(principal), type, fn),
  };
}

/** The three discovery routes. */
export function discoveryRoutes(deps: DiscoveryDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/install.md',
      lenientAuth: true,
      raw: true,
      handler: ({ req, res, ctx, principal }) => {
        const p = installPrincipal(ctx, req, principal);
        return render(deps, req, res, ctx, p, p.kind === 'anonymous' ? ANONYMOUS : accessOf(p), MARKDOWN, renderInstall);
      },
    },
    doc('/skill.md', 'doc.skill', MARKDOWN, renderSkill, deps),
    doc('/llms.txt', 'doc.llms', TEXT, renderLlms, deps),
  ];
}
