// Routes as data: method + path pattern -> route. Matching is exact segment by segment.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Action } from '../auth/policy.js';
import type { Principal } from '../auth/principal.js';
import type { NetworkContext } from '../network/context.js';
import type { BodySpec } from './body.js';
import type { OperationDoc } from './openapi/op-doc.js';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  principal: Principal;
  /** The body the route declared, as the edge (body.ts) read it: the validated JSON for a schema. */
  body: unknown;
  /** The bytes that body came from (an inbound hook's signature covers them); undefined without one. */
  bodyBytes: Buffer | undefined;
  requestId: string;
  ctx: NetworkContext;
}

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Write the body as it goes, one element of each top-level array at a time (pages of messages):
   * a page is never one string, and a reader that does not read holds back only one element.
   */
  stream?: boolean;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  /** The route check; omitted for routes that decide access themselves (health, install.md). */
  action?: Action;
  /** Schema name under schemas/ for the JSON body (implies `body: {kind: 'json'}`, one object). */
  schema?: string;
  /**
   * The body the route takes, read and checked by the edge (body.ts) before the handler runs;
   * absent (and no schema): none, and what a client sends anyway is dropped up to a small bound.
   */
  body?: BodySpec;
  /** Skip the 401 for an invalid Authorization header (only /install.md's loopback carve-out). */
  lenientAuth?: boolean;
  /**
   * The Authorization header carries the route's own secret (an inbound hook's), not a svc
   * credential: the gate neither judges nor counts it; the handler does (and counts its failures).
   */
  ownCredential?: boolean;
  /** Runs after the invalid-credential 401, before the route check: refusals that hold whoever asks (DMs disabled). */
  precheck?: (ctx: NetworkContext) => void;
  /** The handler writes the response itself (SSE, documents, console). */
  raw?: boolean;
  /**
   * Its OpenAPI notes, for a feature's route documented with it (src/http/openapi/document.ts):
   * the core's routes keep theirs in openapi/operations/, apart from the handling.
   */
  doc?: OperationDoc;
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that answers through `res` itself returns nothing
  handler: (c: RequestContext) => Promise<Reply | void> | Reply | void;
}

interface Compiled {
  route: Route;
  /** Literal segments by position. */
  literals: [number, string][];
  /** Parameter segments by position, with their names. */
  names: [number, string][];
}

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method'; allow: string[] }
  | { kind: 'none' };

const NONE: Match = { kind: 'none' };

export class Router {
  /** Routes by segment count, each list in the order the routes were added. */
  private readonly bySize = new Map<number, Compiled[]>();
  /** Every route in the order added (the OpenAPI document walks it). */
  private readonly all: Route[] = [];
  /**
   * Answers for the paths of routes without parameters (`/v1/messages`, most of the traffic), by
   * path and method: a scan found them once. Keys are route paths only, so the map is bounded.
   */
  private readonly fixed = new Map<string, Map<string, Match>>();

  add(...routes: Route[]): this {
    // A new route may answer first for a path already answered: forget the answers, keep the paths.
    for (const answers of this.fixed.values()) answers.clear();
    for (const route of routes) {
      if (!route.path.includes('/:')) this.fixed.set(route.path, new Map());
      this.all.push(route);
      const segments = route.path.split('/');
      const c: Compiled = { route, literals: [], names: [] };
      segments.forEach((p, i) => (p.startsWith(':') ? c.names.push([i, p.slice(1)]) : c.literals.push([i, p])));
      const list = this.bySize.get(segments.length) ?? [];
      list.push(c);
      this.bySize.set(segments.length, list);
    }
    return this;
  }

  /** The routes in the order they were added. */
  routes(): readonly Route[] {
    return this.all;
  }

  match(method: string, pathname: string): Match {
    const known = this.fixed.get(pathname);
    if (known === undefined) return this.scan(method, pathname);
    let m = known.get(method);
    if (m === undefined) {
      m = this.scan(method, pathname);
      // The HTTP parser admits a fixed set of methods; the bound is only a guard.
      if (known.size < 16) known.set(method, m);
    }
    // A found match's params are the handler's: each request gets its own copy (a route with
    // parameters added earlier may be the one that answers for this path).
    return m.kind === 'found' ? { kind: 'found', route: m.route, params: { ...m.params } } : m;
  }

  private scan(method: string, pathname: string): Match {
    const parts = pathname.split('/');
    const candidates = this.bySize.get(parts.length);
    if (!candidates) return NONE;
    let allow: string[] | undefined;
    for (const c of candidates) {
      const params = matchSegments(c, parts);
      if (!params) continue;
      if (c.route.method === method || (method === 'HEAD' && c.route.method === 'GET')) return { kind: 'found', route: c.route, params };
      (allow ??= []).push(c.route.method);
    }
    return allow ? { kind: 'method', allow: [...new Set(allow)] } : NONE;
  }
}

/** The route's parameters when `parts` matches it (literals exactly, parameters non-empty, decodable, without NUL). */
function matchSegments(c: Compiled, parts: string[]): Record<string, string> | undefined {
  for (const [i, literal] of c.literals) if (parts[i] !== literal) return undefined;
  const params: Record<string, string> = {};
  for (const [i, name] of c.names) {
    let v: string;
    try {
      v = decodeURIComponent(parts[i]!);
    } catch {
      return undefined;
    }
    // No id holds a NUL (no backend could store one): such a segment names nothing, as an
    // undecodable one does.
    if (!v || v.includes('\0')) return undefined;
    params[name] = v;
  }
  return params;
}
