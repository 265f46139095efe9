// The conversation in view: its history (with "load older" through the cursor pages), catching up
// after a send or a reconnect, its artifacts, and the composer that sends as a human.

import { api, messageId, qs } from './api.js';
import { attachFiles } from './attachments.js';
import { enhanceComposer } from './composer.js';
import { dmCandidates, dmComposerAllowed, dmTarget, isDraftDm, openDraftDm, sentToDraft } from './dm.js';
import { clear, el, keepingPlace, refocusComposer, toast } from './dom.js';
import { isNewer, onMessageChange } from './message-change.js';
import { editLast } from './message-editor.js';
import { layoutMessages } from './message-layout.js';
import { artifactNode, messageNode } from './render.js';
import { retentionLine } from './retention.js';
import { parseRoute } from './routes.js';
import { dmLabel, loadThreads, onSidebar, presenceDot, renderDms, renderRooms, renderThreads } from './sidebar.js';
import { $, PAGE, state } from './state.js';
import { readAs, showReceipts } from './receipts.js';
import { noteShown } from './unread.js';
import { notePeople } from './people.js';
import { closeThread, openThread, roomCandidates, showParentIfMissing } from './thread.js';
import { loadActivity, threadHref } from './thread-activity.js';

// Room messages show their threads' reply counts, the member list its presence dots; the thread
// list shows each thread's latest reply once it is read.
onSidebar('threads', () => {
  if (state.current?.kind === 'room') rerenderMessages();
  loadActivity(state.threads.values()).then(renderThreads);
});
onSidebar('agents', () => {
  if (state.current?.kind === 'room') renderMembers();
});

enhanceComposer({
  form: $('composer'),
  textarea: $('composer-text'),
  candidates: () => {
    const c = state.current;
    if (c?.kind === 'dm') return dmCandidates();
    return c?.roomId ? roomCandidates(c.roomId, state.messages) : [];
  },
});
const attached = attachFiles({ form: $('composer'), textarea: $('composer-text') });

// An edited or deleted message of the conversation in view is redrawn in its place.
onMessageChange((m) => {
  const i = state.messages.findIndex((x) => x.id === m.id);
  if (i < 0 || !isNewer(m, state.messages[i])) return;
  // An answer or event may leave out what a redraw still shows (reactions): the rest is kept.
  state.messages[i] = { ...state.messages[i], ...m };
  redrawMessage(m.id);
});

/** The Up arrow in the empty composer: edits the person's last message of the conversation in view. */
export function editLastMessage() {
  return editLast($('messages'), state.messages, $('composer-text'));
}

/** The load of the conversation in view (open's promise). */
let opening = Promise.resolve();

/** Shows what the address names: a conversation, a thread beside its room, a message, a DM to start. */
export function route() {
  const r = parseRoute(location.hash);
  if (r === undefined) {
    const first = state.rooms.values().next().value;
    if (first) location.replace(`#/room/${encodeURIComponent(first.id)}`);
    else showEmpty('No rooms are visible to this session.');
    return;
  }
  if (r === null) return showEmpty('That address does not name a conversation.');
  if (r.kind === 'to') {
    closeThread();
    return openDraftDm(r.id, { beginView, renderComposer });
  }
  const c = state.current;
  const same = c && !isDraftDm() && c.kind === r.kind && c.id === r.id;
  // The same conversation may still be loading: a permalink into it waits for that load.
  const opened = same ? opening : (opening = open(r.kind, r.id));
  if (r.kind === 'room' && (r.thread || r.reply)) openThread(r.id, { threadId: r.thread, replyTo: r.reply, message: r.message });
  else closeThread();
  if (r.message && !r.thread) opened.then(() => focusMessage(r.message));
}

/** Scrolls to message `id` of the conversation in view (loading older pages, up to 2,000 back) and highlights it. */
export async function focusMessage(id) {
  const epoch = state.epoch;
  for (let i = 0; i < 40 && !state.seen.has(id) && state.hasMore; i++) {
    await loadOlder();
    if (epoch !== state.epoch) return;
  }
  const li = document.querySelector(`#messages li[data-id="${CSS.escape(id)}"]`);
  if (!li) return toast('That message is not in this conversation (or too far back).');
  for (const old of document.querySelectorAll('.message.permalinked')) old.classList.remove('permalinked');
  li.classList.add('permalinked');
  li.scrollIntoView({ block: 'center' });
}

export function showEmpty(text) {
  state.current = null;
  $('conversation').hidden = true;
  $('empty').hidden = false;
  $('empty').textContent = text;
}

export async function open(kind, id) {
  const epoch = ++state.epoch;
  let roomId = kind === 'room' ? id : undefined;
  if (kind === 'thread') {
    const t = state.threads.get(id) ?? (await api(`/v1/threads/${encodeURIComponent(id)}`).catch(() => undefined));
    if (epoch !== state.epoch) return;
    roomId = t?.room_id;
  }
  state.current = { kind, id, roomId };
  beginView();
  state.unread.delete(`${kind}:${id}`);
  renderTitle();
  renderComposer();
  renderRooms();
  renderDms();
  if (roomId && state.threadsRoom !== roomId) loadThreads(roomId);
  else renderThreads();
  loadArtifacts();
  state.loading = true;
  try {
    const r = await api(`${historyPath()}${qs({ limit: PAGE, ...readAs() })}`);
    if (epoch !== state.epoch) return;
    addMessages(r.messages, 'end');
    setPage(r.page);
  } catch (err) {
    if (epoch === state.epoch) {
      $('messages').append(el('li', { class: 'muted' }, `cannot load this conversation: ${err.message}`));
    }
  } finally {
    if (epoch === state.epoch) {
      state.loading = false;
      addMessages(state.pending, 'end');
      state.pending = [];
      scrollToEnd();
    }
  }
}

/** Empties the conversation pane for a new conversation. */
function beginView() {
  state.messages = [];
  state.seen = new Set();
  state.pending = [];
  state.nextBefore = undefined;
  state.hasMore = false;
  $('empty').hidden = true;
  $('conversation').hidden = false;
  clear($('messages'));
  $('load-older').hidden = true;
  $('history-start').hidden = true;
}

function historyPath() {
  const c = state.current;
  const id = encodeURIComponent(c.id);
  return c.kind === 'room' ? `/v1/rooms/${id}/messages` : c.kind === 'thread' ? `/v1/threads/${id}/messages` : `/v1/dms/${id}/messages`;
}

function renderTitle() {
  const c = state.current;
  const t = $('conv-title');
  if (c.kind === 'room') t.textContent = `# ${state.rooms.get(c.id)?.name ?? c.id}`;
  else if (c.kind === 'thread') t.textContent = `Thread ${c.id} in #${c.roomId ?? '?'}`;
  else t.textContent = `DM: ${state.dms.get(c.id) ? dmLabel(state.dms.get(c.id)) : c.id}`;
  renderMembers();
}

/** The room's details under its title: its retention in force and its members (a DM: the network's retention). */
export function renderMembers() {
  const ul = $('conv-members');
  clear(ul);
  const c = state.current;
  const room = c?.roomId ? state.rooms.get(c.roomId) : undefined;
  renderRetention(c && (room || c.kind === 'dm') ? retentionLine(room?.retention, state.network?.retention) : 'forever');
  if (!room) return;
  for (const m of room.members) ul.append(el('li', { testid: 'member' }, presenceDot(m), m));
}

/** Keeping messages forever is every network's default, so the header says only what limits them. */
function renderRetention(line) {
  const p = $('conv-retention');
  p.hidden = line === 'forever';
  p.textContent = p.hidden ? '' : `Retention: ${line}`;
}

function setPage(page) {
  state.nextBefore = page?.next_before;
  state.hasMore = Boolean(page?.has_more && page?.next_before);
  $('load-older').hidden = !state.hasMore;
  $('history-start').hidden = state.hasMore || state.messages.length === 0;
}

function repliesOf(m) {
  if (state.current?.kind !== 'room') return undefined;
  for (const t of state.threads.values()) if (t.parent_message_id === m.id) return t;
  return undefined;
}

/** Adds messages not shown yet, at the start (older page) or the end (new). */
export function addMessages(list, where) {
  const fresh = list.filter((m) => m?.id && !state.seen.has(m.id));
  if (fresh.length === 0) return;
  for (const m of fresh) state.seen.add(m.id);
  notePeople(fresh);
  const nodes = fresh.map(nodeOf);
  const ol = $('messages');
  if (where === 'start') {
    state.messages = [...fresh, ...state.messages];
    ol.prepend(...nodes);
  } else {
    state.messages.push(...fresh);
    ol.append(...nodes);
  }
  layoutMessages(ol);
  showParentIfMissing();
  $('history-start').hidden = state.hasMore || state.messages.length === 0;
  showReceipts(fresh);
  noteShown(fresh, where);
}

function nodeOf(m) {
  const replies = repliesOf(m);
  return messageNode(m, { localNetwork: state.network.id, replies, threadHref: replies ? threadHref(replies) : undefined });
}

/** Redraws one message of the view (its thread's reply count changed, say). */
export function redrawMessage(id) {
  const m = state.messages.find((x) => x.id === id);
  const old = m && document.querySelector(`#messages > li[data-id="${CSS.escape(id)}"]`);
  if (!old) return;
  const node = nodeOf(m);
  if (old.classList.contains('permalinked')) node.classList.add('permalinked');
  // A control that had the keyboard focus keeps it in the new copy.
  const focused = old.contains(document.activeElement) ? document.activeElement?.getAttribute('data-testid') : null;
  old.replaceWith(node);
  if (focused) node.querySelector(`[data-testid="${CSS.escape(focused)}"]`)?.focus();
  layoutMessages($('messages'));
  showReceipts([m]);
}

export function rerenderMessages() {
  const ol = $('messages');
  const marked = ol.querySelector('.permalinked')?.dataset.id;
  clear(ol);
  ol.append(...state.messages.map(nodeOf));
  layoutMessages(ol);
  if (marked) ol.querySelector(`li[data-id="${CSS.escape(marked)}"]`)?.classList.add('permalinked');
  showReceipts(state.messages);
  noteShown([], 'rerender');
}

export function scrollToEnd() {
  const h = $('history');
  h.scrollTop = h.scrollHeight;
}

export function nearEnd() {
  const h = $('history');
  return h.scrollHeight - h.scrollTop - h.clientHeight < 80;
}

export async function loadOlder() {
  if (!state.nextBefore) return;
  const epoch = state.epoch;
  const btn = $('load-older');
  btn.disabled = true;
  try {
    const r = await api(`${historyPath()}${qs({ limit: PAGE, before: state.nextBefore, ...readAs() })}`);
    if (epoch !== state.epoch) return;
    // The message that was at the top stays where it was.
    keepingPlace($('history'), () => {
      addMessages(r.messages, 'start');
      setPage(r.page);
    });
  } catch (err) {
    toast(`cannot load older messages: ${err.message}`);
  } finally {
    btn.disabled = false;
  }
}

/** Fetches messages newer than the last shown one (after a send or a reconnect). */
export async function catchUp() {
  const c = state.current;
  if (!c || state.loading || isDraftDm()) return;
  const epoch = state.epoch;
  const last = state.messages[state.messages.length - 1];
  try {
    const r = await api(`${historyPath()}${qs({ limit: 500, ...(last ? { after: last.id } : {}), ...readAs() })}`);
    if (epoch !== state.epoch) return;
    const stick = nearEnd();
    addMessages(r.messages, 'end');
    if (stick) scrollToEnd();
  } catch {
    // the live feed or the next action will show it
  }
}

export async function loadArtifacts() {
  const c = state.current;
  const ul = $('artifacts');
  clear(ul);
  if (!c || isDraftDm()) return;
  const epoch = state.epoch;
  const filter = c.kind === 'room' ? { room_id: c.id } : c.kind === 'thread' ? { thread_id: c.id } : { dm_id: c.id };
  const r = await api(`/v1/artifacts${qs({ ...filter, limit: 100 })}`).catch(() => undefined);
  if (epoch !== state.epoch) return;
  clear(ul);
  if (!r || r.artifacts.length === 0) {
    ul.append(el('li', { class: 'muted' }, r ? 'none in this conversation' : 'not available'));
    return;
  }
  for (const a of [...r.artifacts].reverse()) ul.append(artifactNode(a));
}

// ---------- composer ----------

export function renderComposer() {
  const c = state.current;
  const allowed =
    Boolean(state.network?.console?.can_send_human) &&
    (c?.kind === 'room' || c?.kind === 'thread' || (c?.kind === 'dm' && dmComposerAllowed()));
  $('composer').hidden = !allowed;
  $('composer-status').textContent = '';
}

export async function send() {
  const c = state.current;
  const box = $('composer-text');
  const text = box.value;
  if (!c || (text.trim() === '' && attached.count() === 0) || $('composer-send').disabled) return;
  const target =
    c.kind === 'room'
      ? { kind: 'room', room_id: c.id }
      : c.kind === 'thread'
        ? { kind: 'thread', room_id: c.roomId, thread_id: c.id }
        : dmTarget();
  const human = state.session.human;
  const name = $('composer-name').value.trim() || human.name;
  $('composer-send').disabled = true;
  $('composer-status').textContent = 'sending…';
  try {
    // Uploads started when the files were chosen; the message goes once all are stored.
    const files = await attached.parts();
    const parts = [...(text.trim() === '' ? [] : [{ kind: 'text', text }]), ...files];
    await api('/v1/messages', {
      method: 'POST',
      body: { id: messageId(), target, from: { type: 'human', id: human.id, name }, parts },
    });
    attached.clear();
    box.value = '';
    box.dispatchEvent(new Event('input'));
    $('composer-status').textContent = '';
    if (isDraftDm()) return await sentToDraft();
    await catchUp();
    scrollToEnd();
  } catch (err) {
    $('composer-status').textContent = `not sent: ${err.message}`;
  } finally {
    $('composer-send').disabled = false;
    refocusComposer(box, $('composer-send'));
  }
}
