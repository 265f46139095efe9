// Views of wire objects as DOM nodes, built with el() (text only) and renderMarkdown (DOM from
// tokens, never HTML).

import { withAttrs } from './attrs.js';
import { formatSize, PREVIEW_TYPES } from './attachments.js';
import { copyText } from './clipboard.js';
import { dmHref } from './dm-link.js';
import { el } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { actionsNode, permalink } from './message-actions.js';
import { editedMark } from './message-versions.js';
import { reactionsNode } from './reactions.js';
import { state } from './state.js';
import { timeNode } from './times.js';

/** The conversation key of a target, as the store names it. */
export function convKey(target) {
  if (!target) return '';
  if (target.kind === 'thread') return `thread:${target.thread_id}`;
  if (target.kind === 'dm') return `dm:${target.dm_id}`;
  return `room:${target.room_id}`;
}

export function formatTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const sameDay = d.toDateString() === new Date().toDateString();
  return sameDay ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : d.toLocaleString();
}

function partNode(part, mentions) {
  switch (part?.kind) {
    case 'text':
      return withCopyButtons(renderMarkdown(el('div', { class: 'part text', testid: 'message-text' }), String(part.text ?? ''), mentions));
    case 'url':
      return el('div', { class: 'part url' }, el('a', { href: part.url, external: true }, part.url ?? ''));
    case 'data':
      return el('pre', { class: 'part data' }, safeJson(part.data));
    case 'file':
      if (part.file_id) return fileNode(part);
      break;
  }
  return otherNode(part);
}

/** A part this console has no view of: its kind, name, type and link. */
function otherNode(part) {
  return el(
    'div',
    { class: 'part attachment' },
    el('span', { class: 'badge' }, String(part?.kind ?? 'part')),
    ' ',
    part?.filename ?? '',
    part?.media_type ? ` (${part.media_type})` : '',
    part?.url ? [' ', el('a', { href: part.url, external: true }, part.url)] : null,
  );
}

/**
 * A file part: a download link with its name and size, and for an image of a type the server
 * serves inline, the image itself (scaled down by CSS: the browser makes the thumbnail).
 */
function fileNode(part) {
  const href = `/v1/files/${encodeURIComponent(part.file_id)}`;
  const link = withAttrs(el('a', { href, class: 'file-link', testid: 'file-link' }, String(part.name ?? part.file_id)), {
    download: String(part.name ?? ''),
  });
  const image = PREVIEW_TYPES.has(part.content_type)
    ? el(
        'a',
        { href, external: true, class: 'file-preview' },
        withAttrs(el('img', { testid: 'file-preview' }), { src: href, alt: String(part.name ?? ''), loading: 'lazy' }),
      )
    : null;
  return el(
    'div',
    { class: 'part file', testid: 'file-part', data: { fileId: part.file_id } },
    image,
    el(
      'div',
      {},
      el('span', { class: 'badge' }, 'file'),
      ' ',
      link,
      el('span', { class: 'muted', testid: 'file-size' }, ` ${formatSize(part.size)}`),
    ),
  );
}

/** Puts a copy button on each code block of a rendered text (outside the <pre>, so the text stays the code). */
function withCopyButtons(node) {
  for (const pre of node.querySelectorAll('pre')) {
    const wrap = el('div', { class: 'code-block' });
    pre.replaceWith(wrap);
    const copy = el(
      'button',
      {
        type: 'button',
        class: 'code-copy',
        testid: 'code-copy',
        title: 'Copy code',
        onclick: () => copyText(pre.textContent ?? '', 'code copied'),
      },
      'Copy',
    );
    wrap.append(withAttrs(copy, { 'aria-label': 'Copy code' }), pre);
  }
  return node;
}

function safeJson(v) {
  try {
    return JSON.stringify(v, null, 2) ?? '';
  } catch {
    return '';
  }
}

/** The sender as people know it: a local agent's registered name, else the name it sent, else its id. */
export function displayName(from, localNetwork) {
  const local = !from.network_id || from.network_id === localNetwork;
  const agent = from.type === 'agent' && local ? state.agents.get(from.id) : undefined;
  return agent?.name || from.name || from.id || '?';
}

/** The sender's name; for another local agent or person, a link that starts a DM with them. */
function senderNode(from, localNetwork) {
  const name = el('span', { class: 'from', testid: 'message-from' }, displayName(from, localNetwork));
  const local = !from.network_id || from.network_id === localNetwork;
  const self = from.type === 'human' && from.id === state.session?.human?.id;
  const href = local && !self && from.id ? dmHref(from.id) : undefined;
  return href ? el('a', { href, class: 'from-link', title: `Message ${from.id} directly` }, name) : name;
}

/** Who sent `from`, as a key for grouping consecutive messages. */
function senderKey(from) {
  return `${from.type ?? ''}:${from.network_id ?? ''}:${from.id ?? ''}:${from.name ?? ''}`;
}

/**
 * One message. `opts.localNetwork` hides the home network of local senders; `opts.replies` adds a
 * thread link (its href from `opts.threadHref`, else the thread's own view); `opts.inPanel` marks
 * a message shown in the thread panel.
 */
export function messageNode(m, opts = {}) {
  const from = m.from ?? {};
  const remote = from.network_id && from.network_id !== opts.localNetwork ? `@${from.network_id}` : '';
  const replies = opts.replies;
  // A deleted or redacted message keeps its place (and its thread's replies) as a tombstone without content.
  const gone = Boolean(m.deleted_at);
  return el(
    'li',
    {
      class: `message from-${from.type === 'human' ? 'human' : 'agent'}${gone ? ' tombstone' : ''}`,
      testid: 'message',
      data: { id: m.id, at: m.created_at ?? '', sender: senderKey(from) },
    },
    el(
      'div',
      { class: 'meta' },
      senderNode(from, opts.localNetwork),
      ' ',
      el('span', { class: 'muted sender-id' }, `${from.type ?? ''} ${from.id ?? ''}${remote}`),
      m.origin ? el('span', { class: 'badge', title: `relayed from ${m.origin.network_id}` }, 'relayed') : null,
      ' ',
      el('a', { class: 'permalink', href: permalink(m), testid: 'permalink' }, timeNode(m.created_at)),
    ),
    actionsNode(m, opts),
    gone ? el('p', { class: 'part deleted muted', testid: 'tombstone' }, m.redacted_at ? 'message redacted' : 'message deleted') : null,
    ...(!gone && Array.isArray(m.parts) ? m.parts.map((p) => partNode(p, m.mentions)) : []),
    // After the text, not in the meta line: a grouped message hides its meta line.
    m.edited_at && !gone ? editedMark(m) : null,
    replies
      ? el(
          'a',
          { class: 'replies', testid: 'replies', href: opts.threadHref ?? `#/thread/${encodeURIComponent(replies.id)}` },
          `${replies.message_count} ${replies.message_count === 1 ? 'reply' : 'replies'}`,
          replies.last_message_at ? el('span', { class: 'muted' }, ' · last ', timeNode(replies.last_message_at)) : null,
        )
      : null,
    gone ? null : reactionsNode(m),
  );
}

export function artifactNode(a) {
  return el(
    'li',
    { class: 'artifact', testid: 'artifact', data: { id: a.id } },
    el('span', { class: 'badge' }, a.kind),
    ' ',
    a.filename ?? (a.url ? '' : a.id),
    a.media_type ? el('span', { class: 'muted' }, ` ${a.media_type}`) : null,
    a.url ? el('div', {}, el('a', { href: a.url, external: true }, a.url)) : null,
  );
}

export function warningNode(w) {
  return el(
    'li',
    { class: `warning ${['info', 'warning', 'error'].includes(w.severity) ? w.severity : 'warning'}`, testid: 'warning' },
    el('strong', {}, w.code ?? 'warning'),
    ': ',
    w.message ?? '',
    w.action ? el('div', { class: 'muted' }, w.action) : null,
    // A relative docs_url names a file of the svc docs, not a page this server serves: shown as text.
    w.docs_url
      ? /^https?:\/\//.test(w.docs_url)
        ? el('a', { href: w.docs_url, external: true }, 'docs')
        : el('div', { class: 'muted' }, `see ${w.docs_url}`)
      : null,
  );
}
