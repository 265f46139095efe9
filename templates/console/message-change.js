// Changing a message from the console (#40): who may edit or delete which message, the requests,
// the confirmation before a delete, and the one place a changed message goes (an answer of this
// console's own request or a message.edited / message.deleted event of the live feed): every view
// that shows messages registers with onMessageChange and redraws its copy.

import { api } from './api.js';
import { withAttrs } from './attrs.js';
import { el, toast } from './dom.js';
import { isOwn } from './receipts.js';
import { state } from './state.js';

const enc = encodeURIComponent;

/** Whether the session holds the admin scope (an operator may change any message of this network). */
const isAdminSession = () => Boolean(state.session?.scopes?.includes('admin'));

/** Whether `m` was sent on this network (a relayed copy changes only when its home network relays the change). */
const isHome = (m) => !m.origin && (!m.from?.network_id || m.from.network_id === state.network?.id);

/** Whether this session may edit and delete `m`: its person's own message, or any message for an admin. */
export function mayChange(m) {
  if (!m || m.deleted_at || !isHome(m)) return false;
  return (isOwn(m) && Boolean(state.network?.console?.can_send_human)) || isAdminSession();
}

/** Whether `m` has text the editor can change (a message of data or files only is deleted, not edited). */
export const hasText = (m) => Array.isArray(m.parts) && m.parts.some((p) => p?.kind === 'text');

/** Who changes `m`: the console's person on its own messages (as it sends them), else nobody named (an operator). */
function changer(m) {
  const human = state.session?.human;
  return isOwn(m) && human ? { from: { type: 'human', id: human.id } } : {};
}

/** PATCH: `m`'s text parts become one text part holding `text` (its other parts stay), at the version shown. */
export function saveEdit(m, text) {
  const parts = [];
  for (const p of m.parts ?? []) {
    if (p?.kind !== 'text') parts.push(p);
    else if (!parts.some((x) => x.kind === 'text')) parts.push({ kind: 'text', text });
  }
  return api(`/v1/messages/${enc(m.id)}`, {
    method: 'PATCH',
    body: { parts, ...changer(m), expect_version: m.version ?? 1 },
  });
}

const listeners = [];

/** Registers a view's redraw for changed messages. */
export function onMessageChange(fn) {
  listeners.push(fn);
}

/** Order of two copies of one message: a tombstone is final, else the higher version is newer. */
const rank = (m) => (m.deleted_at ? Number.MAX_SAFE_INTEGER : (m.version ?? 1));

/**
 * Whether `next` should replace `shown`: an event replayed after a reconnect may be older than what
 * is shown, and the event of this console's own change arrives after its answer was drawn.
 */
export const isNewer = (next, shown) => !shown || rank(next) > rank(shown);

/** Hands a changed message to every view. */
export function applyChange(m) {
  if (!m?.id) return;
  for (const fn of listeners) fn(m);
}

let confirmDialog;

function buildConfirm() {
  if (confirmDialog) return confirmDialog;
  const title = el('h2', {}, 'Delete this message?');
  title.id = 'delete-dialog-title';
  const cancel = el('button', { type: 'button', testid: 'delete-cancel' }, 'Cancel');
  const ok = el('button', { type: 'button', class: 'danger', testid: 'delete-confirm' }, 'Delete');
  const status = withAttrs(el('p', { class: 'muted', testid: 'delete-status' }), { role: 'status' });
  const dialog = withAttrs(
    el(
      'dialog',
      { class: 'dialog', testid: 'delete-dialog' },
      title,
      el('p', {}, 'Everyone will see "message deleted" in its place; its replies stay. This cannot be undone.'),
      status,
      el('div', { class: 'dialog-buttons' }, cancel, ok),
    ),
    { 'aria-labelledby': title.id },
  );
  cancel.addEventListener('click', () => dialog.close());
  document.body.append(dialog);
  confirmDialog = { dialog, ok, cancel, status };
  return confirmDialog;
}

/** Asks before deleting `m`; on Delete sends it and shows the tombstone. Focus goes back to `opener` (a function giving the element). */
export function confirmDelete(m, opener) {
  const d = buildConfirm();
  d.status.textContent = '';
  d.ok.disabled = false;
  d.ok.onclick = async () => {
    d.ok.disabled = true;
    try {
      const body = changer(m);
      applyChange(await api(`/v1/messages/${enc(m.id)}`, { method: 'DELETE', ...(body.from ? { body } : {}) }));
      d.dialog.close();
      toast('message deleted');
    } catch (err) {
      d.status.textContent = `not deleted: ${err.message}`;
      d.ok.disabled = false;
    }
  };
  d.dialog.onclose = () => opener?.()?.focus();
  d.dialog.showModal();
  // The safe choice has the focus: Enter or Space right after opening does not delete.
  d.cancel.focus();
}
