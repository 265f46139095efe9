// The SDK's two bindings mounted on svc's routes (its Express helpers are not used): JSON-RPC
// through the SDK's JsonRpcTransportHandler, HTTP+JSON by calling the request handler as the
// SDK's REST router does (A2A 1.0, HTTP+JSON binding). The body arrives read and checked by the
// edge (src/http/body.ts); answers and errors are the binding's own shapes (a JSON-RPC envelope,
// the REST error body with its status), streams are server-sent events as the SDK formats them.
// Loaded with the first request to the gateway (runtime.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  Extensions,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  SSE_HEADERS,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  formatSSEEvent,
  formatSSEErrorEvent,
  taskStateFromJSON,
} from '@a2a-js/sdk';
import { RequestMalformedError, restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import {
  type A2ARequestHandler,
  JsonRpcTransportHandler,
  type ServerCallContext,
  defaultServerCallContextBuilder,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { Reply } from '../../http/router.js';
import { type Caller, withCaller } from './context.js';

/** What the REST paths below an agent's base URL ask for. */
export type RestOp =
  | { op: 'send'; stream: boolean }
  | { op: 'get'; task: string; historyLength?: string }
  | { op: 'list'; query: URLSearchParams }
  | { op: 'cancel'; task: string }
  | { op: 'subscribe'; task: string }
  | { op: 'push.create'; task: string }
  | { op: 'push.list'; task: string }
  | { op: 'push.get'; task: string; config: string }
  | { op: 'push.delete'; task: string; config: string };

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(',') : v;
};

/** The SDK's call context for this request, carrying the svc caller. */
async function contextOf(
  handler: A2ARequestHandler,
  req: IncomingMessage,
  caller: Caller,
  binding: 'JSONRPC' | 'HTTP+JSON',
): Promise<ServerCallContext> {
  const context = defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(header(req, 'A2A-Extensions')),
    user: { isAuthenticated: true, userName: caller.owner },
    headers: req.headers,
    requestedVersion: header(req, 'A2A-Version') || undefined,
  });
  validateVersion(context.requestedVersion, await handler.getAgentCard(), binding);
  return withCaller(context, caller);
}

/**
 * Writes a stream of events as SSE until it ends, the client goes away or it fails (then one
 * error event). The first event is awaited before the headers: a refusal before any event is
 * answered as a plain error by `early`.
 */
async function writeStream<T>(
  res: ServerResponse,
  it: AsyncGenerator<T, void, undefined>,
  encode: (v: T) => unknown,
  early: (err: unknown) => Reply,
  late: (err: unknown) => unknown,
): Promise<Reply | undefined> {
  let first: IteratorResult<T, void>;
  try {
    first = await it.next();
  } catch (err) {
    return early(err);
  }
  res.writeHead(200, { ...SSE_HEADERS });
  // A client that leaves ends the generator (and with it the SDK's subscription to the task).
  const gone = () => void it.return(undefined).catch(() => undefined);
  res.once('close', gone);
  try {
    if (!first.done) res.write(formatSSEEvent(encode(first.value)));
    while (!res.destroyed) {
      const next = await it.next();
      if (next.done) break;
      res.write(formatSSEEvent(encode(next.value)));
    }
  } catch (err) {
    if (!res.destroyed) res.write(formatSSEErrorEvent(late(err)));
  } finally {
    res.off('close', gone);
    if (!res.writableEnded) res.end();
  }
  return undefined;
}

/** The JSON-RPC binding: one POST to the agent's base URL. */
export async function serveJsonRpc(
  handler: A2ARequestHandler,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  caller: Caller,
): Promise<Reply | undefined> {
  const id = (body as { id?: unknown } | null)?.id ?? null;
  const fail = (err: unknown) => ({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) });
  let context: ServerCallContext;
  try {
    context = await contextOf(handler, req, caller, 'JSONRPC');
  } catch (err) {
    return { status: 200, body: fail(err) };
  }
  const out = await new JsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, context);
  if (!(Symbol.asyncIterator in Object(out))) return { status: 200, body: out };
  return writeStream(
    res,
    out as AsyncGenerator<unknown, void, undefined>,
    (v) => v,
    (err) => ({ status: 200, body: fail(err) }),
    fail,
  );
}

/** The binding's media type: its answers are not svc's envelope, and say so. */
export const A2A_JSON = { 'content-type': 'application/a2a+json' };

const restError = (err: unknown): Reply => {
  const status = restStatusFor(err);
  return { status, body: toRestErrorBody(err, status), headers: A2A_JSON };
};

/** The HTTP+JSON binding: the paths below the agent's base URL. */
export async function serveRest(
  handler: A2ARequestHandler,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  caller: Caller,
  op: RestOp,
): Promise<Reply | undefined> {
  try {
    const context = await contextOf(handler, req, caller, 'HTTP+JSON');
    switch (op.op) {
      case 'send': {
        const params = SendMessageRequest.fromJSON(body ?? {});
        if (!params.message?.messageId) throw new RequestMalformedError('message.messageId is required');
        if (!op.stream) {
          const r = await handler.sendMessage(params, context);
          const payload = 'messageId' in r ? { $case: 'message' as const, value: r } : { $case: 'task' as const, value: r };
          return { body: SendMessageResponse.toJSON({ payload }), headers: A2A_JSON };
        }
        return writeStream(
          res,
          handler.sendMessageStream(params, context),
          (v) => StreamResponse.toJSON(v),
          restError,
          (e) => toRestErrorBody(e, restStatusFor(e)),
        );
      }
      case 'subscribe':
        return writeStream(
          res,
          handler.resubscribe({ id: op.task, tenant: '' }, context),
          (v) => StreamResponse.toJSON(v),
          restError,
          (e) => toRestErrorBody(e, restStatusFor(e)),
        );
      case 'get': {
        const n = op.historyLength === undefined ? undefined : Number(op.historyLength);
        if (n !== undefined && !(Number.isInteger(n) && n >= 0))
          throw new RequestMalformedError('historyLength must be a non-negative integer');
        const task = await handler.getTask({ id: op.task, tenant: '', ...(n !== undefined ? { historyLength: n } : {}) }, context);
        return { body: Task.toJSON(task), headers: A2A_JSON };
      }
      case 'cancel':
        return { body: Task.toJSON(await handler.cancelTask({ id: op.task, tenant: '', metadata: {} }, context)), headers: A2A_JSON };
      case 'push.create': {
        const config = TaskPushNotificationConfig.fromJSON({ ...(body as object | undefined), taskId: op.task });
        return {
          status: 201,
          body: TaskPushNotificationConfig.toJSON(await handler.createTaskPushNotificationConfig(config, context)),
          headers: A2A_JSON,
        };
      }
      case 'push.list': {
        const r = await handler.listTaskPushNotificationConfigs({ taskId: op.task, pageSize: 0, pageToken: '', tenant: '' }, context);
        return { body: ListTaskPushNotificationConfigsResponse.toJSON(r), headers: A2A_JSON };
      }
      case 'push.get': {
        const r = await handler.getTaskPushNotificationConfig({ taskId: op.task, id: op.config, tenant: '' }, context);
        return { body: TaskPushNotificationConfig.toJSON(r), headers: A2A_JSON };
      }
      case 'push.delete':
        await handler.deleteTaskPushNotificationConfig({ taskId: op.task, id: op.config, tenant: '' }, context);
        res.writeHead(204);
        res.end();
        return undefined;
      case 'list': {
        const q = op.query;
        const size = q.get('pageSize');
        const history = q.get('historyLength');
        const params = {
          tenant: '',
          contextId: q.get('contextId') ?? '',
          status: q.get('status') ? taskStateFromJSON(q.get('status')) : 0,
          pageToken: q.get('pageToken') ?? '',
          statusTimestampAfter: q.get('statusTimestampAfter') ?? undefined,
          includeArtifacts: q.get('includeArtifacts') === 'true',
          ...(size ? { pageSize: intOf('pageSize', size) } : {}),
          ...(history ? { historyLength: intOf('historyLength', history) } : {}),
        };
        return { body: ListTasksResponse.toJSON(await handler.listTasks(params, context)), headers: A2A_JSON };
      }
    }
  } catch (err) {
    if (res.headersSent) return undefined;
    return restError(err);
  }
}

function intOf(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new RequestMalformedError(`${name} must be an integer`);
  return n;
}
