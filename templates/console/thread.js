// The thread panel: a thread of the room in view, beside it (the room stays visible). It opens on
// an existing thread (#/room/<r>/t/<t>) or on a message (#/room/<r>/reply/<m>): that message's
// thread, or a new one whose first reply creates it with the message as its parent.

import { api, messageId, qs } from './api.js';
import { withAttrs } from './attrs.js';
import { enhanceComposer } from './composer.js';
import { clear, el, keepingPlace, refocusComposer, toast } from './dom.js';
import { isNewer, onMessageChange } from './message-change.js';
import { editLast } from './message-editor.js';
import { layoutMessages } from './message-layout.js';
import { readAs } from './receipts.js';
import { notePeople } from './people.js';
import { messageNode } from './render.js';
import { $, state } from './state.js';

const enc = encodeURIComponent;

/** What the panel shows: { roomId, threadId, parentId, isNew, seen: Set, replies (oldest first), epoch, nextBefore, loaded } or null. */
let panel = null;
let epochs = 0;
let nodes;

/** Candidates for mentions in a room (or its threads): its members and the people who wrote in it. */
export function roomCandidates(roomId, messages = []) {
  const out = new Map();
  const room = state.rooms.get(roomId);
  for (const id of room?.members ?? []) {
    const a = state.agents.get(id);
    out.set(id, { id, name: a?.name, kind: a ? 'agent' : 'member' });
  }
  for (const m of messages) {
    const f = m.from ?? {};
    if (f.type === 'human' && f.id && !out.has(f.id) && (!f.network_id || f.network_id === state.network?.id))
      out.set(f.id, { id: f.id, name: f.name, kind: 'person' });
  }
  return [...out.values()];
}

/** Replies per page, and how many older pages a permalink may load to reach its reply (2,000 back). */
const REPLIES = 100;
const FOCUS_PAGES = 20;

/** The panel's mount point: the pane that holds the conversation (the panel goes beside it). */
const host = () => $('conversation')?.parentElement;

function build() {
  if (nodes) return nodes;
  const title = el('h2', { testid: 'thread-title' }, 'Thread');
  const close = withAttrs(el('button', { type: 'button', class: 'thread-close', testid: 'thread-close', onclick: closeByUser }, '×'), {
    'aria-label': 'Close the thread',
  });
  const parent = withAttrs(el('ol', { class: 'messages thread-parent', testid: 'thread-parent' }), { 'aria-label': 'replying to' });
  const list = withAttrs(el('ol', { class: 'messages', testid: 'thread-messages' }), { 'aria-label': 'thread replies' });
  const older = el(
    'button',
    { type: 'button', class: 'load-older', testid: 'thread-load-older', hidden: true, onclick: loadOlderReplies },
    'Load older replies',
  );
  const text = withAttrs(el('textarea', { testid: 'thread-text' }), {
    rows: '2',
    maxlength: '20000',
    'aria-label': 'Reply in thread',
    placeholder: 'Reply in thread (Enter sends)',
  });
  const send = el('button', { type: 'submit', testid: 'thread-send' }, 'Reply');
  const status = withAttrs(el('span', { class: 'muted', testid: 'thread-status' }), { role: 'status' });
  const form = el('form', { class: 'composer thread-composer', testid: 'thread-composer' }, text, send, status);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    reply();
  });
  const aside = withAttrs(
    el(
      'aside',
      { class: 'thread-panel', testid: 'thread-panel', hidden: true },
      el('header', { class: 'conv-head thread-head' }, title, close),
      el('div', { class: 'history' }, parent, older, list),
      form,
    ),
    { 'aria-label': 'thread' },
  );
  host()?.append(aside);
  enhanceComposer({ form, textarea: text, candidates: () => roomCandidates(panel?.roomId, state.messages), onSend: reply });
  // The Up arrow in the empty reply box edits the person's last reply in this thread.
  text.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowUp' || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || text.value !== '' || !panel) return;
    if (editLast(list, panel.replies, text)) e.preventDefault();
  });
  nodes = { aside, title, parent, older, list, text, send, status, form };
  return nodes;
}

function closeByUser() {
  const roomId = panel?.roomId ?? state.current?.roomId;
  closeThread();
  if (roomId) location.assign(`#/room/${enc(roomId)}`);
}

/** Hides the panel. */
export function closeThread() {
  panel = null;
  if (!nodes) return;
  nodes.aside.hidden = true;
  host()?.classList.remove('with-thread');
}

/** The thread id shown in the panel, if any. */
export function panelThreadId() {
  return panel?.threadId;
}

function threadOfParent(messageId) {
  for (const t of state.threads.values()) if (t.parent_message_id === messageId) return t;
  return undefined;
}

/**
 * Opens the panel on thread `threadId` of room `roomId`, or (with `replyTo`) on that message's
 * thread; with `message`, scrolls the panel to that reply and highlights it.
 */
export async function openThread(roomId, { threadId, replyTo, message }) {
  const n = build();
  let id = threadId;
  let isNew = false;
  let parentId;
  if (replyTo) {
    parentId = replyTo;
    const known = threadOfParent(replyTo) ?? (await findThreadOf(roomId, replyTo));
    if (known) id = known.id;
    else {
      id = newThreadId();
      isNew = true;
    }
  }
  if (panel && panel.threadId === id && panel.roomId === roomId) {
    if (message) panel.loaded.then(() => focusReply(message));
    return;
  }
  const t = state.threads.get(id);
  panel = { roomId, threadId: id, parentId: parentId ?? t?.parent_message_id, isNew, seen: new Set(), replies: [], epoch: ++epochs };
  const p = panel;
  p.loaded = fill(n, p);
  await p.loaded;
  if (message && panel === p) await focusReply(message);
  else if (panel === p) n.text.focus();
}

/** Fills the opened panel: its parent and latest replies (or the hint of a new thread). */
async function fill(n, p) {
  const { epoch, threadId: id, isNew, roomId } = p;
  n.aside.hidden = false;
  host()?.classList.add('with-thread');
  n.title.textContent = isNew ? `New thread in #${roomId}` : `Thread ${id} in #${roomId}`;
  n.status.textContent = '';
  clear(n.list);
  clear(n.parent);
  n.older.hidden = true;
  n.form.hidden = !state.network?.console?.can_send_human;
  showParent(panel.parentId);
  if (!isNew && !panel.parentId) {
    // Opened by its address before the room's threads loaded: the thread names its parent.
    const info = await api(`/v1/threads/${enc(id)}`).catch(() => undefined);
    if (!panel || panel.epoch !== epoch) return;
    panel.parentId = info?.parent_message_id;
    showParent(panel.parentId);
  }
  if (!isNew) {
    const r = await api(`/v1/threads/${enc(id)}/messages${qs({ limit: REPLIES, ...readAs() })}`).catch(() => undefined);
    if (!panel || panel.epoch !== epoch) return;
    if (!r) n.list.append(el('li', { class: 'muted' }, 'cannot load this thread'));
    else {
      add(r.messages);
      setOlder(r.page);
    }
  } else n.list.append(el('li', { class: 'muted hint', testid: 'thread-new-hint' }, 'No replies yet: the first one starts the thread.'));
}

function setOlder(page) {
  panel.nextBefore = page?.has_more ? page.next_before : undefined;
  nodes.older.hidden = !panel.nextBefore;
}

/** Loads the page of replies before the oldest one shown, keeping the view where it was. */
async function loadOlderReplies() {
  const p = panel;
  if (!p?.nextBefore || nodes.older.disabled) return;
  nodes.older.disabled = true;
  try {
    const r = await api(`/v1/threads/${enc(p.threadId)}/messages${qs({ limit: REPLIES, before: p.nextBefore, ...readAs() })}`);
    if (panel !== p) return;
    keepingPlace(nodes.list.parentElement, () => {
      add(r.messages, 'start');
      setOlder(r.page);
    });
  } catch (err) {
    toast(`cannot load older replies: ${err.message}`);
  } finally {
    nodes.older.disabled = false;
  }
}

/** Scrolls the panel to reply `id` (loading older pages as needed) and highlights it. */
async function focusReply(id) {
  const p = panel;
  for (let i = 0; i < FOCUS_PAGES && panel === p && !p.seen.has(id) && p.nextBefore; i++) await loadOlderReplies();
  if (panel !== p) return;
  const li = nodes.aside.querySelector(`li[data-id="${CSS.escape(id)}"]`);
  if (!li) return toast('That reply is not in this thread (or too far back).');
  for (const old of document.querySelectorAll('.message.permalinked')) old.classList.remove('permalinked');
  li.classList.add('permalinked');
  li.scrollIntoView({ block: 'center' });
}

/** Threads load with the room; a parent whose thread is not listed yet is looked up once. */
async function findThreadOf(roomId, parentId) {
  const r = await api(`/v1/rooms/${enc(roomId)}/threads${qs({ limit: 500 })}`).catch(() => undefined);
  return r?.threads?.find((t) => t.parent_message_id === parentId);
}

function newThreadId() {
  const b = crypto.getRandomValues(new Uint8Array(5));
  return `t-${Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')}`;
}

/** Shows the parent once the room's history holds it (conversation.js calls this as messages arrive). */
export function showParentIfMissing() {
  if (panel?.parentId && nodes && !nodes.parent.firstChild) showParent(panel.parentId);
}

function showParent(parentId) {
  const m = parentId ? state.messages.find((x) => x.id === parentId) : undefined;
  if (!m || nodes.parent.firstChild) return;
  const node = messageNode(m, { localNetwork: state.network.id, inPanel: true });
  node.classList.add('parent');
  nodes.parent.append(node);
}

/** Shows replies not shown yet: at the end (new ones; the panel scrolls down) or the start (older). */
function add(list, where = 'end') {
  const fresh = list.filter((m) => m?.id && !panel.seen.has(m.id));
  if (!fresh.length) return;
  nodes.list.querySelector('.hint')?.remove();
  for (const m of fresh) panel.seen.add(m.id);
  notePeople(fresh);
  const made = fresh.map((m) => messageNode(m, { localNetwork: state.network.id, inPanel: true }));
  if (where === 'start') {
    nodes.list.prepend(...made);
    panel.replies.unshift(...fresh);
  } else {
    nodes.list.append(...made);
    panel.replies.push(...fresh);
  }
  layoutMessages(nodes.list);
  if (where === 'start') return;
  const h = nodes.list.parentElement;
  h.scrollTop = h.scrollHeight;
}

// An edited or deleted reply (or the parent) is redrawn in its place in the panel.
onMessageChange((m) => {
  if (!panel || !nodes) return;
  const i = panel.replies.findIndex((x) => x.id === m.id);
  if (i >= 0) {
    if (!isNewer(m, panel.replies[i])) return;
    panel.replies[i] = { ...panel.replies[i], ...m };
    m = panel.replies[i];
  } else if (m.id !== panel.parentId) return;
  for (const old of [nodes.list, nodes.parent].flatMap((ol) => [...ol.querySelectorAll(`:scope > li[data-id="${CSS.escape(m.id)}"]`)])) {
    const node = messageNode(m, { localNetwork: state.network.id, inPanel: true });
    for (const c of ['parent', 'permalinked']) if (old.classList.contains(c)) node.classList.add(c);
    old.replaceWith(node);
  }
  layoutMessages(nodes.list);
});

/** A live message: shown when it belongs to the thread in the panel. Returns whether it did. */
export function onPanelMessage(m) {
  if (!panel || m?.target?.kind !== 'thread' || m.target.thread_id !== panel.threadId) return false;
  if (panel.isNew) {
    panel.isNew = false;
    nodes.title.textContent = `Thread ${panel.threadId} in #${panel.roomId}`;
  }
  add([m]);
  return true;
}

async function reply() {
  const n = nodes;
  const p = panel;
  const text = n.text.value;
  if (!p || text.trim() === '' || n.send.disabled) return;
  const human = state.session.human;
  const name = $('composer-name')?.value.trim() || human.name;
  const target = {
    kind: 'thread',
    room_id: p.roomId,
    thread_id: p.threadId,
    ...(p.isNew && p.parentId ? { parent_message_id: p.parentId } : {}),
  };
  // The live copy of the first reply may arrive before the answer and clear isNew.
  const wasNew = p.isNew;
  n.send.disabled = true;
  n.status.textContent = 'sending…';
  try {
    await api('/v1/messages', {
      method: 'POST',
      body: { id: messageId(), target, from: { type: 'human', id: human.id, name }, parts: [{ kind: 'text', text }] },
    });
    n.text.value = '';
    n.text.dispatchEvent(new Event('input'));
    n.status.textContent = '';
    if (panel !== p) return;
    if (wasNew) {
      p.isNew = false;
      n.title.textContent = `Thread ${p.threadId} in #${p.roomId}`;
      // The address names the thread now, so a reload or a shared link opens it.
      location.replace(`#/room/${enc(p.roomId)}/t/${enc(p.threadId)}`);
    }
    const r = await api(`/v1/threads/${enc(p.threadId)}/messages${qs({ limit: REPLIES, ...readAs() })}`).catch(() => undefined);
    if (r && panel === p) add(r.messages);
  } catch (err) {
    n.status.textContent = `not sent: ${err.message}`;
  } finally {
    n.send.disabled = false;
    refocusComposer(n.text, n.send);
  }
}
