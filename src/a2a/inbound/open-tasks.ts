// Whether the store holds a task left open (not completed, failed, canceled or rejected), read
// without the SDK: the gateway loads the SDK at start only when it has tasks to resume (resume.ts).

import type { KvTable } from '../../store/types.js';

/** The key/value kind of a stored task (task-store.ts). */
export const TASK_KIND = 'a2a.task';

const ENDED = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

export async function hasOpenTask(kv: KvTable): Promise<boolean> {
  for (const e of await kv.list(TASK_KIND)) {
    try {
      const state = (JSON.parse(e.value) as { task?: { status?: { state?: unknown } } }).task?.status?.state;
      if (typeof state === 'string' && !ENDED.has(state)) return true;
    } catch {
      // A row that is not JSON is no task.
    }
  }
  return false;
}
