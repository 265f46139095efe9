// The "(edited)" mark of a message and the dialog it opens (#40): the earlier versions from
// GET /v1/messages/{id}/versions, oldest first, each with its time, then the current text.

import { api } from './api.js';
import { withAttrs } from './attrs.js';
import { clear, el } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { timeNode } from './times.js';

let nodes;

function build() {
  if (nodes) return nodes;
  const title = el('h2', {}, 'Edit history');
  title.id = 'versions-title';
  const list = withAttrs(el('ol', { class: 'versions', testid: 'versions-list' }), { 'aria-labelledby': title.id });
  const status = withAttrs(el('p', { class: 'muted', testid: 'versions-status' }), { role: 'status' });
  const dialog = withAttrs(
    el(
      'dialog',
      { class: 'dialog wide', testid: 'versions-dialog' },
      title,
      status,
      list,
      el('form', { class: 'dialog-buttons' }, el('button', { type: 'submit', testid: 'versions-close' }, 'Close')),
    ),
    { 'aria-labelledby': title.id },
  );
  dialog.querySelector('form').setAttribute('method', 'dialog');
  document.body.append(dialog);
  nodes = { dialog, list, status };
  return nodes;
}

function versionNode(label, v) {
  const body = el('div', { class: 'part text' });
  const text = (v.parts ?? [])
    .filter((p) => p?.kind === 'text')
    .map((p) => String(p.text ?? ''))
    .join('\n\n');
  renderMarkdown(body, text, v.mentions ?? []);
  const others = (v.parts ?? []).filter((p) => p?.kind !== 'text').length;
  return el(
    'li',
    { class: 'version', testid: 'version', data: { version: v.version } },
    el('div', { class: 'meta' }, el('strong', {}, label), ' · ', timeNode(v.created_at)),
    body,
    others ? el('div', { class: 'muted' }, `and ${others} other ${others === 1 ? 'part' : 'parts'}`) : null,
  );
}

/** Opens the versions of message `m`; the focus goes back to `opener` when it closes. */
export async function showVersions(m, opener) {
  const n = build();
  clear(n.list);
  n.status.textContent = 'loading…';
  n.dialog.onclose = () => {
    if (opener?.isConnected) opener.focus();
  };
  n.dialog.showModal();
  try {
    const r = await api(`/v1/messages/${encodeURIComponent(m.id)}/versions`);
    n.status.textContent = `${r.items.length} earlier ${r.items.length === 1 ? 'version' : 'versions'}; this message is at version ${r.version}.`;
    for (const v of r.items) n.list.append(versionNode(`Version ${v.version}`, v));
    n.list.append(versionNode(`Version ${r.version} (current)`, { ...m, version: r.version, created_at: m.edited_at ?? m.created_at }));
  } catch (err) {
    n.status.textContent = `cannot load the versions: ${err.message}`;
  }
}

/** The "(edited)" mark of an edited message: a button that opens its versions. */
export function editedMark(m) {
  const b = el('button', { type: 'button', class: 'edited-mark', testid: 'edited-mark', title: 'Show the earlier versions' }, '(edited)');
  b.addEventListener('click', () => showVersions(m, b));
  return withAttrs(b, { 'aria-haspopup': 'dialog' });
}
