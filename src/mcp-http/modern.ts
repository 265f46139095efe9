// POST /v1/mcp for protocol revision 2026-07-28, on the 2.x SDK. A request carrying the
// per-request `_meta` envelope (the SDK's own classification: `isLegacyRequest` is false) is
// answered by the SDK's fetch-shaped handler with a fresh 2.x server for this request, acting as
// the agent the bearer token names (the same session as the 2025 leg in serve.ts). The SDK checks
// the envelope, the `Mcp-Method`/`Mcp-Name` headers against the body, answers `server/discover`,
// adds `resultType` and the cache hints. `subscriptions/listen` is an SSE stream fed by the
// store's feed (any instance's writes): each new mention of, or DM to, the agent is a
// `notifications/resources/updated` for its inbox resource.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, InMemoryServerEventBus, isLegacyRequest, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { NetworkContext } from '../network/context.js';
import { inboxUri } from '../mcp/server-info.js';
import { createModernServer } from '../mcp/server-2026.js';
import { FEATURE_TOOLS } from './api.js';
import type { Session } from '../mcp/session.js';
import { PROTOCOL_VERSION_META } from '../mcp/era.js';
import { StoreInbox } from './read-state.js';
import type { WaitLimit } from './wait-limit.js';

/** Whose bounds a listen stream counts against: it holds a feed subscription as a wait does. */
export interface ListenBound {
  waits: WaitLimit;
  agentId: string;
  credential: string;
}

/** The 2025-era revisions (and earlier) the 2.x SDK knows: a header naming one is no claim of the new one. */
const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/** Headers a web Request cannot carry over from the node request (the body is passed parsed). */
const DROPPED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade']);

/** The node request as the web Request the SDK's handler reads (headers, method, URL), aborted with `signal`. */
function webRequest(req: IncomingMessage, base: string, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || DROPPED.has(k)) continue;
    for (const x of Array.isArray(v) ? v : [v]) headers.append(k, x);
  }
  return new Request(new URL(req.url ?? '/', base), { method: req.method ?? 'POST', headers, ...(signal ? { signal } : {}) });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a message carries the per-request envelope's claim: the protocol version in `_meta`. */
const claims = (m: unknown): boolean =>
  isObject(m) && isObject(m.params) && isObject(m.params._meta) && PROTOCOL_VERSION_META in m.params._meta;

/**
 * Whether a request is a 2026-07-28 one. Only a request that claims the revision (the envelope in
 * its body, or a protocol-version header no 2025 revision has) is asked of the SDK's own
 * classification; everything else stays with the 2025 leg, which answers malformed messages as it
 * always did (the 2.x classifier would send those to its modern path).
 */
export async function isModernRequest(req: IncomingMessage, base: string, body: unknown): Promise<boolean> {
  const header = req.headers['mcp-protocol-version'];
  const modernHeader = typeof header === 'string' && header !== '' && !LEGACY_VERSIONS.includes(header);
  if (!modernHeader && !(Array.isArray(body) ? body.some(claims) : claims(body))) return false;
  return !(await isLegacyRequest(webRequest(req, base), body));
}

/**
 * The resource URIs a listen request asks about that are not this agent's inbox: the SDK's router
 * honours any URI, and the inbox of another agent is not this caller's to watch.
 */
function foreignSubscriptions(body: unknown, mine: string): string[] {
  if (!isObject(body) || body.method !== 'subscriptions/listen' || !isObject(body.params)) return [];
  const n = body.params.notifications;
  const uris = isObject(n) && Array.isArray(n.resourceSubscriptions) ? n.resourceSubscriptions : [];
  return uris.filter((u) => u !== mine).map(String);
}

/** Answers one 2026-07-28 request as `session`'s agent. */
export async function serveModern(
  ctx: NetworkContext,
  req: IncomingMessage,
  res: ServerResponse,
  session: Session,
  body: unknown,
  base: string,
  bound: ListenBound,
): Promise<void> {
  const self = session.ctx.self;
  const uri = inboxUri(self);
  const foreign = foreignSubscriptions(body, uri);
  if (foreign.length > 0 && isObject(body)) {
    const error = {
      code: -32602,
      message: `Invalid params: notifications.resourceSubscriptions: ${foreign[0]} is not a resource of this agent (listen to ${uri})`,
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, error }));
    return;
  }
  const bus = new InMemoryServerEventBus();
  const handler = createMcpHandler(
    () => {
      const m = createModernServer({ session: async () => session, agent: self.agent_id, tools: FEATURE_TOOLS });
      m.addInbox(session);
      return m.server;
    },
    { legacy: 'reject', bus },
  );
  const aborted = new AbortController();
  let watch: { close(): void } | undefined;
  const done = () => {
    aborted.abort();
    watch?.close();
    void handler.close().catch(() => undefined);
  };
  res.on('close', done);
  if (res.destroyed) return done();
  if (isObject(body) && body.method === 'subscriptions/listen') {
    const seq = await ctx.store.lastEventSeq();
    // An open stream counts as one of the agent's (and credential's, and instance's) waits.
    try {
      bound.waits.admit(bound.agentId, bound.credential);
    } catch (err) {
      const error = { code: -32603, message: (err as Error).message };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, error }));
      return;
    }
    const inbox = new StoreInbox(ctx.store, self);
    const sub = inbox.watch(seq, () => handler.notify.resourceUpdated(uri), done);
    let open = true;
    watch = {
      close: () => {
        if (!open) return;
        open = false;
        sub.close();
        bound.waits.release(bound.agentId, bound.credential);
      },
    };
    if (res.destroyed) return done();
  }
  const answer = await handler.fetch(webRequest(req, base, aborted.signal), { parsedBody: body });
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  if (!answer.body) return void res.end();
  try {
    // Written as it comes: a listen stream lasts until the client goes away.
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      if (res.destroyed) break;
      res.write(chunk);
    }
  } catch {
    // The stream was torn down (the client went away): nothing more to write.
  }
  res.end();
}
