// The SDK's TaskStore on svc's store: each task one row of the key/value table (kind `a2a.task`),
// so a task reads back after a restart and from every instance on one Postgres store. A row keeps
// the task as the spec's JSON, the credential that created it (its owner: nobody else reads it)
// and the agent it was sent to (read only through that agent's URL); it expires `task_days` after
// its last change.

import { Task, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { KvTable } from '../../store/types.js';
import { callerOf } from './context.js';
import { TASK_KIND } from './open-tasks.js';

export { TASK_KIND };

interface TaskRow {
  owner: string;
  agent: string;
  /** The base URL the task was sent to (file links in its reply), for a task resumed without a request. */
  base?: string;
  task: unknown;
}

/** A stored task as a resumed task sees it: no caller, the row's owner and agent kept as they are. */
export interface StoredTask {
  owner: string;
  agent: string;
  base?: string;
  task: Task;
}

const DAY_MS = 86_400_000;

function rowOf(value: string): TaskRow | undefined {
  try {
    const v = JSON.parse(value) as TaskRow;
    return v && typeof v.owner === 'string' && typeof v.agent === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A page token: the position after the last task of the page (its status time and id). */
const tokenOf = (t: Task): string => Buffer.from(JSON.stringify([t.status?.timestamp ?? '', t.id])).toString('base64url');

function positionOf(token: string): [string, string] | undefined {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    return Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string' ? [v[0], v[1]] : undefined;
  } catch {
    return undefined;
  }
}

export class KvTaskStore implements TaskStore {
  constructor(
    private readonly kv: () => KvTable,
    private readonly days: () => number,
  ) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const { owner, agent, base } = callerOf(context);
    await this.put({ owner, agent, base, task });
  }

  private async put(t: StoredTask): Promise<void> {
    const row: TaskRow = { owner: t.owner, agent: t.agent, ...(t.base ? { base: t.base } : {}), task: Task.toJSON(t.task) };
    await this.kv().put({
      kind: TASK_KIND,
      id: t.task.id,
      lookup: t.owner,
      value: JSON.stringify(row),
      expires_at: Date.now() + this.days() * DAY_MS,
    });
  }

  /** Every stored task (resume.ts), oldest first stored. */
  async all(): Promise<StoredTask[]> {
    const out: StoredTask[] = [];
    for (const e of await this.kv().list(TASK_KIND)) {
      const row = rowOf(e.value);
      if (row) out.push({ owner: row.owner, agent: row.agent, ...(row.base ? { base: row.base } : {}), task: Task.fromJSON(row.task) });
    }
    return out;
  }

  /**
   * Changes a stored task without a request (a resumed task): `change` gets the task as stored now
   * and returns it changed, or undefined to leave it. A read, then a write: two instances changing
   * one task write what each decided on its own read (change() keeps a terminal state terminal).
   */
  async update(taskId: string, change: (t: Task) => Task | undefined): Promise<void> {
    const e = await this.kv().get(TASK_KIND, taskId);
    const row = e && rowOf(e.value);
    if (!row) return;
    const next = change(Task.fromJSON(row.task));
    if (next) await this.put({ owner: row.owner, agent: row.agent, ...(row.base ? { base: row.base } : {}), task: next });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const { owner, agent } = callerOf(context);
    const e = await this.kv().get(TASK_KIND, taskId);
    const row = e && rowOf(e.value);
    // Another caller's task, or one sent to another agent, is not found (as an unknown id).
    if (!row || row.owner !== owner || row.agent !== agent) return undefined;
    return Task.fromJSON(row.task);
  }

  /** The caller's tasks, sent to this agent. */
  private async mine(context: ServerCallContext): Promise<Task[]> {
    const { owner, agent } = callerOf(context);
    const out: Task[] = [];
    for (const e of await this.kv().list(TASK_KIND)) {
      if (e.lookup !== owner) continue;
      const row = rowOf(e.value);
      if (row && row.owner === owner && row.agent === agent) out.push(Task.fromJSON(row.task));
    }
    return out;
  }

  /** How many tasks a credential keeps (on every agent). */
  async countOf(owner: string): Promise<number> {
    let n = 0;
    for (const e of await this.kv().list(TASK_KIND)) if (e.lookup === owner) n++;
    return n;
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    let tasks = await this.mine(context);
    if (params.contextId) tasks = tasks.filter((t) => t.contextId === params.contextId);
    if (params.status) tasks = tasks.filter((t) => t.status?.state === params.status);
    if (params.statusTimestampAfter) {
      const after = Date.parse(params.statusTimestampAfter);
      tasks = tasks.filter((t) => t.status?.timestamp !== undefined && Date.parse(t.status.timestamp) > after);
    }
    // Newest change first, then by id: the order the SDK's own store lists in.
    tasks.sort((a, b) => (b.status?.timestamp ?? '').localeCompare(a.status?.timestamp ?? '') || b.id.localeCompare(a.id));
    const totalSize = tasks.length;
    if (params.pageToken) {
      const at = positionOf(params.pageToken);
      const i = at ? tasks.findIndex((t) => (t.status?.timestamp ?? '') === at[0] && t.id === at[1]) : -1;
      tasks = i === -1 ? [] : tasks.slice(i + 1);
    }
    const page = tasks.slice(0, pageSize).map((t) => (params.includeArtifacts ? t : { ...t, artifacts: [] }));
    return { tasks: page, nextPageToken: tasks.length > page.length ? tokenOf(page[page.length - 1]!) : '', pageSize, totalSize };
  }
}
