// Editing a message in place (#40): its text gives way to a text area (Enter saves, Shift+Enter is
// a new line, Escape cancels); the saved message comes back through applyChange, whose redraw
// replaces the editor. The Up arrow in an empty composer edits the person's last message.

import { withAttrs } from './attrs.js';
import { el } from './dom.js';
import { applyChange, hasText, mayChange, saveEdit } from './message-change.js';
import { isOwn } from './receipts.js';

const textOf = (m) =>
  (m.parts ?? [])
    .filter((p) => p?.kind === 'text')
    .map((p) => String(p.text ?? ''))
    .join('\n\n');

/** The item of message `id` inside `root`. */
const itemOf = (root, id) => root.querySelector(`li[data-testid=message][data-id="${CSS.escape(id)}"]`);

/**
 * Replaces the text of message `m` shown as `li` with an editor. `back()` gives the element that
 * takes the focus when the editor closes (the composer after an Up arrow, else the Edit action).
 */
export function startEdit(li, m, back) {
  const open = li.querySelector(':scope > .message-editor textarea');
  if (open) return open.focus();
  const shown = [...li.querySelectorAll(':scope > .part')];
  const text = withAttrs(el('textarea', { testid: 'edit-text' }), { rows: '3', maxlength: '20000', 'aria-label': 'Edit message' });
  text.value = textOf(m);
  const save = el('button', { type: 'submit', testid: 'edit-save' }, 'Save');
  const cancel = el('button', { type: 'button', testid: 'edit-cancel' }, 'Cancel');
  const status = withAttrs(el('span', { class: 'muted', testid: 'edit-status' }), { role: 'status' });
  const hint = el('small', { class: 'muted' }, 'Enter saves · Shift+Enter new line · Escape cancels');
  const form = el(
    'form',
    { class: 'message-editor', testid: 'message-editor' },
    text,
    el('div', { class: 'editor-tools' }, save, cancel, hint, status),
  );
  const close = () => {
    form.remove();
    for (const n of shown) n.hidden = false;
    back?.()?.focus();
  };
  const submit = async () => {
    const next = text.value;
    if (next === textOf(m)) return close();
    if (next.trim() === '') {
      status.textContent = 'A message cannot be empty: delete it instead.';
      return;
    }
    save.disabled = true;
    status.textContent = 'saving…';
    try {
      const edited = await saveEdit(m, next);
      // The redraw drops the editor; the focus goes where the person came from.
      applyChange(edited);
      back?.()?.focus();
    } catch (err) {
      status.textContent = `not saved: ${err.message}`;
      save.disabled = false;
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  cancel.addEventListener('click', close);
  text.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
  for (const n of shown) n.hidden = true;
  const anchor = li.querySelector(':scope > .actions');
  if (anchor) anchor.after(form);
  else li.append(form);
  text.focus();
  text.setSelectionRange(text.value.length, text.value.length);
}

/**
 * The Up arrow in an empty composer: edits the person's newest message of `messages` (oldest
 * first) shown in `root`. Returns whether there was one.
 */
export function editLast(root, messages, composer) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isOwn(m) || m.deleted_at) continue;
    const li = itemOf(root, m.id);
    if (!li || !mayChange(m) || !hasText(m)) return false;
    li.scrollIntoView({ block: 'nearest' });
    startEdit(li, m, () => composer);
    return true;
  }
  return false;
}
