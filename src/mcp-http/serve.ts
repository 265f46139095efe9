// One POST /v1/mcp: MCP over Streamable HTTP, stateless. A 2026-07-28 request (per-request `_meta`
// envelope) is answered by the 2.x SDK (modern.ts); what follows is the 2025 era (`initialize`). Each request gets its own SDK transport and
// server, acting as the agent its bearer token names (identity.ts), with in-process network calls
// (api.ts) and the agent's read state in the store (read-state.ts); so any instance answers any
// request. Answers are SSE streams (progress notifications keep long waits alive) carrying the
// JSON-RPC response. There is no server-to-client stream without a session: GET (and DELETE) are
// 405, as the transport specification allows.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { baseUrlOf } from '../discovery/base-url.js';
import { AppError } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import type { NetworkContext } from '../network/context.js';
import { selfOf, type Self } from '../mcp/format.js';
import type { Message } from '../protocol/types.js';
import { createMcpServer, type Session } from '../mcp/server.js';
import type { InboxPort } from '../mcp/session.js';
import { FEATURE_TOOLS, inProcessApi } from './api.js';
import { inProcessFiles } from './files.js';

const withFiles = (files: ReturnType<typeof inProcessFiles>) => (files ? { files } : {});
import { AGENT_HEADER, mcpAgentOf } from './identity.js';
import { LazyStoreMarkers, StoreInbox, StoreMarkers, ensureReadState } from './read-state.js';
import { cancelledIds, type InFlight, requestIds } from './in-flight.js';
import { type WaitCall, WaitAnswer, waitCallOf } from './wait-call.js';
import { InboxWait } from './inbox-wait.js';
import { isModernRequest, serveModern } from './modern.js';
import type { WaitLimit } from './wait-limit.js';
import { waitResult } from '../mcp/wait.js';

/** A message a wait hands over has reached the agent (network/reached.ts). */
function handedOverTo(ctx: NetworkContext, agentId: string) {
  return (m: Message, seq: number) => ctx.extensions.reached.handedOver(agentId, m, seq);
}

/** The agent's inbox, whose waits count against its own, `credential`'s and the instance's bounds. */
function inboxFor(ctx: NetworkContext, self: Self, credential: string, waits: WaitLimit): InboxPort {
  const inbox = waits.wrap(self.agent_id, credential, new StoreInbox(ctx.store, self, handedOverTo(ctx, self.agent_id)));
  return {
    // A wait shows the agent as attached by it (as openWait's do; network/delivery.ts).
    wait: (scope, timeoutMs, signal) => {
      ctx.extensions.delivery?.attached(self.agent_id, 'mcp_wait', undefined, timeoutMs);
      return inbox.wait(scope, timeoutMs, signal);
    },
    pending: (scope) => inbox.pending(scope),
  };
}

/** The URL the caller reached this server at: the base of the files' download links. */
function filesBaseOf(req: IncomingMessage): string {
  const sock = req.socket as IncomingMessage['socket'] & { encrypted?: boolean };
  return baseUrlOf(req.headers, Boolean(sock.encrypted), { host: sock.localAddress ?? '127.0.0.1', port: sock.localPort ?? 80 });
}

/** The session of one request: the wait's, and the agent's calls as the caller. */
async function sessionFor(
  ctx: NetworkContext,
  principal: Principal,
  agentId: string,
  credential: string,
  waits: WaitLimit,
  baseUrl: string,
): Promise<Session> {
  const self = selfOf(ctx.config.network.id, agentId, baseUrl);
  const markers = new StoreMarkers(ctx.store, agentId, await ensureReadState(ctx.store, agentId));
  return {
    ctx: { self, markers, client: inProcessApi(ctx, principal), ...withFiles(inProcessFiles(ctx, principal, baseUrl)) },
    inbox: inboxFor(ctx, self, credential, waits),
    dmsEnabled: ctx.config.server.direct_messages,
  };
}

/** What a request of one caller shares with the other requests on this instance. */
export interface McpShared {
  waits: WaitLimit;
  inFlight: InFlight;
}

/** Answers one POST /v1/mcp as the agent the request acts as; `body` is the JSON-RPC message or batch the edge parsed. */
export async function serve(
  ctx: NetworkContext,
  principal: Principal,
  req: IncomingMessage,
  res: ServerResponse,
  shared: McpShared,
  body: unknown,
): Promise<void> {
  const asked = req.headers[AGENT_HEADER];
  const who = mcpAgentOf(principal, typeof asked === 'string' ? asked : undefined);
  if (!who.ok) throw new AppError('forbidden', who.reason);
  // Requests of one credential acting as one agent can cancel each other's calls, nobody else's.
  const credential = 'credentialKey' in principal ? principal.credentialKey : 'anonymous';
  const caller = `${credential}\n${who.agentId}`;
  const base = filesBaseOf(req);
  // A 2026-07-28 request (it carries the per-request envelope) goes to the 2.x SDK (modern.ts).
  if (await isModernRequest(req, base, body))
    return serveModern(ctx, req, res, await sessionFor(ctx, principal, who.agentId, credential, shared.waits, base), body, base, {
      waits: shared.waits,
      agentId: who.agentId,
      credential,
    });
  for (const id of cancelledIds(body)) shared.inFlight.cancel(caller, id);
  // One wait call: answered without an SDK server, which a wait would hold for minutes (wait-call.ts).
  const wait = waitCallOf(req, body);
  if (wait) return openWait(ctx, res, wait, who.agentId, credential, caller, shared, base);
  const session = await sessionFor(ctx, principal, who.agentId, credential, shared.waits, base);
  const { server, addInbox } = createMcpServer({
    session: async () => session,
    agent: who.agentId,
    subscribe: false,
    tools: FEATURE_TOOLS,
  });
  addInbox(session);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  // Closing the server aborts its calls: a wait ends with its cursor untouched.
  const stop = () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  };
  const forget = requestIds(body).map((id) => shared.inFlight.add(caller, id, stop));
  // A client that goes away, or cancels (in-flight.ts), stops its calls; one gone while the
  // session was read (its close already emitted) at once.
  const gone = () => {
    for (const f of forget) f();
    stop();
  };
  res.on('close', gone);
  if (res.destroyed) gone();
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/**
 * Answers one wait call (wait-call.ts) with a wait that is one object while it is idle
 * (inbox-wait.ts): nothing of this request's handling stays suspended for the minutes it may last.
 */
async function openWait(
  ctx: NetworkContext,
  res: ServerResponse,
  call: WaitCall,
  agentId: string,
  credential: string,
  caller: string,
  shared: McpShared,
  baseUrl: string,
): Promise<void> {
  const self = selfOf(ctx.config.network.id, agentId, baseUrl);
  let answer: WaitAnswer | undefined;
  let stopped = false;
  const w = new InboxWait(
    new StoreInbox(ctx.store, self, handedOverTo(ctx, agentId)),
    call.args.scope,
    Date.now() + call.args.timeout_s * 1000,
    (err, r) => {
      shared.waits.release(agentId, credential);
      forget();
      if (stopped) return answer!.finish(undefined);
      if (err) return answer!.finish(err);
      // Its markers read the agent's read state only when there are DMs to mark read.
      const session = { ctx: { self, markers: new LazyStoreMarkers(ctx.store, agentId) } };
      waitResult(session, call.args, r!).then(
        (result) => answer!.finish(result),
        (e: unknown) => answer!.finish(e instanceof Error ? e : new Error(String(e))),
      );
    },
  );
  const stop = () => {
    stopped = true;
    w.stop();
  };
  const forget = shared.inFlight.add(caller, call.id, stop);
  // Before the first await: a client gone while the read state is read would not be heard, and
  // its wait would hold its place until its timeout.
  res.on('close', () => {
    forget();
    stop();
  });
  // An agent seen for the first time gets its read state now: nothing before this call is waiting.
  await ensureReadState(ctx.store, agentId);
  answer = new WaitAnswer(res, call);
  try {
    shared.waits.admit(agentId, credential);
  } catch (err) {
    forget();
    return answer.finish(err instanceof Error ? err : new Error(String(err)));
  }
  w.start();
  // The agent shows as attached by an MCP wait until this one's deadline (a client that keeps
  // waiting opens the next before it lapses); no ending is written, so overlapping waits agree.
  ctx.extensions.delivery?.attached(agentId, 'mcp_wait', undefined, call.args.timeout_s * 1000);
}
