// Admin controls (docs/console.md, Admin): create a room, add and remove members, see pairings and
// their health. Shown only to a session with the admin scope; the API refuses everyone else anyway.

import { api, qs } from './api.js';
import { clear, el, toast } from './dom.js';
import { renderRooms } from './sidebar.js';
import { $, state } from './state.js';

/** Whether this session may administer (an admin-scoped token, or auth off). */
export const isAdmin = () => Boolean(state.session?.scopes?.includes('admin'));

/** Binds the dialogs; call once. */
export function bindAdmin() {
  $('new-room').addEventListener('click', () => {
    $('room-form').reset();
    $('room-status').textContent = '';
    fillAgentIds();
    $('room-dialog').showModal();
    $('room-id').focus();
  });
  $('room-cancel').addEventListener('click', () => $('room-dialog').close());
  $('room-form').addEventListener('submit', (e) => {
    e.preventDefault();
    createRoom();
  });
  $('manage-members').addEventListener('click', () => {
    fillAgentIds();
    renderMemberList();
    $('members-status').textContent = '';
    $('members-dialog').showModal();
    $('member-add').focus();
  });
  $('member-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const id = $('member-add').value.trim();
    if (id) changeMembers({ add: [id] }).then((ok) => ok && ($('member-add').value = ''));
  });
  $('show-pairings').addEventListener('click', () => {
    $('pairings-dialog').showModal();
    loadPairings();
  });
}

/** Shows or hides the controls for the session and the conversation in view. */
export function renderAdmin() {
  const admin = isAdmin();
  $('admin-tools').hidden = !admin;
  $('manage-members').hidden = !(admin && state.current?.kind === 'room' && state.rooms.has(state.current.id));
}

function fillAgentIds() {
  const list = $('agent-ids');
  clear(list);
  for (const id of state.agents.keys()) list.append(el('option', {}, id));
  for (const o of list.children) o.value = o.textContent;
}

async function createRoom() {
  const f = $('room-form');
  const data = new FormData(f);
  const members = String(data.get('members') ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);
  const body = {
    id: String(data.get('id') ?? '').trim(),
    visibility: data.get('visibility') === 'private' ? 'private' : 'public',
    ...(String(data.get('name') ?? '').trim() ? { name: String(data.get('name')).trim() } : {}),
    ...(members.length ? { members } : {}),
  };
  $('room-status').textContent = 'creating…';
  try {
    const room = await api('/v1/rooms', { method: 'POST', body });
    state.rooms.set(room.id, room);
    renderRooms();
    $('room-dialog').close();
    location.hash = `#/room/${encodeURIComponent(room.id)}`;
  } catch (err) {
    $('room-status').textContent = `not created: ${err.message}`;
  }
}

function renderMemberList() {
  const ul = $('members-list');
  clear(ul);
  const room = state.current?.kind === 'room' ? state.rooms.get(state.current.id) : undefined;
  if (!room) return;
  $('members-title').textContent = `Members of #${room.name || room.id}`;
  if (room.members.length === 0) ul.append(el('li', { class: 'muted' }, 'no members yet'));
  for (const m of room.members) {
    const remove = el('button', { type: 'button', class: 'small', testid: `member-remove-${m}` }, 'Remove');
    remove.setAttribute('aria-label', `Remove ${m} from #${room.id}`);
    remove.addEventListener('click', () => changeMembers({ remove: [m] }));
    ul.append(el('li', { class: 'member-row', testid: `member-row-${m}` }, el('span', {}, m), remove));
  }
}

async function changeMembers(change) {
  const id = state.current?.id;
  if (!id) return false;
  $('members-status').textContent = 'saving…';
  try {
    const room = await api(`/v1/rooms/${encodeURIComponent(id)}/members`, { method: 'PATCH', body: change });
    state.rooms.set(room.id, room);
    renderRooms();
    renderMemberList();
    $('members-status').textContent = change.add ? `added ${change.add.join(', ')}` : `removed ${change.remove.join(', ')}`;
    return true;
  } catch (err) {
    $('members-status').textContent = `not saved: ${err.message}`;
    return false;
  }
}

const HEALTH = { connected: 'ok', degraded: 'warn', pending: 'warn', unknown: 'warn', incompatible: 'bad', error: 'bad' };

async function loadPairings() {
  const ul = $('pairings-list');
  clear(ul);
  ul.append(el('li', { class: 'muted' }, 'loading…'));
  let r;
  try {
    r = await api(`/v1/pairings${qs({ limit: 500 })}`);
  } catch (err) {
    clear(ul);
    toast(`cannot load pairings: ${err.message}`);
    return;
  }
  clear(ul);
  if (r.pairings.length === 0) ul.append(el('li', { class: 'muted' }, 'This network is not paired with another one.'));
  for (const p of r.pairings) ul.append(pairingNode(p));
}

/** One pairing: its peer, transport, health, last check, and the relays the peer refused (with the fix). */
function pairingNode(p) {
  const refused = p.refused;
  const reasons = refused ? Object.entries(refused.by_reason ?? {}).map(([k, n]) => `${k}: ${n}`) : [];
  const d = p.diagnostics ?? {};
  const problem = d.message ?? d.reason;
  const checked = d.checked_at ? `last checked ${new Date(d.checked_at).toLocaleString()}` : 'not checked yet';
  const recent = (refused?.recent ?? []).slice(-5).reverse();
  return el(
    'li',
    { class: 'pairing', testid: `pairing-${p.id}` },
    el(
      'div',
      { class: 'pairing-head' },
      el('strong', {}, p.remote_network_name || p.remote_network_id),
      el('span', { class: `health ${HEALTH[p.status] ?? 'warn'}`, testid: 'pairing-status' }, p.status),
    ),
    el('div', { class: 'muted' }, `${p.id} · ${p.transport}${p.relay_url ? ` via ${p.relay_url}` : ''} · ${p.remote_base_url}`),
    el('div', { class: 'muted' }, `${checked}${d.remote_version ? ` · peer runs svc ${d.remote_version}` : ''}`),
    problem ? el('div', { testid: 'pairing-problem' }, String(problem)) : null,
    el(
      'div',
      { testid: 'pairing-refused' },
      refused && refused.total > 0
        ? `Refused relays: ${refused.total}${reasons.length ? ` (${reasons.join(', ')})` : ''}`
        : 'No refused relays.',
    ),
    recent.length
      ? el(
          'ul',
          { class: 'refusals' },
          recent.map((r) =>
            el('li', {}, `${r.reason}${r.room_id ? ` in #${r.room_id}` : ''} (${new Date(r.at).toLocaleTimeString()}): ${r.fix}`),
          ),
        )
      : null,
  );
}
