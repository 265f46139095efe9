// Composer helpers shared by the room composer and the thread panel's: mention autocomplete (a
// listbox under the text, arrows to move, Enter or Tab to pick, Escape to close), a Markdown preview
// with a line of formatting help, and Enter to send (Shift+Enter for a new line) where asked.

import { withAttrs } from './attrs.js';
import { clear, el } from './dom.js';
import { renderMarkdown } from './markdown.js';

const MAX_SHOWN = 8;
let serial = 0;

/** The mention being typed before `caret` in `text`: {start (index of @), query}, or undefined. */
export function mentionQuery(text, caret) {
  const m = /(^|[\s([{,;])@([A-Za-z0-9_.:-]{0,64})$/.exec(text.slice(0, caret));
  if (!m) return undefined;
  return { start: caret - m[2].length - 1, query: m[2] };
}

/** Candidates ({id, name?, kind}) matching `query`: id or name prefixes first, then substrings. */
export function matchCandidates(list, query) {
  const q = query.toLowerCase();
  const score = (c) => {
    const id = c.id.toLowerCase();
    const name = (c.name ?? '').toLowerCase();
    if (id.startsWith(q) || name.startsWith(q)) return 0;
    if (id.includes(q) || name.includes(q)) return 1;
    return 2;
  };
  return list
    .map((c) => ({ c, s: score(c) }))
    .filter((x) => x.s < 2)
    .sort((a, b) => a.s - b.s || a.c.id.localeCompare(b.c.id))
    .slice(0, MAX_SHOWN)
    .map((x) => x.c);
}

/**
 * Adds autocomplete and preview to a composer. `candidates()` lists who may be mentioned now;
 * `onSend`, when given, is called on Enter without Shift (the room composer binds its own).
 */
export function enhanceComposer({ form, textarea, candidates, onSend }) {
  const n = ++serial;
  const list = withAttrs(el('ul', { class: 'mention-list', testid: 'mention-list', hidden: true }), {
    id: `mention-list-${n}`,
    role: 'listbox',
    'aria-label': 'people and agents to mention',
  });
  withAttrs(textarea, { 'aria-autocomplete': 'list', 'aria-controls': list.id });
  form.classList.add('rich-composer');
  form.append(list);
  let shown = [];
  let active = 0;
  let query;

  const close = () => {
    list.hidden = true;
    shown = [];
    query = undefined;
    textarea.removeAttribute('aria-activedescendant');
  };
  const draw = () => {
    clear(list);
    shown.forEach((c, i) => {
      const opt = withAttrs(
        el(
          'li',
          { class: i === active ? 'active' : '', testid: 'mention-option', data: { id: c.id } },
          `@${c.id}`,
          c.name && c.name !== c.id ? el('span', { class: 'muted' }, ` ${c.name}`) : null,
          el('span', { class: 'muted kind' }, ` ${c.kind}`),
        ),
        { id: `${list.id}-${i}`, role: 'option', 'aria-selected': i === active ? 'true' : 'false' },
      );
      // mousedown, not click: the text area keeps its focus and caret.
      opt.addEventListener('mousedown', (e) => {
        e.preventDefault();
        pick(i);
      });
      list.append(opt);
    });
    list.hidden = shown.length === 0;
    if (shown.length) textarea.setAttribute('aria-activedescendant', `${list.id}-${active}`);
    else textarea.removeAttribute('aria-activedescendant');
  };
  const update = () => {
    query = mentionQuery(textarea.value, textarea.selectionStart ?? textarea.value.length);
    if (!query) return close();
    shown = matchCandidates(candidates(), query.query);
    active = 0;
    draw();
  };
  const pick = (i) => {
    const c = shown[i];
    if (!c || !query) return close();
    const caret = textarea.selectionStart ?? textarea.value.length;
    const before = textarea.value.slice(0, query.start);
    const after = textarea.value.slice(caret);
    const insert = `@${c.id} `;
    textarea.value = before + insert + after;
    const at = before.length + insert.length;
    textarea.setSelectionRange(at, at);
    close();
    textarea.focus();
  };

  textarea.addEventListener('input', update);
  textarea.addEventListener('click', update);
  textarea.addEventListener('blur', () => setTimeout(close, 150));
  // Capture on the form: these keys act on the list before the text area's own Enter-to-send.
  form.addEventListener(
    'keydown',
    (e) => {
      if (e.target !== textarea) return;
      if (!list.hidden && shown.length) {
        if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
          active = (active + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
          draw();
        } else if (e.key === 'Enter' || e.key === 'Tab') pick(active);
        else if (e.key === 'Escape') close();
        else return;
        e.preventDefault();
        e.stopPropagation();
        return;
      }
      if (onSend && e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        e.stopPropagation();
        onSend();
      }
    },
    true,
  );
  addPreview(form, textarea);
}

/** A "Preview" toggle that shows the text as it will render (redrawn on input: a sender clearing the text dispatches one), and a line of formatting help. */
function addPreview(form, textarea) {
  const preview = el('div', { class: 'composer-preview part text md', testid: 'composer-preview', hidden: true });
  const toggle = withAttrs(el('button', { type: 'button', class: 'preview-toggle', testid: 'preview-toggle' }, 'Preview'), {
    'aria-pressed': 'false',
  });
  const help = el(
    'small',
    { class: 'format-help muted', testid: 'format-help' },
    '**bold** · _italic_ · `code` · ```block``` · [link](https://…) · @name mentions · Shift+Enter new line',
  );
  const draw = () => {
    clear(preview);
    renderMarkdown(preview, textarea.value || 'Nothing to preview', []);
  };
  toggle.addEventListener('click', () => {
    const on = preview.hidden;
    preview.hidden = !on;
    toggle.setAttribute('aria-pressed', String(on));
    if (on) draw();
  });
  textarea.addEventListener('input', () => {
    if (!preview.hidden) draw();
  });
  form.append(el('div', { class: 'composer-tools' }, toggle, help), preview);
}
