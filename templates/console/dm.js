// DMs from the console: a DM with an agent is started from the sidebar (#/to/<agent>) and shows an
// empty conversation whose first message creates it (the DM id is derived by the server from the
// participants); the composer shows in DMs the console's person takes part in.

import { me } from './dm-link.js';
import { clear, el } from './dom.js';
import { loadDms } from './sidebar.js';
import { $, state } from './state.js';

const enc = encodeURIComponent;

const scoped = (id) => (id.includes(':') ? id : `${state.network.id}:${id}`);
const local = (id) => (id.startsWith(`${state.network.id}:`) ? id.slice(state.network.id.length + 1) : id);

/** The DM between the console's person and `agentId`, if it exists. */
function findDm(agentId) {
  const want = [me(), scoped(agentId)].sort().join('\n');
  for (const d of state.dms.values()) if ([...d.participant_ids].sort().join('\n') === want) return d;
  return undefined;
}

/** Whether the conversation in view is a DM not created yet. */
export function isDraftDm() {
  return state.current?.kind === 'dm' && state.current.draft !== undefined;
}

/** Opens the DM with `agentId`: the existing one, or an empty one to write the first message in. */
export function openDraftDm(agentId, { beginView, renderComposer }) {
  const found = me() ? findDm(agentId) : undefined;
  if (found) return location.replace(`#/dm/${enc(found.id)}`);
  state.epoch++;
  state.current = { kind: 'dm', id: undefined, draft: agentId };
  beginView();
  $('conv-title').textContent = `DM: ${agentId} (new)`;
  clear($('conv-members'));
  clear($('artifacts'));
  $('messages').append(
    el(
      'li',
      { class: 'muted hint', testid: 'dm-new-hint' },
      me() ? `No messages with ${agentId} yet: the first one starts the conversation.` : 'This session cannot send messages.',
    ),
  );
  renderComposer();
  $('composer-text').focus();
}

/** Whether the console's person may write in the DM in view (a new one, or one they take part in). */
export function dmComposerAllowed() {
  const c = state.current;
  if (!me() || c?.kind !== 'dm') return false;
  if (c.draft !== undefined) return true;
  return state.dms.get(c.id)?.participant_ids.includes(me()) ?? false;
}

/** The send target of the DM in view. */
export function dmTarget() {
  const c = state.current;
  return c.draft !== undefined ? { kind: 'dm', participant_ids: [c.draft] } : { kind: 'dm', dm_id: c.id };
}

/** After the first message of a new DM: finds the DM the server made and opens it. */
export async function sentToDraft() {
  const agentId = state.current.draft;
  await loadDms();
  const d = findDm(agentId);
  if (d) location.replace(`#/dm/${enc(d.id)}`);
}

/** Who may be mentioned in the DM in view: its other participants. */
export function dmCandidates() {
  const c = state.current;
  const ids = c?.draft !== undefined ? [c.draft] : (state.dms.get(c?.id)?.participant_ids ?? []).filter((p) => p !== me()).map(local);
  return ids.map((id) => ({ id, name: state.agents.get(id)?.name, kind: state.agents.has(id) ? 'agent' : 'participant' }));
}
