// The sidebar: rooms, threads of the open room, DMs and agents with their presence.

import { api, qs } from './api.js';
import { clear, el } from './dom.js';
import { $, report, state } from './state.js';
import { dmHref } from './dm-link.js';
import { activityNode, threadHref } from './thread-activity.js';
import { notePeopleInDms, renderPeople } from './people.js';

// The conversation pane follows the sidebar (thread counts, presence dots) by listening here, so
// the sidebar never imports the pane that imports it.
const listeners = { threads: [], agents: [] };

/** Calls fn after the threads of a room are loaded ('threads') or the agents are redrawn ('agents'). */
export function onSidebar(kind, fn) {
  listeners[kind].push(fn);
}

export async function loadRooms() {
  const r = await api(`/v1/rooms${qs({ limit: 500 })}`).catch(report);
  if (!r) return;
  state.rooms = new Map(r.rooms.map((x) => [x.id, x]));
  renderRooms();
}

export async function loadAgents() {
  const r = await api(`/v1/agents${qs({ limit: 500 })}`).catch(report);
  if (!r) return;
  state.agents = new Map(r.agents.map((x) => [x.id, x]));
  renderAgents();
}

export async function loadPresence() {
  const r = await api('/console/api/presence').catch(() => undefined);
  if (!r) return;
  for (const p of r.agents) state.presence.set(p.agent_id, p.connected);
  renderAgents();
}

export async function loadDms() {
  state.dmsAllowed = false;
  if (!state.network.capabilities?.direct_messages) return renderDms();
  try {
    const r = await api(`/v1/dms${qs({ limit: 500 })}`);
    state.dms = new Map(r.dms.map((x) => [x.id, x]));
    state.dmsAllowed = true;
  } catch {
    // no DM access for this session (anonymous, or DMs refused)
  }
  notePeopleInDms();
  renderDms();
}

export async function loadThreads(roomId) {
  state.threadsRoom = roomId;
  state.threads = new Map();
  renderThreads();
  const r = await api(`/v1/rooms/${encodeURIComponent(roomId)}/threads${qs({ limit: 500 })}`).catch(() => undefined);
  if (!r || state.threadsRoom !== roomId) return;
  state.threads = new Map(r.threads.map((t) => [t.id, t]));
  renderThreads();
  // Room messages show how many replies their thread has.
  for (const fn of listeners.threads) fn();
}

/** The unread count of a conversation (from GET /v1/unread and the live feed), labelled as such. */
function badge(key) {
  const n = state.unread.get(key);
  if (!n) return null;
  const b = el('span', { class: 'unread', testid: 'unread', title: `${n} unread` }, String(n));
  b.setAttribute('aria-label', `${n} unread`);
  return b;
}

/** A room's member count, said in words: a bare number beside a name reads as unread. */
function memberCount(n) {
  return el(
    'span',
    { class: 'member-count', testid: 'member-count', title: `${n} member${n === 1 ? '' : 's'}` },
    `${n} member${n === 1 ? '' : 's'}`,
  );
}

function isCurrent(kind, id) {
  return state.current?.kind === kind && state.current.id === id;
}

export function renderRooms() {
  const ul = $('rooms');
  clear(ul);
  if (state.rooms.size === 0) ul.append(el('li', { class: 'muted' }, 'no rooms visible'));
  for (const r of state.rooms.values()) {
    ul.append(
      el(
        'li',
        { class: isCurrent('room', r.id) ? 'active' : '' },
        el(
          'a',
          { href: `#/room/${encodeURIComponent(r.id)}`, testid: `room-${r.id}` },
          el('span', { class: 'hash' }, '#'),
          r.name || r.id,
          r.visibility === 'private' ? el('span', { class: 'badge' }, 'private') : null,
          el('span', { class: 'grow' }),
          memberCount(r.members.length),
          badge(`room:${r.id}`),
        ),
      ),
    );
  }
}

export function renderThreads() {
  const ul = $('threads');
  clear(ul);
  const roomId = state.threadsRoom;
  $('threads-section').hidden = !roomId;
  if (!roomId) return;
  if (state.threads.size === 0) ul.append(el('li', { class: 'muted' }, `no threads in #${roomId}`));
  const sorted = [...state.threads.values()].sort((a, b) => (b.last_message_at ?? '').localeCompare(a.last_message_at ?? ''));
  for (const t of sorted) {
    ul.append(
      el(
        'li',
        { class: isCurrent('thread', t.id) ? 'active' : '' },
        el(
          'a',
          { href: threadHref(t), testid: `thread-${t.id}`, title: t.id },
          el('span', { class: 'thread-id' }, t.id),
          el('span', { class: 'muted count' }, ` ${t.message_count}`),
          badge(`thread:${t.id}`),
          activityNode(t),
        ),
      ),
    );
  }
}

export function dmLabel(d) {
  const local = `${state.network.id}:`;
  return d.participant_ids.map((p) => (p.startsWith(local) ? p.slice(local.length) : p)).join(', ');
}

export function renderDms() {
  const ul = $('dms');
  clear(ul);
  $('dms-section').hidden = !state.dmsAllowed;
  if (!state.dmsAllowed) return;
  if (state.dms.size === 0) ul.append(el('li', { class: 'muted' }, 'no direct messages'));
  for (const d of state.dms.values()) {
    ul.append(
      el(
        'li',
        { class: isCurrent('dm', d.id) ? 'active' : '' },
        el(
          'a',
          { href: `#/dm/${encodeURIComponent(d.id)}`, testid: `dm-${d.id}` },
          dmLabel(d),
          el('span', { class: 'muted count' }, ` ${d.message_count}`),
          badge(`dm:${d.id}`),
        ),
      ),
    );
  }
}

export function presenceDot(id) {
  const on = state.presence.get(id) === true;
  return el('span', {
    class: `dot ${on ? 'on' : 'off'}`,
    title: on ? 'attached' : 'not attached',
    data: { presence: on ? 'online' : 'offline' },
  });
}

/** An agent's name as a link that starts a DM with it, when the session may send one (dm.js). */
function dmLink(id, ...label) {
  const href = dmHref(id);
  return href ? el('a', { href, class: 'dm-link', testid: `start-dm-${id}`, title: `Message ${id} directly` }, ...label) : label;
}

export function renderAgents() {
  const ul = $('agents');
  clear(ul);
  if (state.agents.size === 0) ul.append(el('li', { class: 'muted' }, 'no agents visible'));
  const sorted = [...state.agents.values()].sort(
    (a, b) => Number(state.presence.get(b.id) === true) - Number(state.presence.get(a.id) === true) || a.id.localeCompare(b.id),
  );
  for (const a of sorted) {
    ul.append(
      el(
        'li',
        { testid: `agent-${a.id}`, data: { presence: state.presence.get(a.id) ? 'online' : 'offline' } },
        presenceDot(a.id),
        dmLink(a.id, a.name && a.name !== a.id ? `${a.name} ` : '', el('span', { class: a.name && a.name !== a.id ? 'muted' : '' }, a.id)),
      ),
    );
  }
  renderPeople();
  for (const fn of listeners.agents) fn();
}
