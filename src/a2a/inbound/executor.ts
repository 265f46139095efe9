// The SDK's AgentExecutor for svc agents: a task's message becomes a svc message from the caller
// (a DM to the agent, or a reply in the thread its context id names, mentioning the agent), and
// the task then follows svc's own events (tracker.ts): submitted once the message is stored,
// working when the agent acknowledges its wake, completed with the agent's next message there (its
// file and data parts as artifacts), failed when the message is refused or the wake given up on,
// canceled by CancelTask. The SDK persists each change to the task store and streams it.

import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type TaskStore } from '@a2a-js/sdk/server';
import { TaskState, type Message as A2aMessage, type Task } from '@a2a-js/sdk';
import { AppError } from '../../errors.js';
import type { NetworkContext } from '../../network/context.js';
import { dmIdFor, sendMessage } from '../../network/messages.js';
import type { SendRequest } from '../../protocol/types.js';
import { callerOf } from './context.js';
import { destinationOf, noteOf, svcParts } from './convert.js';
import { follow, type Following, TERMINAL, type TaskSink } from './follow.js';
import type { Conv, TaskTracker } from './tracker.js';

export class SvcAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, Following>();

  constructor(
    private readonly ctx: NetworkContext,
    private readonly tracker: TaskTracker,
    private readonly store: TaskStore,
  ) {}

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const caller = callerOf(rc.context);
    const { taskId, contextId } = rc;
    const at = () => new Date().toISOString();
    const status = (state: TaskState, message?: A2aMessage) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: at() }, metadata: undefined }));
    const task = (state: TaskState, metadata: Record<string, unknown>, message?: A2aMessage): Task => ({
      id: taskId,
      contextId,
      status: { state, message, timestamp: at() },
      artifacts: [],
      // A follow-up message of a task already carries it in its history (the SDK added it).
      history: rc.task ? rc.task.history : [rc.userMessage],
      metadata: { svc_agent: caller.agent, ...metadata },
    });

    const net = this.ctx.config.network.id;
    const parts = svcParts(rc.userMessage.parts);
    const dest = destinationOf(rc.userMessage.contextId);
    if ('refused' in caller.sender || typeof parts === 'string') {
      // The routes check both before the SDK runs; kept as a failed task should one slip through.
      const why = 'refused' in caller.sender ? caller.sender.refused : parts;
      bus.publish(AgentEvent.task(task(TaskState.TASK_STATE_FAILED, {}, noteOf(String(why), taskId, contextId))));
      return;
    }
    const sender = caller.sender.id;
    const conv: Conv = dest.kind === 'dm' ? { kind: 'dm', dm_id: dmIdFor([`${net}:${sender}`, `${net}:${caller.agent}`]) } : dest;

    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    const sink: TaskSink = {
      working: () => status(TaskState.TASK_STATE_WORKING),
      // Published before the execution ends: the SDK closes the task's stream when it returns.
      end: async (state, message, artifacts) => {
        // The task may have reached a terminal state elsewhere (CancelTask, or another instance following it).
        const stored = await this.store.load(taskId, rc.context).catch(() => undefined);
        if (stored?.status && TERMINAL.has(stored.status.state)) return;
        for (const artifact of artifacts)
          bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
        status(state, message);
      },
    };
    const following = follow(this.tracker, { taskId, contextId, agent: caller.agent, conv, base: caller.base }, sink, () => {
      this.running.delete(taskId);
      settle();
    });
    this.running.set(taskId, following);
    const end = following.stop;

    const req: SendRequest = {
      target:
        dest.kind === 'dm'
          ? { kind: 'dm', participant_ids: [caller.agent] }
          : { kind: 'thread', room_id: dest.room_id, thread_id: dest.thread_id },
      from: { type: 'agent', id: sender },
      parts,
      ...(dest.kind === 'thread' ? { mentions: [caller.agent] } : {}),
    };
    try {
      const sent = await sendMessage(this.ctx, caller.principal, req);
      bus.publish(AgentEvent.task(task(TaskState.TASK_STATE_SUBMITTED, { svc_message_id: sent.message_id })));
      following.watch.messageId = sent.message_id;
    } catch (err) {
      end();
      // svc refused the message (who may write where, DMs off, loop guard): the task fails, saying why.
      const why = err instanceof AppError ? `${err.code}: ${err.message}` : 'the message could not be stored';
      if (!(err instanceof AppError))
        this.ctx.log('warn', 'a2a: a task message was not stored', { error: String((err as Error)?.message ?? err) });
      bus.publish(AgentEvent.task(task(TaskState.TASK_STATE_FAILED, {}, noteOf(why, taskId, contextId))));
      return;
    }
    await done;
  }

  /** Whether this instance follows the task (resume.ts leaves it alone). */
  has(taskId: string): boolean {
    return this.running.has(taskId);
  }

  async cancelTask(taskId: string, _bus: ExecutionEventBus): Promise<void> {
    await this.running.get(taskId)?.cancel();
  }

  /** Stops following every task (the server is closing); their streams end, their states stay. */
  stopAll(): void {
    for (const r of [...this.running.values()]) r.stop();
  }
}
