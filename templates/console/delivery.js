// Delivery per agent (docs/console.md, Admin; GET /v1/agents/{id}/delivery): what holds each
// agent's attachment, its wakes not acknowledged and how long the oldest has waited, redelivery
// given up, the last ACK and read. Shown to admin sessions beside Pairings, read when opened.

import { api, qs } from './api.js';
import { clear, el, toast } from './dom.js';
import { $ } from './state.js';

/** Binds the Delivery button and dialog; call once. */
export function bindDelivery() {
  $('show-delivery').addEventListener('click', () => {
    $('delivery-dialog').showModal();
    loadDelivery();
  });
  $('delivery-refresh').addEventListener('click', () => loadDelivery());
}

async function loadDelivery() {
  const ul = $('delivery-list');
  clear(ul);
  ul.append(el('li', { class: 'muted' }, 'loading…'));
  let all;
  try {
    const { agents } = await api(`/v1/agents${qs({ limit: 500 })}`);
    all = await Promise.all(agents.map((a) => api(`/v1/agents/${encodeURIComponent(a.id)}/delivery`)));
  } catch (err) {
    clear(ul);
    toast(`cannot load delivery: ${err.message}`);
    return;
  }
  clear(ul);
  if (all.length === 0) ul.append(el('li', { class: 'muted' }, 'No agents.'));
  // The longest waiting first, then the rest by id.
  all.sort((a, b) => (b.oldest_pending_seconds ?? -1) - (a.oldest_pending_seconds ?? -1) || a.agent_id.localeCompare(b.agent_id));
  for (const d of all) ul.append(deliveryNode(d));
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : 'never');

/** One agent: its holder, its waiting wakes (the oldest few), its last ACK and read. */
function deliveryNode(d) {
  const health = d.gave_up > 0 ? 'bad' : d.pending_wakes > 0 ? 'warn' : 'ok';
  const holders = d.attachments.map((a) => `${a.by}${a.client ? ` (${a.client})` : ''} since ${when(a.since)}`);
  const waiting =
    d.pending_wakes === 0
      ? 'No wakes waiting.'
      : `${d.pending_wakes} wake${d.pending_wakes === 1 ? '' : 's'} not acknowledged, the oldest for ${d.oldest_pending_seconds} s${d.gave_up > 0 ? `; ${d.gave_up} no longer offered` : ''}`;
  return el(
    'li',
    { class: 'pairing', testid: `delivery-${d.agent_id}` },
    el(
      'div',
      { class: 'pairing-head' },
      el('strong', {}, d.agent_id),
      el('span', { class: `health ${health}`, testid: 'delivery-attached' }, d.attached ? 'attached' : 'not attached'),
    ),
    holders.length ? el('div', { class: 'muted' }, holders.join('; ')) : null,
    el('div', { testid: 'delivery-pending' }, waiting),
    el('div', { class: 'muted' }, `last ACK ${when(d.last_ack_at)} · last read ${when(d.last_read_at)}`),
    d.wakes.length
      ? el(
          'ul',
          { class: 'refusals' },
          d.wakes
            .slice(0, 5)
            .map((w) =>
              el(
                'li',
                {},
                `${w.reason} ${w.message_id}: offered ${w.offers}× since ${when(w.first_offered_at)}${w.gave_up_at ? ', given up' : ''}`,
              ),
            ),
        )
      : null,
  );
}
