// The network calls of the MCP tools, made in process as the caller of /v1/mcp: each one runs the
// route check of the HTTP route it stands for (auth/policy.ts) and the same network function, with
// the principal the admission gate resolved from the request's bearer token. Nothing is
// authenticated twice and no loopback request is made; errors become ClientErrors as the HTTP
// client would raise them, so the tools cannot tell the two apart.

import { authorize, type Action } from '../auth/policy.js';
import type { Principal } from '../auth/principal.js';
import { ClientError, editBody, type ListQuery, type SearchParams } from '../client/index.js';
import { AppError } from '../errors.js';
import { searchRequestOf } from '../http/routes/search.js';
import { windowOf } from '../http/query.js';
import { getAgent } from '../network/agents.js';
import { requireDirectMessages } from '../network/access.js';
import type { NetworkContext } from '../network/context.js';
import { networkDocument } from '../network/document.js';
import { dmMessages, getDm, getThread, listDms, roomMessages, roomThreads, threadMessages } from '../network/history.js';
import { sendMessage } from '../network/messages.js';
import { listRooms } from '../network/rooms.js';
import { searchMessages } from '../network/search.js';
import { react } from '../reactions/react.js';
import { reactTool } from '../reactions/mcp-tool.js';
import { deleteMessage, editMessage } from '../message-lifecycle/change.js';
import type { NetworkApi } from '../mcp/session.js';
import type { ToolSet } from '../mcp/tool-host.js';
import type { SendRequest } from '../protocol/types.js';
import { check } from '../schemas.js';

/** The tools features add to /v1/mcp, the same `svc mcp` adds (src/feature-commands.ts). */
export const FEATURE_TOOLS: readonly ToolSet[] = [reactTool];

const paramsOf = (q: object): URLSearchParams => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  return p;
};

/** The tools' network calls acting as `principal`. */
export function inProcessApi(ctx: NetworkContext, principal: Principal): NetworkApi {
  /** Runs one call as its route would: the route check, then the network function; AppErrors as ClientErrors. */
  const as = async <T>(action: Action, run: () => Promise<T> | T, precheck?: () => void): Promise<T> => {
    try {
      precheck?.();
      const d = authorize(principal, action, ctx.config.auth);
      if (!d.allow) throw new AppError(d.status === 401 ? 'unauthorized' : 'forbidden', d.reason);
      return await run();
    } catch (err) {
      if (err instanceof AppError) throw new ClientError(err.message, err.status, err.code, undefined, { detail: err.message });
      throw err;
    }
  };
  const dms = () => requireDirectMessages(ctx);
  const w = (q: ListQuery | undefined) => windowOf(paramsOf(q ?? {}));
  /** The receipts feature, or what its route's absence answers (404). */
  const receipts = () => {
    const r = ctx.extensions.receipts;
    if (!r) throw new AppError('not_found', 'this server keeps no receipts (the receipts feature is not running)');
    return r;
  };
  return {
    network: () => as('network.read', () => networkDocument(ctx, principal)),
    listRooms: (q) => as('topology.list', () => listRooms(ctx, principal, w(q))),
    getAgent: (id) => as('topology.get', () => getAgent(ctx, principal, id)),
    roomMessages: (id, q) => as('history.read', () => roomMessages(ctx, principal, id, w(q), q?.as ?? null)),
    roomThreads: (id, q) => as('history.read', () => roomThreads(ctx, principal, id, w(q))),
    getThread: (id) => as('history.read', () => getThread(ctx, principal, id)),
    threadMessages: (id, q) => as('history.read', () => threadMessages(ctx, principal, id, w(q), q?.as ?? null)),
    listDms: (q) => as('dm.read', () => listDms(ctx, principal, w(q)), dms),
    getDm: (id) => as('dm.read', () => getDm(ctx, principal, id), dms),
    dmMessages: (id, q) => as('dm.read', () => dmMessages(ctx, principal, id, w(q), q?.as ?? null), dms),
    search: (q: SearchParams) => as('history.read', () => searchMessages(ctx, principal, searchRequestOf(paramsOf(q)))),
    send: (body: SendRequest) =>
      as('message.send', () => {
        // The body the tools build is checked as POST /v1/messages checks it.
        const problem = check('send-message', body, 'body');
        if (problem) throw new AppError('bad_request', problem);
        return sendMessage(ctx, principal, body);
      }),
    receipts: (id) => as('history.read', () => receipts().ofMessage(principal, id)),
    react: (messageId, emoji, o = {}) =>
      as('message.send', () =>
        react(ctx, principal, { message_id: messageId, emoji, action: o.remove ? 'remove' : 'add', ...(o.from ? { from: o.from } : {}) }),
      ),
    editMessage: (id, o) =>
      as('message.change', () => {
        // Checked as PATCH /v1/messages/{id} checks its body.
        const body = editBody(o);
        const problem = check('edit-message', body, 'body');
        if (problem) throw new AppError('bad_request', problem);
        return editMessage(ctx, principal, id, body);
      }),
    deleteMessage: (id, o = {}) => as('message.change', () => deleteMessage(ctx, principal, id, o.from)),
  };
}
