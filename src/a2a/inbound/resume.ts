// Tasks resumed when the gateway starts (docs/a2a.md "The task follows svc's events"): a task is
// followed by the instance that received it, so one that stopped mid-task (a restart, a crash)
// would leave it submitted or working forever. At start each instance takes up every stored task
// not in a terminal state and not running here: it first catches up on the events stored since
// the task's message (the wake acknowledged or given up on, the agent's reply), replaying them
// through a tracker of its own so they match as they would have live (oldest task first), then
// follows the live events. Its changes are written to the task store directly (no SDK event bus
// holds it), each on the task as stored then, a terminal state never replaced; so two instances
// resuming one task on Postgres agree. Bounded: tasks expire task_days after their last change,
// and at most MAX_RESUMED (the newest) are taken up per start.

import { type Artifact, type Message as A2aMessage, type Task, TaskState, type TaskStatus } from '@a2a-js/sdk';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { NetworkContext } from '../../network/context.js';
import type { StoredEvent } from '../../store/types.js';
import { follow, type Following, TERMINAL } from './follow.js';
import type { SignedPushSender } from './push.js';
import type { KvTaskStore, StoredTask } from './task-store.js';
import { convOf, TaskTracker } from './tracker.js';

/** Most tasks taken up per start (the newest messages first); the rest keep their states. */
export const MAX_RESUMED = 1000;
/** Events read per page while catching up. */
const PAGE = 500;

/** A task's status changed as the SDK's result manager changes it: the status message joins the history. */
function withStatus(t: Task, state: TaskState, message?: A2aMessage): Task {
  const status: TaskStatus = { state, message, timestamp: new Date().toISOString() };
  const history = message && !t.history.some((m) => m.messageId === message.messageId) ? [...t.history, message] : t.history;
  return { ...t, status, history };
}

function withArtifacts(t: Task, artifacts: readonly Artifact[]): Task {
  const out = t.artifacts.filter((a) => !artifacts.some((b) => b.artifactId === a.artifactId));
  return { ...t, artifacts: [...out, ...artifacts] };
}

export interface ResumeDeps {
  ctx: NetworkContext;
  /** The tracker live events reach; resumed tasks join it once caught up. */
  tracker: TaskTracker;
  tasks: KvTaskStore;
  push: SignedPushSender;
  /** Whether the task is running in this instance's executor already. */
  running: (taskId: string) => boolean;
  /** File links of a task stored without its base URL. */
  base: () => string;
}

export class TaskResumer {
  private readonly replay: TaskTracker;
  /** Live events that arrive while catching up; undefined once live. */
  private buffer: StoredEvent[] | undefined = [];
  /** Resumed tasks whose message the replay has not passed yet, by message id. */
  private readonly pending = new Map<string, Following>();
  private readonly followed = new Map<string, Following>();
  /** Each task's writes, in order (working before its end). */
  private readonly writes = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly d: ResumeDeps) {
    this.replay = new TaskTracker(() => d.ctx.config.network.id);
  }

  /** A live event (the feature's observer): kept while catching up, after which the main tracker has them. */
  observe(e: StoredEvent): void {
    this.buffer?.push(e);
  }

  /** Takes up the stored tasks left open; resolves once they follow the live events. Returns how many. */
  async start(): Promise<number> {
    const { ctx } = this.d;
    const open = (await this.d.tasks.all()).filter(
      (t) =>
        t.task.status !== undefined &&
        !TERMINAL.has(t.task.status.state) &&
        typeof t.task.metadata?.svc_message_id === 'string' &&
        !this.d.running(t.task.id),
    );
    const ids = open.map((t) => String(t.task.metadata!.svc_message_id));
    const seqs = await ctx.store.messageSeqs(ids);
    const known = open.filter((t) => seqs.has(String(t.task.metadata!.svc_message_id)));
    const seqOf = (t: StoredTask) => seqs.get(String(t.task.metadata!.svc_message_id))!;
    known.sort((a, b) => seqOf(a) - seqOf(b));
    const taken = known.slice(-MAX_RESUMED);
    if (open.length > taken.length)
      ctx.log('warn', 'a2a: some open tasks were not resumed', {
        resumed: taken.length,
        over_cap: known.length - taken.length,
        message_gone: open.length - known.length,
      });

    for (const t of taken) {
      if (this.closed) break;
      const messageId = String(t.task.metadata!.svc_message_id);
      const rec = await ctx.store.getMessage(messageId);
      const conv = rec && convOf(rec.message.target);
      if (!conv) continue;
      const f = follow(
        this.replay,
        { taskId: t.task.id, contextId: t.task.contextId, agent: t.agent, conv, base: t.base ?? this.d.base() },
        {
          working: () =>
            void this.write(t.task.id, (s) =>
              s.status?.state === TaskState.TASK_STATE_SUBMITTED ? withStatus(s, TaskState.TASK_STATE_WORKING) : undefined,
            ),
          end: (state, message, artifacts) =>
            this.write(t.task.id, (s) =>
              s.status && TERMINAL.has(s.status.state) ? undefined : withArtifacts(withStatus(s, state, message), artifacts),
            ),
        },
        () => this.followed.delete(t.task.id),
      );
      this.followed.set(t.task.id, f);
      this.pending.set(messageId, f);
    }

    // Catch up: every event since the oldest task's message, through the replay tracker, until none is left.
    let cursor = taken.length > 0 ? seqOf(taken[0]!) - 1 : 0;
    while (!this.closed && this.followed.size > 0) {
      const page = await ctx.store.eventsAfter(cursor, PAGE);
      if (page.length === 0) break;
      for (const e of page) this.apply(e);
      cursor = page[page.length - 1]!.seq;
    }
    // Then live, with nothing lost or seen twice: the live events stored after the last page.
    for (const e of this.buffer ?? []) if (e.seq > cursor) this.apply(e);
    this.buffer = undefined;
    for (const [id, f] of this.pending) f.watch.messageId = id;
    this.pending.clear();
    this.d.tracker.adopt(this.replay);
    if (taken.length > 0) ctx.log('info', 'a2a: open tasks resumed', { tasks: taken.length, still_open: this.followed.size });
    return taken.length;
  }

  private apply(e: StoredEvent): void {
    // A resumed task's watch matches from its message on, as the executor's does once it is stored.
    const id = e.event.type === 'message.created' ? e.event.message?.id : undefined;
    const f = id !== undefined ? this.pending.get(id) : undefined;
    if (f) {
      f.watch.messageId = id;
      this.pending.delete(id!);
    }
    this.replay.observe(e);
  }

  /** Changes the stored task (after its earlier changes), then notifies its push configs. */
  private write(taskId: string, change: (t: Task) => Task | undefined): Promise<void> {
    const prev = this.writes.get(taskId) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        let changed: Task | undefined;
        await this.d.tasks.update(taskId, (t) => (changed = change(t)));
        if (changed?.status)
          await this.d.push.send(
            {
              payload: {
                $case: 'statusUpdate',
                value: { taskId, contextId: changed.contextId, status: changed.status, metadata: undefined },
              },
            },
            undefined as unknown as ServerCallContext,
            changed,
          );
      })
      .catch((err: unknown) =>
        this.d.ctx.log('warn', 'a2a: a resumed task was not updated', { task: taskId, error: String((err as Error)?.message ?? err) }),
      );
    this.writes.set(taskId, next);
    void next.finally(() => {
      if (this.writes.get(taskId) === next) this.writes.delete(taskId);
    });
    return next;
  }

  /** Stops following a task whose end was written elsewhere (CancelTask on this instance). */
  drop(taskId: string): void {
    this.followed.get(taskId)?.stop();
  }

  /** Stops following (shutdown): the tasks keep their states for the next start. */
  close(): void {
    this.closed = true;
    for (const f of [...this.followed.values()]) f.stop();
  }
}
