// How svc's events move one task on, shared by the task the SDK runs on this instance (executor.ts,
// whose changes go to the SDK's event bus) and a task resumed after a restart (resume.ts, whose
// changes are written to the task store directly): the tracker's Watch for the task, working once,
// and one terminal state (the agent's reply as the completed task's message and artifacts, a
// failed wake, a cancel); whatever comes after the end is ignored.

import { TaskState, type Artifact, type Message as A2aMessage } from '@a2a-js/sdk';
import type { Message } from '../../protocol/types.js';
import { noteOf, replyOf } from './convert.js';
import type { Conv, TaskTracker, Watch } from './tracker.js';

/** The states a task ends in (svc itself never rejects one; a stored rejected task stays so). */
export const TERMINAL = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** Where a task's changes go. `end` re-checks the stored task: a terminal state is never replaced. */
export interface TaskSink {
  working(): void;
  end(state: TaskState, message: A2aMessage | undefined, artifacts: Artifact[]): Promise<void>;
}

export interface FollowSpec {
  taskId: string;
  contextId: string;
  /** The agent the task was sent to, and its conversation. */
  agent: string;
  conv: Conv;
  /** The base URL of file links in the reply. */
  base: string;
  /** The task's svc message, once stored. */
  messageId?: string;
}

export interface Following {
  readonly watch: Watch;
  /** Ends the task in `state` (once); resolves when the sink has it. */
  finish(state: TaskState, message: A2aMessage | undefined, artifacts?: Artifact[]): Promise<void>;
  cancel(): Promise<void>;
  /** Ends the following without a state (shutdown): the task keeps its last one. */
  stop(): void;
}

/** Follows a task through `tracker`'s events into `sink`; `onEnd` runs once, however it ends. */
export function follow(tracker: TaskTracker, spec: FollowSpec, sink: TaskSink, onEnd: () => void): Following {
  const { taskId, contextId } = spec;
  let ended = false;
  let closed = false;
  let working = false;
  const end = () => {
    ended = true;
    if (closed) return;
    closed = true;
    unwatch();
    onEnd();
  };
  const finish = async (state: TaskState, message: A2aMessage | undefined, artifacts: Artifact[] = []) => {
    if (ended) return;
    ended = true;
    unwatch();
    try {
      await sink.end(state, message, artifacts);
    } finally {
      end();
    }
  };
  const markWorking = () => {
    if (ended || working) return;
    working = true;
    sink.working();
  };
  const watch: Watch = {
    agent: spec.agent,
    conv: spec.conv,
    ...(spec.messageId !== undefined ? { messageId: spec.messageId } : {}),
    working: markWorking,
    replied: (m: Message) => {
      const { message, artifacts } = replyOf(m, taskId, contextId, spec.base);
      // A reply proves the wake was delivered: a runtime that acknowledges a wake once it has
      // answered it (`svc agent run`) has its task shown working first, then completed.
      markWorking();
      void finish(TaskState.TASK_STATE_COMPLETED, message, artifacts);
    },
    failed: (why) => void finish(TaskState.TASK_STATE_FAILED, noteOf(`the agent's wake failed: ${why}`, taskId, contextId)),
  };
  const unwatch = tracker.watch(watch);
  return {
    watch,
    finish,
    cancel: () => finish(TaskState.TASK_STATE_CANCELED, noteOf('canceled by the caller (CancelTask)', taskId, contextId)),
    stop: end,
  };
}
