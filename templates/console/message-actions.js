// The hover actions of a message (shown on hover and keyboard focus): reply in thread, copy link,
// react, receipts on one's own messages, edit and delete where the session may change it, redact
// for an admin session; and the permalink of a message.

import { copyText } from './clipboard.js';
import { withAttrs } from './attrs.js';
import { el } from './dom.js';
import { confirmDelete, confirmRedact, hasText, mayChange, mayRedact } from './message-change.js';
import { startEdit } from './message-editor.js';
import { isOwn, showReceipts } from './receipts.js';
import { state } from './state.js';

const enc = encodeURIComponent;

/**
 * The console address that opens the conversation of `m` at `m` (#/<kind>/<id>/m/<message id>); a
 * thread reply's opens its room with the thread in the side panel (#/room/<r>/t/<t>/m/<message id>).
 */
export function permalink(m) {
  const t = m?.target ?? {};
  const conv =
    t.kind === 'thread'
      ? t.room_id
        ? `room/${enc(t.room_id)}/t/${enc(t.thread_id)}`
        : `thread/${enc(t.thread_id)}`
      : t.kind === 'dm'
        ? `dm/${enc(t.dm_id)}`
        : `room/${enc(t.room_id ?? '')}`;
  return `#/${conv}/m/${enc(m.id)}`;
}

/** The address that opens the thread panel of room message `m` (its thread, or a new one). */
export function replyHref(m) {
  return `#/room/${enc(m.target.room_id)}/reply/${enc(m.id)}`;
}

const mayWrite = () => Boolean(state.session?.human && state.network?.console?.can_send_human);

function button(label, testid, onclick, text) {
  return withAttrs(el('button', { type: 'button', class: 'action', testid, title: label, onclick }, text), { 'aria-label': label });
}

/** A button that opens a confirm dialog for `m`; focus goes back to the button found again. */
function confirming(m, label, testid, confirm, text) {
  return button(
    label,
    testid,
    (e) => {
      const li = e.currentTarget.closest('li');
      confirm(m, li ? refind(li, m.id, testid) : undefined);
    },
    text,
  );
}

/**
 * The same control of message `id` in the view `li` is in, found again when asked: a change redraws
 * the message, so the button that was pressed may be gone (then the message's permalink).
 */
function refind(li, id, testid) {
  const root = li.closest('ol') ?? document;
  return () => {
    const now = root.querySelector(`li[data-testid=message][data-id="${CSS.escape(id)}"]`);
    return now?.querySelector(`[data-testid=${testid}]`) ?? now?.querySelector('[data-testid=permalink]');
  };
}

/**
 * The action bar of message `m`; `opts.inPanel` drops "reply in thread" (already in one). A
 * tombstone keeps its link, and Redact for an admin while it is only deleted.
 */
export function actionsNode(m, opts = {}) {
  const roomMessage = m.target?.kind === 'room';
  const gone = Boolean(m.deleted_at);
  const changeable = mayChange(m);
  const bar = el(
    'div',
    { class: 'actions', testid: 'message-actions' },
    roomMessage && !opts.inPanel && !gone
      ? button('Reply in thread', 'action-reply', () => location.assign(replyHref(m)), '↳ Reply in thread')
      : null,
    button('Copy link', 'action-copy-link', () => copyText(new URL(permalink(m), location.href).href, 'link copied'), 'Copy link'),
    mayWrite() && m.target?.kind !== 'dm' && !gone
      ? button('React', 'action-react', (e) => e.currentTarget.closest('li')?.querySelector('[data-testid=reaction-add]')?.click(), 'React')
      : null,
    isOwn(m) && !gone ? button('Receipts', 'action-receipts', () => showReceipts([m]), 'Receipts') : null,
    changeable && hasText(m)
      ? button(
          'Edit message',
          'action-edit',
          (e) => {
            const li = e.currentTarget.closest('li');
            if (li) startEdit(li, m, refind(li, m.id, 'action-edit'));
          },
          'Edit',
        )
      : null,
    changeable ? confirming(m, 'Delete message', 'action-delete', confirmDelete, 'Delete') : null,
    mayRedact(m) ? confirming(m, 'Redact message', 'action-redact', confirmRedact, 'Redact') : null,
  );
  return withAttrs(bar, { role: 'toolbar', 'aria-label': 'message actions' });
}
