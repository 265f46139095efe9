// The gateway's routes, with their OpenAPI notes: the network's card, each agent's card, and each
// agent's base URL for both bindings (JSON-RPC: POST to it; HTTP+JSON: message:send,
// message:stream, tasks, tasks/{id}, tasks/{id}:cancel, tasks/{id}:subscribe). Cards are public
// (discovery); the rest needs the `a2a` action (src/auth/policy.ts). A send is refused here, in
// svc's envelope, when the caller speaks as no single agent, as the agent itself, or keeps too
// many tasks; everything else is the SDK's (runtime.ts), in the binding's own shapes.

import type { IncomingMessage } from 'node:http';
import { AppError, badRequest, forbidden, notFound } from '../../errors.js';
import { BodyError, type BodySpec } from '../../http/body.js';
import type { Reply, RequestContext, Route } from '../../http/router.js';
import { A2A_INBOUND_DEFAULTS } from '../../config/types.js';
import type { NetworkContext } from '../../network/context.js';
import { type CardAgent, agentCard, networkCard, optedIn } from './cards.js';
import { type Caller, ownerOf, senderOf } from './context.js';
import type { A2aRuntime } from './runtime.js';
import type { RestOp } from './transports.js';

/** What the routes need of the feature. */
export interface Gateway {
  runtime(): Promise<A2aRuntime>;
  base(req: IncomingMessage): string;
  /** Whether push-notification configs are taken (the cards say so). */
  push: boolean;
}

/** A body the edge refused, as a JSON-RPC error (A2A's codes: -32700 parse error, -32600 invalid request). */
function jsonRpcRefusal(err: AppError): { status: number; body: unknown } {
  const problem = err instanceof BodyError ? err.problem : undefined;
  const code = problem === 'syntax' ? -32700 : -32600;
  return { status: err.status, body: { jsonrpc: '2.0', id: null, error: { code, message: err.message } } };
}

/** A body the edge refused, as the HTTP+JSON binding's error body. */
function restRefusal(err: AppError): { status: number; body: unknown } {
  return {
    status: err.status,
    body: {
      error: {
        code: err.status,
        status: err.status === 413 ? 'RESOURCE_EXHAUSTED' : err.status === 408 ? 'DEADLINE_EXCEEDED' : 'INVALID_ARGUMENT',
        message: err.message,
        details: [],
      },
    },
  };
}

const JSON_RPC_BODY: BodySpec = { kind: 'json', refusal: jsonRpcRefusal };
const REST_BODY: BodySpec = { kind: 'json', optional: true, refusal: restRefusal };

/** The agents the network's card lists: those named (or every one, for `*`) that are registered. */
async function cardAgents(ctx: NetworkContext): Promise<CardAgent[]> {
  const named = ctx.config.server.a2a?.agents ?? [];
  const recs = named.includes('*')
    ? await ctx.store.listAgents()
    : (await Promise.all(named.map((id) => ctx.store.getAgent(id)))).flatMap((a) => (a ? [a] : []));
  return recs.map((a) => ({ id: a.id, ...(a.name ? { name: a.name } : {}) }));
}

/** The agent of an agent route, when it opted in and is registered (else 404, as an unknown one). */
async function servedAgent(ctx: NetworkContext, id: string): Promise<CardAgent> {
  const rec = optedIn(ctx.config, id) ? await ctx.store.getAgent(id) : undefined;
  if (!rec) throw notFound(`A2A agent ${id}`);
  return { id: rec.id, ...(rec.name ? { name: rec.name } : {}) };
}

/** Who calls, for the SDK's context. */
function callerOf(c: RequestContext, agent: string, base: string): Caller {
  return { owner: ownerOf(c.principal), agent, principal: c.principal, sender: senderOf(c.principal), base };
}

/** The checks a message send passes before the SDK sees it. */
async function admitSend(ctx: NetworkContext, runtime: A2aRuntime, caller: Caller): Promise<void> {
  if ('refused' in caller.sender) throw forbidden(caller.sender.refused);
  if (caller.sender.id === caller.agent) throw badRequest(`agent ${caller.agent} cannot send an A2A task to itself`);
  const max = ctx.config.server.a2a?.max_tasks_per_caller ?? A2A_INBOUND_DEFAULTS.max_tasks_per_caller;
  if ((await runtime.tasks.countOf(caller.owner)) >= max)
    throw new AppError(
      'too_many_requests',
      `this credential keeps ${max} A2A tasks already (server.a2a.max_tasks_per_caller); older ones expire after server.a2a.task_days`,
    );
}

const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage']);

const CARD_DOC = { description: 'An A2A 1.0 agent card (docs/a2a.md).', json: { type: 'object' } };
const SSE = 'text/event-stream';
const A2A_MEDIA = 'application/a2a+json';

/** A body the edge refused, in the binding's error shape (the route's own, not svc's envelope). */
const refusals = (shape: string) => ({
  400: { description: `A body that is not JSON, or that the server will not take, as ${shape}.`, json: { type: 'object' } },
  408: { description: `The body did not arrive in time, as ${shape}.`, json: { type: 'object' } },
  413: { description: `The body is larger than 1 MiB, as ${shape}.`, json: { type: 'object' } },
});
const REST_REFUSALS = refusals('the HTTP+JSON error body');
/** The binding's answers and errors (task not found: 404, bad parameters: 400...), as application/a2a+json. */
const REST_ANSWER = (what: string) => ({
  200: { description: `${what}; errors as the binding's error body, also application/a2a+json.`, media: A2A_MEDIA },
});

export function gatewayRoutes(gw: Gateway): Route[] {
  const version = (ctx: NetworkContext) => ctx.version;
  /** Runs one REST operation of an agent. */
  const rest =
    (opOf: (c: RequestContext) => RestOp) =>
    async (c: RequestContext): Promise<Reply | undefined> => {
      const agent = await servedAgent(c.ctx, c.params.agent_id!);
      const base = gw.base(c.req);
      const caller = callerOf(c, agent.id, base);
      const op = opOf(c);
      const runtime = await gw.runtime();
      if (op.op === 'send') await admitSend(c.ctx, runtime, caller);
      return runtime.rest(c.req, c.res, c.body, caller, agentCard(c.ctx.config, agent, base, version(c.ctx), gw.push), op);
    };
  /** `tasks/{id}`, `tasks/{id}:cancel`, `tasks/{id}:subscribe` share one path segment. */
  const taskOp = (c: RequestContext): RestOp => {
    const seg = c.params.task!;
    const m = /^(.+):(cancel|subscribe)$/.exec(seg);
    if (c.req.method === 'GET') {
      if (m?.[2] === 'subscribe') return { op: 'subscribe', task: m[1]! };
      if (m) throw new AppError('method_not_allowed', `${m[2]} is a POST`, { allow: 'POST' });
      const h = c.url.searchParams.get('historyLength');
      return { op: 'get', task: seg, ...(h !== null ? { historyLength: h } : {}) };
    }
    if (!m) throw new AppError('method_not_allowed', 'POST a task with :cancel or :subscribe', { allow: 'GET' });
    return { op: m[2] as 'cancel' | 'subscribe', task: m[1]! };
  };
  const agentBase = '/v1/a2a/agents/:agent_id';
  return [
    {
      method: 'GET',
      path: '/.well-known/agent-card.json',
      doc: {
        tag: 'a2a',
        summary: "The network's A2A agent card: each agent that opted in (server.a2a.agents) is a skill.",
        responses: { 200: CARD_DOC },
      },
      handler: async ({ ctx, req }) => ({
        body: networkCard(ctx.config, await cardAgents(ctx), gw.base(req), ctx.version, gw.push),
        headers: { 'cache-control': 'no-cache' },
      }),
    },
    {
      method: 'GET',
      path: `${agentBase}/.well-known/agent-card.json`,
      doc: {
        tag: 'a2a',
        summary: "One agent's A2A card: its base URL for the JSON-RPC and HTTP+JSON bindings.",
        description: '404 when the agent did not opt in (server.a2a.agents) or is not registered.',
        responses: { 200: CARD_DOC },
      },
      handler: async ({ ctx, req, params }) => ({
        body: agentCard(ctx.config, await servedAgent(ctx, params.agent_id!), gw.base(req), ctx.version, gw.push),
        headers: { 'cache-control': 'no-cache' },
      }),
    },
    {
      method: 'POST',
      path: agentBase,
      action: 'a2a',
      body: JSON_RPC_BODY,
      doc: {
        tag: 'a2a',
        summary: 'The JSON-RPC binding of A2A 1.0: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask.',
        description:
          'A message becomes a DM from the calling agent to this one (or a reply in the thread its contextId `thread/<room>/<thread>` names); the task follows the wake and the reply. Streaming methods answer with server-sent events. See docs/a2a.md.',
        request: { 'application/json': { type: 'object', required: ['jsonrpc', 'method'] } },
        responses: {
          200: {
            description: 'A JSON-RPC response (errors included), or an event stream for the streaming methods.',
            json: { type: 'object' },
          },
          ...refusals('a JSON-RPC error with id null (-32700 parse error, -32600 invalid request)'),
        },
        errors: [429],
      },
      handler: async (c) => {
        const agent = await servedAgent(c.ctx, c.params.agent_id!);
        const base = gw.base(c.req);
        const caller = callerOf(c, agent.id, base);
        const runtime = await gw.runtime();
        const method = (c.body as { method?: unknown } | null)?.method;
        if (typeof method === 'string' && SEND_METHODS.has(method)) await admitSend(c.ctx, runtime, caller);
        return runtime.jsonRpc(c.req, c.res, c.body, caller, agentCard(c.ctx.config, agent, base, version(c.ctx), gw.push));
      },
    },
    {
      method: 'POST',
      path: `${agentBase}/message:send`,
      action: 'a2a',
      body: REST_BODY,
      doc: {
        tag: 'a2a',
        summary: 'HTTP+JSON binding: SendMessage.',
        request: { 'application/json': { type: 'object', required: ['message'] } },
        responses: { ...REST_ANSWER('A SendMessageResponse (the task)'), ...REST_REFUSALS },
        errors: [429],
      },
      handler: rest(() => ({ op: 'send', stream: false })),
    },
    {
      method: 'POST',
      path: `${agentBase}/message:stream`,
      action: 'a2a',
      body: REST_BODY,
      doc: {
        tag: 'a2a',
        summary: "HTTP+JSON binding: SendStreamingMessage (the task's changes as server-sent events).",
        request: { 'application/json': { type: 'object', required: ['message'] } },
        responses: {
          200: {
            description: "StreamResponse events (a refusal before the first: the binding's error body, application/a2a+json).",
            media: SSE,
          },
          ...REST_REFUSALS,
        },
        errors: [429],
      },
      handler: rest(() => ({ op: 'send', stream: true })),
    },
    {
      method: 'GET',
      path: `${agentBase}/tasks`,
      action: 'a2a',
      doc: {
        tag: 'a2a',
        summary: "HTTP+JSON binding: ListTasks (the caller's tasks of this agent).",
        query: [
          { name: 'contextId', description: 'Only tasks of this context.' },
          { name: 'status', description: 'Only tasks in this state (TASK_STATE_...).' },
          { name: 'pageSize', description: 'Tasks per page, 1 to 100 (default 50).', schema: { type: 'integer' } },
          { name: 'pageToken', description: "The previous page's nextPageToken." },
          { name: 'historyLength', description: 'Messages of history per task.', schema: { type: 'integer' } },
          { name: 'statusTimestampAfter', description: 'Only tasks changed after this time.' },
          { name: 'includeArtifacts', description: '`true` to include artifacts.' },
        ],
        responses: REST_ANSWER('A ListTasksResponse'),
      },
      handler: rest((c) => ({ op: 'list', query: c.url.searchParams })),
    },
    {
      method: 'GET',
      path: `${agentBase}/tasks/:task`,
      action: 'a2a',
      doc: {
        tag: 'a2a',
        summary: 'HTTP+JSON binding: GetTask (`{id}`), or SubscribeToTask (`{id}:subscribe`, server-sent events).',
        query: [{ name: 'historyLength', description: 'Messages of history to include.', schema: { type: 'integer' } }],
        responses: REST_ANSWER('The task (StreamResponse events, text/event-stream, for :subscribe)'),
      },
      handler: rest(taskOp),
    },
    {
      method: 'POST',
      path: `${agentBase}/tasks/:task`,
      action: 'a2a',
      body: REST_BODY,
      doc: {
        tag: 'a2a',
        summary: 'HTTP+JSON binding: CancelTask (`{id}:cancel`) or SubscribeToTask (`{id}:subscribe`).',
        responses: { ...REST_ANSWER('The task (StreamResponse events, text/event-stream, for :subscribe)'), ...REST_REFUSALS },
      },
      handler: rest(taskOp),
    },
    {
      method: 'POST',
      path: `${agentBase}/tasks/:task/pushNotificationConfigs`,
      action: 'a2a',
      body: REST_BODY,
      doc: {
        tag: 'a2a',
        summary: "HTTP+JSON binding: CreateTaskPushNotificationConfig (the task's changes POSTed to `url`, signed with `token`).",
        request: { 'application/json': { type: 'object', required: ['url', 'token'] } },
        responses: { 201: { description: 'The config, application/a2a+json.', media: A2A_MEDIA }, ...REST_REFUSALS },
      },
      handler: rest((c) => ({ op: 'push.create', task: c.params.task! })),
    },
    {
      method: 'GET',
      path: `${agentBase}/tasks/:task/pushNotificationConfigs`,
      action: 'a2a',
      doc: {
        tag: 'a2a',
        summary: 'HTTP+JSON binding: ListTaskPushNotificationConfigs.',
        responses: REST_ANSWER('A ListTaskPushNotificationConfigsResponse'),
      },
      handler: rest((c) => ({ op: 'push.list', task: c.params.task! })),
    },
    {
      method: 'GET',
      path: `${agentBase}/tasks/:task/pushNotificationConfigs/:config`,
      action: 'a2a',
      doc: { tag: 'a2a', summary: 'HTTP+JSON binding: GetTaskPushNotificationConfig.', responses: REST_ANSWER('The config') },
      handler: rest((c) => ({ op: 'push.get', task: c.params.task!, config: c.params.config! })),
    },
    {
      method: 'DELETE',
      path: `${agentBase}/tasks/:task/pushNotificationConfigs/:config`,
      action: 'a2a',
      doc: {
        tag: 'a2a',
        summary: 'HTTP+JSON binding: DeleteTaskPushNotificationConfig.',
        responses: { 204: { description: 'Deleted (or there was none).' } },
      },
      handler: rest((c) => ({ op: 'push.delete', task: c.params.task!, config: c.params.config! })),
    },
  ];
}
