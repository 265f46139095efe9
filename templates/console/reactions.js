// Reactions under each message (#28): a chip per emoji with its count (who reacted in its title),
// highlighted when the person signed in is among them. A person who may send (the composer's rule)
// toggles a chip by clicking it and adds one from a small picker; reaction.updated events from the
// live feed keep the chips current. In DMs the chips only show: a person takes no part in a DM.

import { api } from './api.js';
import { el, toast } from './dom.js';
import { state } from './state.js';

const PICKS = ['👍', '❤️', '😄', '🎉', '👀', '✅'];

/** The scoped id the signed-in person reacts as, when they may react. */
function me() {
  const human = state.session?.human;
  if (!human || !state.network?.console?.can_send_human) return undefined;
  return `${state.network.id}:${human.id}`;
}

const canReactTo = (m) => me() !== undefined && m.target?.kind !== 'dm';

/** The reactions bar of message `m` (null when there is nothing to show or do). */
export function reactionsNode(m) {
  const list = Array.isArray(m.reactions) ? m.reactions : [];
  const can = canReactTo(m);
  if (list.length === 0 && !can) return null;
  const mine = me();
  const chips = list.map((r) =>
    el(
      'button',
      {
        class: `reaction${mine && r.by?.includes(mine) ? ' mine' : ''}`,
        type: 'button',
        testid: 'reaction',
        data: { emoji: r.emoji },
        title: (r.by ?? []).join(', '),
        onclick: can ? () => toggle(m, r.emoji) : undefined,
      },
      `${r.emoji} ${r.count}`,
    ),
  );
  if (!can) chips.forEach((c) => (c.disabled = true));
  const picker = can
    ? el(
        'span',
        { class: 'reaction-picker', testid: 'reaction-picker', hidden: true },
        ...PICKS.map((e) =>
          el('button', { type: 'button', class: 'reaction-pick', data: { emoji: e }, onclick: () => toggle(m, e, 'add') }, e),
        ),
      )
    : null;
  const add = can
    ? el(
        'button',
        {
          type: 'button',
          class: 'reaction-add',
          testid: 'reaction-add',
          title: 'add a reaction',
          onclick: () => (picker.hidden = !picker.hidden),
        },
        '+',
      )
    : null;
  return el('div', { class: 'reactions', testid: 'reactions' }, ...chips, add, picker);
}

/** Adds or removes the signed-in person's reaction; `force` says which. */
async function toggle(m, emoji, force) {
  const who = me();
  if (!who) return;
  const has = (m.reactions ?? []).some((r) => r.emoji === emoji && r.by?.includes(who));
  const remove = force === 'add' ? false : has;
  if (force === 'add' && has) return;
  const human = state.session.human;
  try {
    const r = await api(`/v1/messages/${encodeURIComponent(m.id)}/reactions/${encodeURIComponent(emoji)}`, {
      method: remove ? 'DELETE' : 'PUT',
      body: { from: { type: 'human', id: human.id, ...(human.name ? { name: human.name } : {}) } },
    });
    m.reactions = r.reactions;
    redraw(m);
  } catch (err) {
    toast(`reaction not ${remove ? 'removed' : 'added'}: ${err.message}`);
  }
}

/** Applies a reaction.updated event to the message in view, if it is there. */
export function onReaction(change) {
  const m = state.messages.find((x) => x.id === change?.message_id);
  if (!m) return;
  const list = (m.reactions ?? []).map((r) => ({ ...r, by: [...(r.by ?? [])] }));
  let entry = list.find((r) => r.emoji === change.emoji);
  if (change.action === 'added') {
    if (!entry) list.push((entry = { emoji: change.emoji, count: 0, by: [] }));
    if (!entry.by.includes(change.by)) entry.by.push(change.by);
  } else if (entry) {
    entry.by = entry.by.filter((b) => b !== change.by);
  }
  m.reactions = list.map((r) => ({ ...r, count: r.by.length })).filter((r) => r.count > 0);
  redraw(m);
}

/** Replaces the reactions bar of `m` on screen. */
function redraw(m) {
  const li = document.querySelector(`li[data-testid="message"][data-id="${CSS.escape(m.id)}"]`);
  if (!li) return;
  const old = li.querySelector(':scope > [data-testid="reactions"]');
  const next = reactionsNode(m);
  if (old && next) old.replaceWith(next);
  else if (old) old.remove();
  else if (next) li.append(next);
}
