// Routes as data: method + path pattern -> route. Matching is exact segment by segment.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Action } from '../auth/policy.js';
import type { Principal } from '../auth/principal.js';
import type { NetworkContext } from '../network/context.js';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  principal: Principal;
  /** The validated JSON body, for routes with a schema. */
  body: unknown;
  requestId: string;
  net: NetworkContext;
}

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  /** The route check; omitted for routes that decide access themselves (health, install.md). */
  action?: Action;
  /** Schema name under schemas/ for the JSON body. */
  schema?: string;
  /** Skip the 401 for an invalid Authorization header (only /install.md's loopback carve-out). */
  lenientAuth?: boolean;
  /** Runs after the invalid-credential 401, before the route check: refusals that hold whoever asks (DMs disabled). */
  precheck?: (net: NetworkContext) => void;
  /** The handler writes the response itself (SSE, documents, console). */
  raw?: boolean;
  handler: (c: RequestContext) => Promise<Reply | void> | Reply | void;
}

interface Compiled {
  route: Route;
  segments: string[];
}

export type Match = { kind: 'found'; route: Route; params: Record<string, string> } | { kind: 'method'; allow: string[] } | { kind: 'none' };

export class Router {
  private readonly routes: Compiled[] = [];

  add(...routes: Route[]): this {
    for (const route of routes) this.routes.push({ route, segments: route.path.split('/') });
    return this;
  }

  match(method: string, pathname: string): Match {
    const parts = pathname.split('/');
    const allow: string[] = [];
    for (const c of this.routes) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      if (c.route.method === method || (method === 'HEAD' && c.route.method === 'GET')) return { kind: 'found', route: c.route, params };
      allow.push(c.route.method);
    }
    return allow.length > 0 ? { kind: 'method', allow: [...new Set(allow)] } : { kind: 'none' };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.startsWith(':')) {
      let v: string;
      try {
        v = decodeURIComponent(parts[i]!);
      } catch {
        return undefined;
      }
      if (!v) return undefined;
      params[p.slice(1)] = v;
    } else if (p !== parts[i]) return undefined;
  }
  return params;
}
