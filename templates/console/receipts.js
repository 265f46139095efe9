// Delivered and read marks on the session's own messages (docs/receipts.md), and whom the console's
// reads count for: the person it sends as, when the session may send as a person.

import { api } from './api.js';
import { el } from './dom.js';
import { state } from './state.js';

/** The history query's `as`, so what this console shows counts as read by its person. */
export function readAs() {
  const s = state.session;
  return s?.can_send_human && s.human ? { as: `human:${s.human.id}` } : {};
}

/** Whether `m` was sent by the session's own person (from this network). */
export const isOwn = (m) =>
  m?.from?.type === 'human' && m.from.id === state.session?.human?.id && (!m.from.network_id || m.from.network_id === state.network?.id);

const nameOf = (r) => (r.reader.type === 'human' ? `${r.reader.id} (person)` : r.reader.id);

function receiptsNode(list) {
  const by = (s) => list.filter((x) => x.state === s).map(nameOf);
  const read = by('read');
  const delivered = by('delivered');
  const pending = by('pending');
  const parts = [];
  if (read.length > 0) parts.push(`✓✓ read by ${read.join(', ')}`);
  if (delivered.length > 0) parts.push(`✓ delivered to ${delivered.join(', ')}`);
  if (pending.length > 0) parts.push(`not yet delivered to ${pending.join(', ')}`);
  if (parts.length === 0) parts.push('no other reader');
  const cls = pending.length === 0 && list.length > 0 ? (delivered.length === 0 ? 'receipts read' : 'receipts delivered') : 'receipts';
  return el('div', { class: cls, testid: 'receipts' }, parts.join(' · '));
}

/** Fetches and shows the marks of those of `messages` that are the session's own. */
export async function showReceipts(messages) {
  const epoch = state.epoch;
  // A tombstone has nothing left to deliver or read.
  for (const m of messages.filter((x) => isOwn(x) && !x.deleted_at)) {
    const r = await api(`/v1/messages/${encodeURIComponent(m.id)}/receipts`).catch(() => undefined);
    if (!r || epoch !== state.epoch) continue;
    const li = document.querySelector(`li[data-testid=message][data-id="${CSS.escape(m.id)}"]`);
    // Deleted while the marks were on their way: a tombstone shows none.
    if (!li || li.classList.contains('tombstone')) continue;
    li.querySelector(':scope > .receipts')?.remove();
    // In a DM the person is a participant too: their own mark says nothing.
    const self = state.session?.human?.id;
    li.append(receiptsNode(r.receipts.filter((x) => !(x.reader?.type === 'human' && x.reader.id === self))));
  }
}

let timer;
/** A `message.receipts` event: refreshes the marks in view when it is about this conversation (at most twice a second). */
export function onReceipts(e) {
  const t = e.receipts?.target;
  const c = state.current;
  if (!t || !c) return;
  const id = t.kind === 'room' ? t.room_id : t.kind === 'thread' ? t.thread_id : t.dm_id;
  if (t.kind !== c.kind || id !== c.id || timer) return;
  timer = setTimeout(() => {
    timer = undefined;
    // The newest of one's own messages are the ones whose marks move.
    showReceipts(state.messages.filter(isOwn).slice(-20));
  }, 500);
}
