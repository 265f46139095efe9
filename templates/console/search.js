// The search box: results of GET /v1/search in place of the conversation, newest first, with the
// matching words marked; picking one opens its conversation, pages back to the message and shows
// it. Everything is built with el() (text nodes), like the rest of the console.

import { api, qs } from './api.js';
import { clear, el, toast } from './dom.js';
import { formatTime } from './render.js';
import { loadOlder, open } from './conversation.js';
import { dmLabel } from './sidebar.js';
import { $, state } from './state.js';
import { permalink } from './message-actions.js';

const LIMIT = 20;
/** Pages of history read back at most to reach a result (50 messages each). */
const MAX_PAGES = 40;

const search = { q: '', nextBefore: undefined, epoch: 0 };

export function bindSearch() {
  $('search').addEventListener('submit', (e) => {
    e.preventDefault();
    run($('search-q').value.trim());
  });
  $('search-more').addEventListener('click', () => more());
  $('search-close').addEventListener('click', () => hide());
  // Picking a conversation in the sidebar leaves the results.
  document.querySelector('nav.side').addEventListener('click', (e) => {
    if (e.target.closest('a')) hide();
  });
}

async function run(q) {
  if (!q) return;
  const epoch = ++search.epoch;
  search.q = q;
  search.nextBefore = undefined;
  show();
  $('search-title').textContent = `Searching for “${q}”…`;
  clear($('search-list'));
  $('search-more').hidden = true;
  try {
    const r = await api(`/v1/search${qs({ q, limit: LIMIT })}`);
    if (epoch !== search.epoch) return;
    $('search-title').textContent = r.messages.length === 0 ? `No messages match “${q}”` : `Messages matching “${q}”`;
    addResults(r);
  } catch (err) {
    if (epoch === search.epoch) $('search-title').textContent = `Search failed: ${err.message}`;
  }
}

async function more() {
  if (!search.nextBefore) return;
  const epoch = search.epoch;
  const btn = $('search-more');
  btn.disabled = true;
  try {
    const r = await api(`/v1/search${qs({ q: search.q, limit: LIMIT, before: search.nextBefore })}`);
    if (epoch === search.epoch) addResults(r);
  } catch (err) {
    toast(`cannot load more results: ${err.message}`);
  } finally {
    btn.disabled = false;
  }
}

function addResults(r) {
  $('search-list').append(...r.messages.map(resultNode));
  search.nextBefore = r.page?.has_more ? r.page.next_before : undefined;
  $('search-more').hidden = !search.nextBefore;
}

/** Where a message was said, as the sidebar names it. */
function placeOf(t) {
  if (t.kind === 'dm') {
    const dm = state.dms.get(t.dm_id);
    return `DM: ${dm ? dmLabel(dm) : t.dm_id}`;
  }
  const room = `#${state.rooms.get(t.room_id)?.name ?? t.room_id}`;
  return t.kind === 'thread' ? `thread ${t.thread_id} in ${room}` : room;
}

/** The snippet's text with each `**word**` as a <mark>. */
function snippetNodes(snippet) {
  return String(snippet ?? '')
    .split('**')
    .map((piece, i) => (i % 2 === 1 ? el('mark', {}, piece) : piece));
}

function resultNode(m) {
  const from = m.from ?? {};
  return el(
    'li',
    { class: 'result', testid: 'search-result', data: { id: m.id } },
    el(
      'button',
      { type: 'button', class: 'result-open', testid: 'search-open', onclick: () => openAt(m) },
      el(
        'div',
        { class: 'meta' },
        el('span', { class: 'from' }, from.name || from.id || '?'),
        ' · ',
        el('span', { testid: 'search-place' }, placeOf(m.target)),
        ' · ',
        el('time', { datetime: m.created_at }, formatTime(m.created_at)),
      ),
      el('div', { class: 'snippet', testid: 'search-snippet' }, ...snippetNodes(m.snippet)),
    ),
  );
}

function show() {
  $('search-results').hidden = false;
  $('conversation').hidden = true;
  $('empty').hidden = true;
}

function hide() {
  search.epoch++;
  $('search-results').hidden = true;
  if (state.current) $('conversation').hidden = false;
  else $('empty').hidden = false;
}

/** Opens the conversation of a result and brings the message into view, marked. */
async function openAt(m) {
  const t = m.target;
  const kind = t.kind;
  const id = kind === 'room' ? t.room_id : kind === 'thread' ? t.thread_id : t.dm_id;
  hide();
  // A thread reply opens by its permalink: the thread in the panel beside its room, at the reply.
  if (kind === 'thread' && t.room_id) return location.assign(permalink(m));
  // pushState changes the address without a hashchange: the route would open it a second time.
  const hash = `#/${kind}/${encodeURIComponent(id)}`;
  if (location.hash !== hash) history.pushState(null, '', hash);
  await open(kind, id);
  const epoch = state.epoch;
  for (let pages = 0; !state.seen.has(m.id) && state.hasMore && pages < MAX_PAGES && epoch === state.epoch; pages++) await loadOlder();
  if (epoch !== state.epoch) return;
  const node = [...document.querySelectorAll('[data-testid=messages] [data-testid=message]')].find((n) => n.dataset.id === m.id);
  if (!node) {
    toast('that message is too far back in its conversation to show here');
    return;
  }
  for (const old of document.querySelectorAll('.message.found')) old.classList.remove('found');
  node.classList.add('found');
  node.scrollIntoView({ block: 'center' });
}
