// DOM building with text only: strings always become text nodes, never HTML. Nothing in the
// console assigns innerHTML, so message content cannot inject markup or script.

/**
 * Creates an element. `props`: class, testid, title, data (dataset), hidden, type, href (checked).
 * Children: nodes, strings (text), or null/false (skipped).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.testid) node.setAttribute('data-testid', props.testid);
  if (props.title) node.title = props.title;
  if (props.type) node.setAttribute('type', props.type);
  if (props.hidden) node.hidden = true;
  if (props.datetime) node.setAttribute('datetime', props.datetime);
  if (props.data) for (const [k, v] of Object.entries(props.data)) node.dataset[k] = String(v);
  if (props.href !== undefined) {
    const href = safeHref(props.href);
    if (href) {
      node.setAttribute('href', href);
      if (props.external) {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      }
    }
  }
  if (props.onclick) node.addEventListener('click', props.onclick);
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Removes every child. */
export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
}

/** An href only for http(s) URLs and same-origin paths/fragments; anything else (javascript:, data:) is dropped. */
export function safeHref(value) {
  if (typeof value !== 'string' || value === '') return undefined;
  if (value.startsWith('#')) return value;
  try {
    const u = new URL(value, location.origin);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.href;
  } catch {
    // not a URL: render as text only
  }
  return undefined;
}

/** Shows a short message in the toast area for a while. */
export function toast(text) {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), 6000);
}

/** Runs `prepend` (which adds content above what is shown) and keeps what was on screen in place. */
export function keepingPlace(scroller, prepend) {
  const fromBottom = scroller.scrollHeight - scroller.scrollTop;
  prepend();
  scroller.scrollTop = scroller.scrollHeight - fromBottom;
}

/**
 * Gives the focus back to a composer's text box after its send ended, unless the person moved it
 * meanwhile (to an editor opened on another message, say): taking it from there would lose what
 * they type. `button` is the composer's Send, where a click leaves the focus.
 */
export function refocusComposer(box, button) {
  const at = document.activeElement;
  if (!at || at === document.body || at === box || at === button) box.focus();
}
