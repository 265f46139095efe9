// The latest activity of each thread (when, and who wrote last) for the thread list: the last
// message of the most recent threads is read once, live messages keep it current.

import { api, qs } from './api.js';
import { el } from './dom.js';
import { displayName } from './render.js';
import { state } from './state.js';
import { timeNode } from './times.js';
import { notePeople } from './people.js';

/** thread id -> { at, by } */
const latest = new Map();
/** How many of the most recent threads get their last message read when the list loads. */
const READ_LAST = 20;

/** Records message `m` as its thread's latest activity when it is newer. */
export function noteActivity(m) {
  const id = m?.target?.kind === 'thread' ? m.target.thread_id : undefined;
  if (!id) return;
  const cur = latest.get(id);
  if (cur && cur.at > (m.created_at ?? '')) return;
  latest.set(id, { at: m.created_at ?? '', by: displayName(m.from ?? {}, state.network?.id) });
}

/** Reads the last message of the most recent threads not known yet; resolves when done. */
export async function loadActivity(threads) {
  const recent = [...threads]
    .filter((t) => !latest.has(t.id))
    .sort((a, b) => (b.last_message_at ?? '').localeCompare(a.last_message_at ?? ''))
    .slice(0, READ_LAST);
  await Promise.all(
    recent.map(async (t) => {
      const r = await api(`/v1/threads/${encodeURIComponent(t.id)}/messages${qs({ limit: 1 })}`).catch(() => undefined);
      const last = r?.messages?.[r.messages.length - 1];
      if (last) {
        noteActivity(last);
        notePeople([last]);
      }
    }),
  );
}

/** The "last reply" line of thread `t` for the thread list: who wrote last and when. */
export function activityNode(t) {
  const a = latest.get(t.id);
  const at = a?.at || t.last_message_at;
  if (!at) return null;
  return el('span', { class: 'thread-activity muted', testid: 'thread-activity' }, a?.by ? `${a.by} · ` : '', timeNode(at));
}

/** The address of thread `t` in the console: its room with the thread in the side panel. */
export function threadHref(t) {
  return t.room_id ? `#/room/${encodeURIComponent(t.room_id)}/t/${encodeURIComponent(t.id)}` : `#/thread/${encodeURIComponent(t.id)}`;
}
