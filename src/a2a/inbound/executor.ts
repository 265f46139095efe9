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
import type { Message, SendRequest } from '../../protocol/types.js';
import { callerOf } from './context.js';
import { destinationOf, noteOf, replyOf, svcParts } from './convert.js';
import type { Conv, TaskTracker, Watch } from './tracker.js';

const TERMINAL = new Set<TaskState>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED]);

/** One task being followed on this instance. */
interface Running {
  cancel(): Promise<void>;
  /** Ends the following without a state (server shutdown): the task keeps its last one. */
  stop(): void;
}

export class SvcAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, Running>();

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
    let ended = false;
    let working = false;
    const end = () => {
      ended = true;
      unwatch();
      this.running.delete(taskId);
      settle();
    };
    /**
     * A terminal state, unless the task reached one elsewhere (CancelTask on another instance).
     * Published before the execution ends: the SDK closes the task's stream when it returns.
     */
    const finish = async (state: TaskState, message: A2aMessage | undefined, before?: () => void) => {
      if (ended) return;
      ended = true;
      unwatch();
      try {
        const stored = await this.store.load(taskId, rc.context).catch(() => undefined);
        if (stored?.status && TERMINAL.has(stored.status.state)) return;
        before?.();
        status(state, message);
      } finally {
        end();
      }
    };
    const markWorking = () => {
      if (ended || working) return;
      working = true;
      status(TaskState.TASK_STATE_WORKING);
    };
    const watch: Watch = {
      agent: caller.agent,
      conv,
      working: markWorking,
      replied: (m: Message) => {
        const { message, artifacts } = replyOf(m, taskId, contextId, caller.base);
        // A reply proves the wake was delivered: a runtime that acknowledges a wake once it has
        // answered it (`svc agent run`) has its task shown working first, then completed.
        markWorking();
        void finish(TaskState.TASK_STATE_COMPLETED, message, () => {
          for (const artifact of artifacts)
            bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
        });
      },
      failed: (why) => void finish(TaskState.TASK_STATE_FAILED, noteOf(`the agent's wake failed: ${why}`, taskId, contextId)),
    };
    const unwatch = this.tracker.watch(watch);
    this.running.set(taskId, {
      cancel: () => finish(TaskState.TASK_STATE_CANCELED, noteOf('canceled by the caller (CancelTask)', taskId, contextId)),
      stop: end,
    });

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
      watch.messageId = sent.message_id;
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

  async cancelTask(taskId: string, _bus: ExecutionEventBus): Promise<void> {
    await this.running.get(taskId)?.cancel();
  }

  /** Stops following every task (the server is closing); their streams end, their states stay. */
  stopAll(): void {
    for (const r of [...this.running.values()]) r.stop();
  }
}
