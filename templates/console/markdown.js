// Message text as Markdown. markdown-it (served as /console/markdown-it.min.js, a classic script
// that defines globalThis.markdownit) parses with raw HTML off; its tokens then become DOM nodes
// through allow-lists of tags and attributes. Nothing is parsed as HTML (no innerHTML), so even a
// renderer bug could not turn message text into markup or script.

import { safeHref } from './dom.js';

const md = createParser();

function createParser() {
  const factory = globalThis.markdownit;
  if (typeof factory !== 'function') return null;
  // breaks: a chat message's single newline is a line break, as people and agents mean it.
  const p = factory({ html: false, linkify: true, breaks: true, typographer: false });
  // Bare names like main.py or notes.md end in country-code TLDs; only scheme links and emails are links.
  p.linkify.set({ fuzzyLink: false });
  p.validateLink = isAllowedLink;
  return p;
}

/** Links that may render: absolute http(s) and mailto only (no javascript:, data:, relative paths). */
export function isAllowedLink(url) {
  return /^(https?:\/\/|mailto:)/i.test(String(url).trim());
}

const BLOCK = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'ul',
  'ol',
  'li',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'pre',
  'hr',
]);
const INLINE = new Set(['em', 'strong', 's', 'code', 'br']);

/**
 * Longer texts show as plain text (mentions still highlighted): markdown-it takes seconds on a
 * crafted 1 MiB text (and ~0.2 s at 32 KiB), and one message must not freeze every open console.
 */
export const MARKDOWN_MAX_CHARS = 32 * 1024;

/** Highlighted mentions per text; later ones stay plain (a text of 100,000 mentions is an attack). */
export const MAX_MENTION_SPANS = 100;

/**
 * Renders `text` into `container` as Markdown. `mentions` are the message's mention FQIDs; their
 * `@id`, `@network:id` and `<@svc://…>` forms in plain text become highlighted spans.
 */
export function renderMarkdown(container, text, mentions = []) {
  const ctx = { mentions: mentionIndex(mentions), inLink: 0, spans: 0 };
  if (!md || text.length > MARKDOWN_MAX_CHARS) {
    appendText(container, text, ctx);
    return container;
  }
  container.classList.add('md');
  build(md.parse(text, {}), container, ctx);
  return container;
}

function build(tokens, root, ctx) {
  const stack = [root];
  for (const t of tokens) {
    const top = stack[stack.length - 1];
    if (t.nesting === 1) {
      // Tight lists mark their paragraphs hidden: the item holds the inline content directly.
      const node = t.hidden ? top : openNode(t, ctx);
      if (node !== top) top.append(node);
      stack.push(node);
    } else if (t.nesting === -1) {
      if (t.type === 'link_close') ctx.inLink--;
      if (stack.length > 1) stack.pop();
    } else {
      leaf(t, top, ctx);
    }
  }
}

function openNode(t, ctx) {
  if (t.type === 'link_open') {
    ctx.inLink++;
    const href = linkHref(t.attrGet('href'));
    if (!href) return document.createElement('span');
    const a = document.createElement('a');
    a.setAttribute('href', href);
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer');
    return a;
  }
  const tag = BLOCK.has(t.tag) || INLINE.has(t.tag) ? t.tag : 'span';
  const node = document.createElement(tag);
  if (tag === 'ol' && t.attrGet('start') !== null) {
    const start = Number(t.attrGet('start'));
    if (Number.isInteger(start) && start >= 0 && start < 1e9) node.start = start;
  }
  if (tag === 'th' || tag === 'td') {
    // markdown-it writes alignment as an inline style, which the CSP forbids: a class instead.
    const m = /text-align:(left|center|right)/.exec(t.attrGet('style') ?? '');
    if (m) node.className = `align-${m[1]}`;
  }
  return node;
}

function leaf(t, parent, ctx) {
  switch (t.type) {
    case 'inline':
      build(t.children ?? [], parent, ctx);
      return;
    case 'text':
      appendText(parent, t.content, ctx);
      return;
    case 'code_inline':
      parent.append(elText('code', t.content));
      return;
    case 'fence':
    case 'code_block': {
      const pre = document.createElement('pre');
      const code = elText('code', t.content.replace(/\n$/, ''));
      const lang = /^[A-Za-z0-9_+#.-]{1,32}/.exec((t.info ?? '').trim())?.[0];
      if (lang) code.className = `language-${lang}`;
      pre.append(code);
      parent.append(pre);
      return;
    }
    case 'softbreak':
    case 'hardbreak':
      parent.append(document.createElement('br'));
      return;
    case 'hr':
      parent.append(document.createElement('hr'));
      return;
    case 'image':
      parent.append(imageLink(t, ctx.inLink > 0));
      return;
    default:
      // html_inline/html_block never appear with html off; anything unknown shows as its text.
      if (t.content) parent.append(document.createTextNode(t.content));
  }
}

/** An image never loads (no request leaves the browser for it): it becomes a link to open by choice. */
function imageLink(t, insideLink) {
  const alt = t.content || (t.children ?? []).map((c) => c.content).join('') || 'image';
  // Inside a link the outer link is what a click opens; a nested anchor would be invalid.
  const href = insideLink ? undefined : linkHref(t.attrGet('src'));
  const node = document.createElement(href ? 'a' : 'span');
  node.className = 'image-link';
  node.setAttribute('data-testid', 'image-link');
  if (href) {
    node.setAttribute('href', href);
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  node.append(document.createTextNode(`image: ${alt}`));
  return node;
}

function linkHref(raw) {
  if (typeof raw !== 'string' || !isAllowedLink(raw)) return undefined;
  if (/^mailto:/i.test(raw.trim())) return raw.trim();
  const href = safeHref(raw);
  return href && /^https?:/i.test(href) ? href : undefined;
}

function elText(tag, text) {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
}

// ---------- mentions ----------

/** FQIDs `svc://net/agents/id` -> { ids: id -> fqid, scoped: "net:id" -> fqid, fqids }. */
function mentionIndex(mentions) {
  const ids = new Map();
  const scoped = new Map();
  const fqids = new Set();
  for (const f of Array.isArray(mentions) ? mentions : []) {
    const m = /^svc:\/\/([^/]+)\/agents\/([^/]+)$/.exec(String(f));
    if (!m) continue;
    fqids.add(f);
    if (!ids.has(m[2])) ids.set(m[2], f);
    scoped.set(`${m[1]}:${m[2]}`, f);
  }
  return { ids, scoped, fqids };
}

const isIdChar = (c) => /[A-Za-z0-9._-]/.test(c);
const isIdStart = (c) => /[A-Za-z0-9]/.test(c);
const BEFORE_MENTION = /[A-Za-z0-9._%+\-@]/;

/** Appends text, with mentions as spans. One left-to-right pass: linear in the text, no backtracking. */
function appendText(parent, text, ctx) {
  const { ids, scoped, fqids } = ctx.mentions;
  if (ctx.inLink > 0 || fqids.size === 0 || ctx.spans >= MAX_MENTION_SPANS || !text.includes('@')) {
    parent.append(document.createTextNode(text));
    return;
  }
  let plainFrom = 0;
  let i = 0;
  const emit = (at, end, fqid) => {
    ctx.spans++;
    if (at > plainFrom) parent.append(document.createTextNode(text.slice(plainFrom, at)));
    const span = elText('span', text.slice(at, end));
    span.className = 'mention';
    span.setAttribute('data-testid', 'mention');
    span.title = fqid;
    parent.append(span);
    plainFrom = end;
  };
  // The next '>' after i, found once and reused until passed: many unclosed "<@svc://" stay linear.
  let close = -2;
  while (ctx.spans < MAX_MENTION_SPANS && (i = text.indexOf('@', i)) !== -1) {
    if (text[i - 1] === '<' && text.startsWith('svc://', i + 1)) {
      if (close !== -1 && close < i) close = text.indexOf('>', i);
      if (close !== -1 && close - i < 300) {
        const f = text.slice(i + 1, close);
        if (fqids.has(f) && i - 1 >= plainFrom) {
          emit(i - 1, close + 1, f);
          i = close + 1;
          continue;
        }
      }
      i++;
      continue;
    }
    if (i > 0 && BEFORE_MENTION.test(text[i - 1])) {
      i++;
      continue;
    }
    let j = i + 1;
    if (j >= text.length || !isIdStart(text[j])) {
      i = j;
      continue;
    }
    while (j < text.length && isIdChar(text[j])) j++;
    let end = j;
    let fqid;
    if (text[j] === ':' && j + 1 < text.length && isIdStart(text[j + 1])) {
      let k = j + 1;
      while (k < text.length && isIdChar(text[k])) k++;
      const scopedEnd = trimEnd(text, j + 2, k);
      fqid = scoped.get(`${text.slice(i + 1, j)}:${text.slice(j + 1, scopedEnd)}`);
      if (fqid) end = scopedEnd;
    }
    if (!fqid) {
      // "@alpha." at the end of a sentence names alpha, as the server reads it.
      const bare = trimEnd(text, i + 2, j);
      fqid = ids.get(text.slice(i + 1, bare));
      end = bare;
    }
    if (fqid) emit(i, end, fqid);
    i = Math.max(end, i + 1);
  }
  if (plainFrom < text.length) parent.append(document.createTextNode(text.slice(plainFrom)));
}

/** The end of `text[from-1..to)` without trailing `.`, `_` or `-` (keeping at least one char). */
function trimEnd(text, from, to) {
  let e = to;
  while (e > from && '._-'.includes(text[e - 1])) e--;
  return e;
}
