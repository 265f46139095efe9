// Unread counts and the "new messages" line (docs/console.md, Unread). The counts and read markers
// live on the server (GET/POST /v1/unread), per signed-in person, so they follow the person to
// another browser; the SSE feed adds to them live (events.js), and what is shown here is marked read.

import { api } from './api.js';
import { el } from './dom.js';
import { renderDms, renderRooms, renderThreads } from './sidebar.js';
import { $, state } from './state.js';

/** conversation key -> the person's marker there ({ message_id, at }), as the server last said. */
const markers = new Map();
let since = '';
/** Whether this session keeps read markers (a signed-in person; not an anonymous visitor). */
let enabled = false;
/** The conversation whose "new messages" line is placed, and the message it stands before. */
let line = { key: '', before: '' };
/** The newest marker sent per conversation, so a burst of messages posts once per newer message. */
const sent = new Map();

/** Reads the counts from the server; the sidebar shows them. */
export async function loadUnread() {
  enabled = false;
  if (!state.session || state.session.principal === 'anonymous') return;
  let r;
  try {
    r = await api('/v1/unread');
  } catch {
    return; // no markers for this session: live counts only
  }
  enabled = true;
  since = r.since;
  for (const c of r.conversations) {
    if (c.marker) markers.set(c.conversation, c.marker);
    const open = state.current && `${state.current.kind}:${state.current.id}` === c.conversation;
    if (c.unread > 0 && !open) state.unread.set(c.conversation, c.more ? `${c.unread}+` : c.unread);
    else state.unread.delete(c.conversation);
  }
  renderRooms();
  renderDms();
  renderThreads();
}

const keyOf = () => (state.current ? `${state.current.kind}:${state.current.id}` : '');

/**
 * Called by the conversation pane after it adds messages (`where`: 'end', 'start' or 'rerender').
 * Places the "new messages" line once per opening, then moves the marker to the newest shown.
 */
export function noteShown(fresh, where) {
  const key = keyOf();
  if (!key) return;
  if (line.key !== key && where === 'end' && fresh.length > 0) {
    // The first page of a conversation just opened: the line goes before its first unread message.
    const m = markers.get(key);
    const first = state.messages.find((x) => (m ? x.created_at > m.at && x.id !== m.message_id : since && x.created_at > since));
    line = { key, before: first ? first.id : '' };
  }
  placeLine();
  if (document.visibilityState === 'visible') markShown();
}

function placeLine() {
  for (const old of document.querySelectorAll('[data-testid=new-messages]')) old.remove();
  if (line.key !== keyOf() || !line.before) return;
  const target = [...$('messages').children].find((n) => n.dataset?.id === line.before);
  if (!target) return;
  // A plain list item: a separator role inside the messages list would break the list for readers.
  target.before(el('li', { class: 'new-messages', testid: 'new-messages' }, el('span', {}, 'New messages')));
}

/** Moves the marker of the conversation in view to its newest message. */
export async function markShown() {
  const key = keyOf();
  const last = state.messages[state.messages.length - 1];
  state.unread.delete(key);
  if (!enabled || !key || !last) return;
  const had = markers.get(key);
  if ((had && (had.message_id === last.id || had.at > last.created_at)) || sent.get(key) === last.id) return;
  sent.set(key, last.id);
  try {
    const r = await api('/v1/unread', { method: 'POST', body: { message_id: last.id } });
    markers.set(r.conversation, r.marker);
  } catch {
    sent.delete(key); // try again with the next message shown
  }
}

/** Forgets the line when the conversation changes, so reopening it places it afresh. */
export function resetLine() {
  line = { key: '', before: '' };
}

/** Opens the next conversation with unread messages (the `n` shortcut); false when there is none. */
export function nextUnread() {
  const order = [
    ...[...state.rooms.keys()].map((id) => `room:${id}`),
    ...[...state.threads.keys()].map((id) => `thread:${id}`),
    ...[...state.dms.keys()].map((id) => `dm:${id}`),
  ];
  const here = order.indexOf(keyOf());
  const rotated = [...order.slice(here + 1), ...order.slice(0, here + 1)];
  const next = rotated.find((k) => state.unread.get(k));
  if (!next) return false;
  const i = next.indexOf(':');
  location.hash = `#/${next.slice(0, i)}/${encodeURIComponent(next.slice(i + 1))}`;
  return true;
}

// Back in a hidden tab: what it shows now counts as read.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') markShown();
});
