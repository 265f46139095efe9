// People as DM targets. The API lists agents but no people (a person is whoever sends as a human),
// so the sidebar lists the local people the console has seen: senders of the messages it loaded or
// received live, and the participants of the visible DMs that are not agents; never the console's
// own person. Clicking one opens the DM with them, as for an agent.

import { dmHref, me } from './dm-link.js';
import { clear, el } from './dom.js';
import { $, state } from './state.js';

/** person id -> { id, name } */
const people = new Map();
let queued = false;

const localId = (scoped) => {
  const net = `${state.network?.id}:`;
  return scoped.startsWith(net) ? scoped.slice(net.length) : undefined;
};
const isMe = (id) => me() === `${state.network?.id}:${id}` || id === state.session?.human?.id;

function note(id, name) {
  if (!id || isMe(id) || state.agents.has(id)) return false;
  const known = people.get(id);
  if (known && (known.name || !name)) return false;
  people.set(id, { id, name: name || known?.name });
  return true;
}

function later() {
  if (queued) return;
  queued = true;
  queueMicrotask(() => {
    queued = false;
    renderPeople();
  });
}

/** Notes the local human senders of `messages`. */
export function notePeople(messages) {
  let changed = false;
  for (const m of messages ?? []) {
    const f = m?.from;
    const local = !f?.network_id || f.network_id === state.network?.id;
    if (f?.type === 'human' && local && note(f.id, f.name)) changed = true;
  }
  if (changed) later();
}

/** Notes the local participants of the visible DMs that are not agents. */
export function notePeopleInDms() {
  let changed = false;
  for (const d of state.dms.values())
    for (const p of d.participant_ids ?? []) {
      const id = localId(p);
      if (id && note(id)) changed = true;
    }
  if (changed) later();
}

/** The People section of the sidebar: each person a link that opens the DM with them. */
export function renderPeople() {
  const ul = $('people');
  if (!ul) return;
  clear(ul);
  // An agent registered after a person was noted under its id is an agent, not a person.
  for (const id of people.keys()) if (state.agents.has(id)) people.delete(id);
  $('people-section').hidden = people.size === 0;
  const sorted = [...people.values()].sort((a, b) => (a.name || a.id).localeCompare(b.name || b.id));
  for (const p of sorted) {
    const label = [p.name && p.name !== p.id ? `${p.name} ` : '', el('span', { class: p.name && p.name !== p.id ? 'muted' : '' }, p.id)];
    const href = dmHref(p.id);
    ul.append(
      el(
        'li',
        { testid: `person-${p.id}` },
        href ? el('a', { href, class: 'dm-link', testid: `start-dm-${p.id}`, title: `Message ${p.id} directly` }, ...label) : label,
      ),
    );
  }
}
