// The gateway's SDK side, loaded with its first request (the SDK costs every server start its load
// time otherwise, and most servers never get an A2A request): one DefaultRequestHandler per agent
// (each has its own card), all on one task store in svc's store and one executor that follows
// tasks through svc's events.

import { AgentCard, type CancelTaskRequest, type SendMessageRequest } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { svcParts } from './convert.js';
import type { NetworkContext } from '../../network/context.js';
import type { Reply } from '../../http/router.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredEvent } from '../../store/types.js';
import { A2A_INBOUND_DEFAULTS } from '../../config/types.js';
import type { Caller } from './context.js';
import { SvcAgentExecutor } from './executor.js';
import { KvPushStore, type PushSettings, SignedPushSender } from './push.js';
import { TaskResumer } from './resume.js';
import { KvTaskStore } from './task-store.js';
import type { TaskTracker } from './tracker.js';
import { type RestOp, serveJsonRpc, serveRest } from './transports.js';

/**
 * The SDK's handler, refusing before it stores anything a message svc cannot carry (raw bytes,
 * no parts): the caller gets the binding's invalid-params error instead of a failed task. A task
 * canceled here that this instance resumed (resume.ts; the SDK writes its canceled state) is no
 * longer followed, so its conversation's next reply goes to the next open task.
 */
class SvcRequestHandler extends DefaultRequestHandler {
  canceled: (taskId: string) => void = () => {};

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): ReturnType<DefaultRequestHandler['cancelTask']> {
    const task = await super.cancelTask(params, context);
    this.canceled(params.id);
    return task;
  }

  override sendMessage(params: SendMessageRequest, context: ServerCallContext): ReturnType<DefaultRequestHandler['sendMessage']> {
    check(params);
    return super.sendMessage(params, context);
  }

  override sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): ReturnType<DefaultRequestHandler['sendMessageStream']> {
    check(params);
    return super.sendMessageStream(params, context);
  }
}

function check(params: SendMessageRequest): void {
  const parts = svcParts(params.message?.parts ?? []);
  if (typeof parts === 'string') throw new RequestMalformedError(parts);
}

export class A2aRuntime {
  readonly tasks: KvTaskStore;
  private readonly executor: SvcAgentExecutor;
  private readonly pushStore: KvPushStore;
  private readonly pushSender: SignedPushSender;
  /** Handlers by agent and card text: a changed card (a renamed agent, another base URL) gets a new one. */
  private readonly handlers = new Map<string, { card: string; handler: SvcRequestHandler }>();
  private resumer: TaskResumer | undefined;

  constructor(
    private readonly ctx: NetworkContext,
    private readonly tracker: TaskTracker,
  ) {
    this.tasks = new KvTaskStore(
      () => ctx.store.kv,
      () => ctx.config.server.a2a?.task_days ?? A2A_INBOUND_DEFAULTS.task_days,
    );
    this.executor = new SvcAgentExecutor(ctx, tracker, this.tasks);
    const a2a = () => ({ ...A2A_INBOUND_DEFAULTS, ...ctx.config.server.a2a });
    const settings: PushSettings = {
      kv: () => ctx.store.kv,
      days: () => a2a().task_days,
      allowPrivate: () => a2a().push_allow_private_network,
      log: (level, msg, fields) => ctx.log(level, msg, fields),
    };
    this.pushStore = new KvPushStore(settings);
    this.pushSender = new SignedPushSender(this.pushStore, settings);
  }

  private handlerFor(agent: string, card: Record<string, unknown>): SvcRequestHandler {
    const text = JSON.stringify(card);
    const known = this.handlers.get(agent);
    if (known?.card === text) return known.handler;
    const handler = new SvcRequestHandler(AgentCard.fromJSON(card), this.tasks, this.executor, undefined, this.pushStore, this.pushSender);
    handler.canceled = (id) => this.resumer?.drop(id);
    // Bounded by the agents that opted in (the routes refuse any other).
    this.handlers.set(agent, { card: text, handler });
    return handler;
  }

  jsonRpc(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    caller: Caller,
    card: Record<string, unknown>,
  ): Promise<Reply | undefined> {
    return serveJsonRpc(this.handlerFor(caller.agent, card), req, res, body, caller);
  }

  rest(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    caller: Caller,
    card: Record<string, unknown>,
    op: RestOp,
  ): Promise<Reply | undefined> {
    return serveRest(this.handlerFor(caller.agent, card), req, res, body, caller, op);
  }

  /**
   * Takes up the stored tasks left open (resume.ts), once per start; `observe` must get each live
   * event from the call on. `base` makes file links for a task stored without its base URL.
   */
  resume(base: () => string): { observe(e: StoredEvent): void; done: Promise<number> } {
    this.resumer ??= new TaskResumer({
      ctx: this.ctx,
      tracker: this.tracker,
      tasks: this.tasks,
      push: this.pushSender,
      running: (id) => this.executor.has(id),
      base,
    });
    const r = this.resumer;
    return { observe: (e) => r.observe(e), done: r.start() };
  }

  /** Ends every task stream this instance holds (shutdown); the tasks keep their states. */
  close(): void {
    this.resumer?.close();
    this.executor.stopAll();
  }
}
