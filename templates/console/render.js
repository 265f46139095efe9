// Views of wire objects as DOM nodes, built with el() (text only) and renderMarkdown (DOM from
// tokens, never HTML).

import { el } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { reactionsNode } from './reactions.js';
import { state } from './state.js';

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
      return renderMarkdown(el('div', { class: 'part text', testid: 'message-text' }), String(part.text ?? ''), mentions);
    case 'url':
      return el('div', { class: 'part url' }, el('a', { href: part.url, external: true }, part.url ?? ''));
    case 'data':
      return el('pre', { class: 'part data' }, safeJson(part.data));
    default:
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

/** One message. `opts.localNetwork` hides the home network of local senders; `opts.replies` adds a thread link. */
export function messageNode(m, opts = {}) {
  const from = m.from ?? {};
  const remote = from.network_id && from.network_id !== opts.localNetwork ? `@${from.network_id}` : '';
  return el(
    'li',
    { class: `message from-${from.type === 'human' ? 'human' : 'agent'}`, testid: 'message', data: { id: m.id } },
    el(
      'div',
      { class: 'meta' },
      el('span', { class: 'from', testid: 'message-from' }, displayName(from, opts.localNetwork)),
      ' ',
      el('span', { class: 'muted' }, `${from.type ?? ''} ${from.id ?? ''}${remote}`),
      m.origin ? el('span', { class: 'badge', title: `relayed from ${m.origin.network_id}` }, 'relayed') : null,
      ' ',
      el('time', { datetime: m.created_at, title: m.created_at }, formatTime(m.created_at)),
    ),
    ...(Array.isArray(m.parts) ? m.parts.map((p) => partNode(p, m.mentions)) : []),
    opts.replies
      ? el(
          'a',
          { class: 'replies', href: `#/thread/${encodeURIComponent(opts.replies.id)}` },
          `${opts.replies.message_count} in thread ${opts.replies.id}`,
        )
      : null,
    reactionsNode(m),
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
