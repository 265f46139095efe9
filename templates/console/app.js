// The console: a read view of the network (rooms, threads, DMs, agents, history, artifacts) kept
// current by the SSE feed, and a composer that sends as a human when the session may.

import { api, ApiError } from './api.js';
import { clear, toast } from './dom.js';
import { follow } from './live.js';
import { warningNode } from './render.js';
import { editLastMessage, loadOlder, route, send } from './conversation.js';
import { onEvent, onLiveState, setLive } from './events.js';
import { loadAgents, loadDms, loadPresence, loadRooms } from './sidebar.js';
import { $, state } from './state.js';
import { bindSearch } from './search.js';
import { bindAdmin, renderAdmin } from './admin.js';
import { bindDelivery } from './delivery.js';
import { bindLayout, renderVisitor } from './layout.js';
import { loadUnread, resetLine } from './unread.js';

async function boot() {
  bindLayout();
  bindUi();
  bindSearch();
  bindAdmin();
  bindDelivery();
  try {
    [state.network, state.session] = await Promise.all([api('/v1/network'), api('/console/api/session')]);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      location.replace('/console/');
      return;
    }
    toast(`cannot load the network: ${err.message}`);
    return;
  }
  renderHeader();
  await Promise.all([loadRooms(), loadAgents(), loadPresence(), loadDms()]);
  await loadUnread();
  refreshWarnings();
  // Each (re)connection reads the counts again: messages stored before the stream began count too.
  const onLive = (s, wasDown) => {
    onLiveState(s, wasDown);
    if (s === 'live') loadUnread();
  };
  if (state.network.capabilities?.event_stream === 'sse') follow(onEvent, onLive);
  else setLive('off', 'no live feed');
  window.addEventListener('hashchange', route);
  window.addEventListener('hashchange', () => {
    resetLine();
    renderAdmin();
  });
  route();
  renderAdmin();
}

function bindUi() {
  $('load-older').addEventListener('click', loadOlder);
  $('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    send();
  });
  $('composer-text').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === 'ArrowUp' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && e.target.value === '') {
      if (editLastMessage()) e.preventDefault();
    }
  });
  $('composer-name').addEventListener('change', () => {
    try {
      localStorage.setItem('svc.console.name', $('composer-name').value.trim());
    } catch {
      // storage off: the name lasts for this page only
    }
  });
  $('sign-out').addEventListener('click', async () => {
    try {
      await api('/console/api/sign-out', { method: 'POST', body: {} });
    } finally {
      location.assign('/console/');
    }
  });
}

function renderWarnings(list) {
  const ws = $('warnings');
  clear(ws);
  for (const w of list ?? []) ws.append(warningNode(w));
  ws.hidden = !(list ?? []).length;
}

/** How often the operator warnings are read again: some (refused relays, an upgraded install) raise no event. */
const WARNINGS_REFRESH_MS = 30_000;

function refreshWarnings() {
  setInterval(async () => {
    try {
      state.network = await api('/v1/network');
      renderWarnings(state.network.warnings);
    } catch {
      // the server is away for now; the live state already says so
    }
  }, WARNINGS_REFRESH_MS);
}

function renderHeader() {
  const n = state.network;
  const s = state.session;
  document.title = `${n.name} · svc console`;
  $('network-name').textContent = n.name;
  $('network-id').textContent = n.id;
  $('network-version').textContent = `svc ${n.version}`;
  const info = s.signed_in
    ? `signed in · ${s.scopes.join(', ') || 'no scopes'}`
    : s.principal === 'trusted'
      ? 'open access (auth off)'
      : 'public view';
  $('session-info').textContent = info;
  $('sign-out').hidden = !s.signed_in;
  $('sign-in').hidden = s.signed_in || s.principal === 'trusted';
  renderVisitor();
  renderWarnings(n.warnings);
  let name = '';
  try {
    name = localStorage.getItem('svc.console.name') ?? '';
  } catch {
    name = '';
  }
  $('composer-name').value = name || s.human?.name || 'Console';
}

boot();
