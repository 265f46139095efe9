// The HTTP server as a value: createHttpHandler(deps) -> (req, res). Order per request:
// request id -> route match (404/405; a NUL in the query 400) -> the admission gate (gate.ts: limits
// 429, credential 401, precheck, authorize 401/403) -> the body edge (body.ts: 413/408/400) ->
// handler -> one JSON reply, or one error envelope answered at once, the rest of its body drained.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, badRequest } from '../errors.js';
import type { Authenticator, Principal } from '../auth/principal.js';
import type { NetworkContext } from '../network/context.js';
import { newId } from '../protocol/ids.js';
import { check } from '../schemas.js';
import { BODY_SECONDS, type BodySpec, readRouteBody } from './body.js';
import { admitCaller, type GateRequest } from './gate.js';
import { sendError, sendJson, sendJsonStreamed, toAppError } from './respond.js';
import type { RequestContext, Route, Router } from './router.js';
import { RequestTurns } from './turns.js';

export interface HttpDeps {
  ctx: NetworkContext;
  router: Router;
  auth: () => Authenticator;
  /** Resolves a console session cookie to its bearer token (set by the console). */
  sessionToken?: (req: IncomingMessage) => string | undefined;
  /** Called once per finished request (metrics). */
  observe?: (route: string, method: string, status: number, seconds: number) => void;
  /** The WWW-Authenticate value of a 401 to this request, if any (set by features). */
  challenge?: (req: IncomingMessage) => string | undefined;
  /** Called before routing; throws AppError (429) to refuse (request limits, failed authentications). */
  admit?: (req: IncomingMessage, principal: Principal | undefined, failedAuth?: boolean) => void;
  /** Called for each request that waited for a later event-loop iteration (turns.ts; metrics). */
  waited?: () => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BASE = 'http://svc.invalid';
/**
 * Request targets whose WHATWG pathname is the target itself: a path of characters URL parsing
 * neither percent-encodes nor rewrites, no query, no dot segment, no leading `//` (that would be
 * an authority). Nearly every request is one; the rest are parsed with `new URL`.
 */
const PLAIN_TARGET = /^(?!.*\/\.)\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

/** What a handler sees; the URL object is only built when a handler asks for it (queries). */
class Context implements RequestContext {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private parsed: URL | undefined,
    readonly params: Record<string, string>,
    readonly principal: Principal,
    readonly body: unknown,
    readonly bodyBytes: Buffer | undefined,
    readonly requestId: string,
    readonly ctx: NetworkContext,
  ) {}

  get url(): URL {
    return (this.parsed ??= new URL(this.req.url ?? '/', BASE));
  }
}

export { principalOf } from './gate.js';

export function createHttpHandler(deps: HttpDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const gates = new WeakMap<Route, GateRequest>();
  const gateOf = (route: Route): GateRequest => {
    let g = gates.get(route);
    if (!g) {
      g = {
        ...(route.action ? { action: route.action } : {}),
        ...(route.lenientAuth ? { lenientAuth: true } : {}),
        ...(route.ownCredential ? { ownCredential: true } : {}),
        ...(route.precheck ? { precheck: () => route.precheck!(deps.ctx) } : {}),
      };
      gates.set(route, g);
    }
    return g;
  };
  const turns = new RequestTurns(() => deps.waited?.());
  return (req, res) => {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : newId('req');
    res.setHeader('x-request-id', requestId);
    const state: RequestState = { route: 'unmatched' };
    res.on('finish', () => deps.observe?.(state.route, req.method ?? 'GET', res.statusCode, (performance.now() - started) / 1000));
    turns.run(() => answer(deps, gateOf, req, res, requestId, state));
  };
}

/** Runs one request and answers its failure, if it fails. */
function answer(deps: HttpDeps, gateOf: GateOf, req: IncomingMessage, res: ServerResponse, requestId: string, state: RequestState): void {
  handle(deps, gateOf, req, res, requestId, state).catch((err: unknown) => {
    const { error, internal } = toAppError(err);
    if (internal)
      deps.ctx.log('error', 'request failed', {
        request_id: requestId,
        method: req.method,
        path: safePath(req),
        error: String((err as Error)?.stack ?? err),
      });
    const challenge = error.status === 401 ? deps.challenge?.(req) : undefined;
    if (challenge !== undefined && !res.headersSent) res.setHeader('www-authenticate', challenge);
    // The refusal is written at once; its response ends once the rest of the body is read
    // and dropped (bounded), see drainThen. A refused body of a route with its own protocol
    // gets that protocol's error (JSON-RPC, OAuth).
    const endWhen = req.complete || req.destroyed ? undefined : (end: () => void) => drainThen(req, end);
    const own = state.refusal?.(error);
    if (own && !res.headersSent) sendJson(res, own.status, own.body, error.headers, endWhen);
    else sendError(res, error, requestId, endWhen);
  });
}

/** The most of a refused request's body read and dropped after the refusal is sent. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
/** How long a refused request's body may go on arriving after the refusal is sent. */
const DRAIN_MS = 5_000;

/**
 * Reads and drops what is left of a refused request's body, then ends the response (`end`: the
 * connection is closed or freed for the next request as HTTP says); past DRAIN_LIMIT_BYTES or
 * DRAIN_MS the connection is closed at once. The refusal itself is already written, so a client
 * that declared 10 MiB and stalls gets its 413 at once; ending the response (which closes a
 * `Connection: close` socket) while the client is still uploading would reset the connection and
 * the client, still writing, would lose the answer (EPIPE/reset): reading on lets it finish.
 */
function drainThen(req: IncomingMessage, end: () => void): void {
  let seen = 0;
  let done = false;
  const finish = (close: boolean): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    end();
    if (close) req.socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen > DRAIN_LIMIT_BYTES) finish(true);
  };
  const timer = setTimeout(() => finish(true), DRAIN_MS);
  timer.unref();
  req.on('data', onData);
  req.once('end', () => finish(false));
  req.once('close', () => finish(false));
  req.once('error', () => finish(true));
  req.resume();
}

/** Sockets answered by answerClientError, still reading what their client sends. */
const lingering = new WeakSet<Duplex>();

/**
 * Answers a request the HTTP parser refused (a bad request line, too large headers) and closes.
 * The client may still be uploading a body: closing under unread bytes resets the connection and
 * the client loses the answer (a 4 MB upload after a bad target lost its 400 54 times in 60), so
 * what still arrives is read and dropped, up to DRAIN_LIMIT_BYTES and DRAIN_MS.
 */
export function answerClientError(socket: Duplex, response: string): void {
  // Node's parser reports every later chunk of the same socket again: answered once is enough.
  if (lingering.has(socket)) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  lingering.add(socket);
  // The HTTP parser's own reader would keep parsing (and failing on) the dropped bytes.
  socket.removeAllListeners('data');
  let seen = 0;
  const timer = setTimeout(() => socket.destroy(), DRAIN_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_LIMIT_BYTES) socket.destroy();
  });
  socket.end(response);
  socket.resume();
}

/** Per-request facts the finish observer and the error answer read. */
interface RequestState {
  /** The route pattern, once matched. */
  route: string;
  /** While the body is read and checked: how the route answers a refused one, if in its own way. */
  refusal?: BodySpec['refusal'];
}

const safePath = (req: IncomingMessage) => (req.url ?? '/').split('?')[0];

/** The pathname of a request target, and its URL when one had to be built for it. */
export function parseTarget(target: string): { pathname: string; url?: URL } {
  if (PLAIN_TARGET.test(target)) return { pathname: target };
  let url: URL;
  try {
    url = new URL(target, BASE);
  } catch {
    throw new AppError('bad_request', 'the request target is not a valid URL');
  }
  return { pathname: url.pathname, url };
}

/** What the admission gate asks of a route, built once per route (not per request). */
type GateOf = (route: Route) => GateRequest;

async function handle(
  deps: HttpDeps,
  gateOf: GateOf,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  state: RequestState,
): Promise<void> {
  const { pathname, url } = parseTarget(req.url ?? '/');
  // No backend stores a NUL, so no query value with one can name anything (a plain target has no
  // `%`, so only targets that were parsed are looked at).
  if (url?.search.includes('%00')) {
    for (const [k, v] of url.searchParams)
      if (k.includes('\0') || v.includes('\0')) throw badRequest(`query.${k.replace(/\0/g, '\\u0000')}: contains a NUL character (U+0000)`);
  }
  const m = deps.router.match(req.method ?? 'GET', pathname);
  if (m.kind === 'none') throw new AppError('not_found', `no route for ${pathname}`);
  if (m.kind === 'method')
    throw new AppError('method_not_allowed', `${req.method} is not allowed on ${pathname} (allowed: ${m.allow.join(', ')})`, {
      allow: m.allow.join(', '),
    });
  const route = m.route;
  state.route = route.path;
  const principal = await admitCaller(deps, deps.ctx.config.auth, req, gateOf(route));

  // The one place a request body is read (body.ts); a schema route takes one JSON object.
  const spec = route.body ?? (route.schema ? SCHEMA_BODY : undefined);
  state.refusal = spec?.refusal;
  const body = await readRouteBody(req, spec, route.schema !== undefined, deps.ctx.config.server.limits.body_seconds ?? BODY_SECONDS);
  if (route.schema && body.value !== undefined) {
    const problem = check(route.schema, body.value, 'body');
    if (problem) throw new AppError('bad_request', problem);
  }
  state.refusal = undefined;

  const reply = await route.handler(new Context(req, res, url, m.params, principal, body.value, body.bytes, requestId, deps.ctx));
  if (route.raw || res.writableEnded || res.headersSent) return;
  const r = reply ?? {};
  if (req.method === 'HEAD') {
    res.writeHead(r.status ?? 200, { 'content-type': 'application/json; charset=utf-8', ...r.headers });
    res.end();
    return;
  }
  if (r.stream && isObject(r.body)) return sendJsonStreamed(res, r.status ?? 200, r.body, r.headers);
  sendJson(res, r.status ?? 200, r.body ?? {}, r.headers);
}

const SCHEMA_BODY: BodySpec = { kind: 'json' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
