// Changing a message from the console (#40): who may edit, delete or redact which message, the
// requests, the confirmation before a delete or a redaction, and the one place a changed message
// goes (an answer of this console's own request or a message.edited / message.deleted /
// message.redacted event of the live feed): every view that shows messages registers with
// onMessageChange and redraws its copy.

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

/**
 * Whether this session may redact `m` (#40 part 3): an admin session, on any message this network
 * keeps (a relayed copy too: what goes is this network's copy), a deleted one included (a delete
 * leaves traces a redaction scrubs), until it is redacted.
 */
export const mayRedact = (m) => Boolean(m) && !m.redacted_at && isAdminSession();

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

/**
 * Order of two copies of one message: a redacted tombstone is final, a deleted one comes before it
 * (a deleted message may still be redacted), else the higher version is newer.
 */
const rank = (m) => (m.redacted_at ? Number.MAX_SAFE_INTEGER : m.deleted_at ? Number.MAX_SAFE_INTEGER - 1 : (m.version ?? 1));

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

/** What each confirmed change says and sends: a delete (sender or admin) and a redaction (admin only, #40 part 3). */
const CONFIRMS = {
  delete: {
    title: 'Delete this message?',
    text: 'Everyone will see "message deleted" in its place; its replies stay. This cannot be undone.',
    ok: 'Delete',
    done: 'message deleted',
    failed: 'not deleted',
    send: (m) => {
      const body = changer(m);
      return api(`/v1/messages/${enc(m.id)}`, { method: 'DELETE', ...(body.from ? { body } : {}) });
    },
  },
  redact: {
    title: 'Redact this message?',
    text:
      'Its content is removed from everything svc keeps: history, search, earlier versions, artifacts, reactions and events not yet delivered. ' +
      'Everyone will see "message redacted" in its place; its replies stay. This cannot be undone.',
    ok: 'Redact',
    done: 'message redacted',
    failed: 'not redacted',
    send: (m) => api(`/v1/messages/${enc(m.id)}/redact`, { method: 'POST' }),
  },
};

const dialogs = {};

/** The confirmation dialog of `kind` (built once); its test ids are `<kind>-dialog`, `-cancel`, `-confirm`, `-status`. */
function buildConfirm(kind) {
  if (dialogs[kind]) return dialogs[kind];
  const c = CONFIRMS[kind];
  const title = el('h2', {}, c.title);
  title.id = `${kind}-dialog-title`;
  const cancel = el('button', { type: 'button', testid: `${kind}-cancel` }, 'Cancel');
  const ok = el('button', { type: 'button', class: 'danger', testid: `${kind}-confirm` }, c.ok);
  const status = withAttrs(el('p', { class: 'muted', testid: `${kind}-status` }), { role: 'status' });
  const dialog = withAttrs(
    el(
      'dialog',
      { class: 'dialog', testid: `${kind}-dialog` },
      title,
      el('p', {}, c.text),
      status,
      el('div', { class: 'dialog-buttons' }, cancel, ok),
    ),
    { 'aria-labelledby': title.id },
  );
  cancel.addEventListener('click', () => dialog.close());
  document.body.append(dialog);
  dialogs[kind] = { dialog, ok, cancel, status };
  return dialogs[kind];
}

/** Asks before a change of `kind` to `m`; on OK sends it and shows the tombstone. Focus goes back to `opener` (a function giving the element). */
function confirmChange(kind, m, opener) {
  const c = CONFIRMS[kind];
  const d = buildConfirm(kind);
  d.status.textContent = '';
  d.ok.disabled = false;
  d.ok.onclick = async () => {
    d.ok.disabled = true;
    try {
      applyChange(await c.send(m));
      d.dialog.close();
      toast(c.done);
    } catch (err) {
      d.status.textContent = `${c.failed}: ${err.message}`;
      d.ok.disabled = false;
    }
  };
  d.dialog.onclose = () => opener?.()?.focus();
  d.dialog.showModal();
  // The safe choice has the focus: Enter or Space right after opening changes nothing.
  d.cancel.focus();
}

/** Asks before deleting `m`; on Delete sends it and shows the tombstone. */
export const confirmDelete = (m, opener) => confirmChange('delete', m, opener);

/** Asks before redacting `m` (an admin session); on Redact sends it and shows the tombstone. */
export const confirmRedact = (m, opener) => confirmChange('redact', m, opener);
