// The shape of a message list: a separator before each new day and consecutive messages of one
// sender within a few minutes grouped (their name and time shown once). Applied to the list as it
// is after every change, so older pages, live messages and redraws all come out the same.

import { dayKey, dayLabel } from './times.js';

/** Messages of one sender closer than this join the group of the previous one. */
export const GROUP_MS = 5 * 60_000;

/** Whether message b (after a) continues a's group: same sender, same day, within GROUP_MS. */
export function continuesGroup(a, b) {
  if (!a || !b || !a.sender || a.sender !== b.sender) return false;
  if (dayKey(a.at) !== dayKey(b.at)) return false;
  const gap = Date.parse(b.at) - Date.parse(a.at);
  return gap >= 0 && gap < GROUP_MS;
}

/** Redraws the day separators and group marks of list `ol` (items: li[data-testid=message] with data-at/data-sender). */
export function layoutMessages(ol) {
  for (const s of ol.querySelectorAll(':scope > li.day-separator')) s.remove();
  let prev;
  for (const li of ol.querySelectorAll(':scope > li[data-testid=message]')) {
    const cur = { at: li.dataset.at ?? '', sender: li.dataset.sender ?? '' };
    const day = dayKey(cur.at);
    if (day && (!prev || dayKey(prev.at) !== day)) {
      const sep = document.createElement('li');
      sep.className = 'day-separator';
      sep.setAttribute('data-testid', 'day-separator');
      sep.dataset.day = day;
      const label = document.createElement('span');
      label.textContent = dayLabel(cur.at);
      sep.append(label);
      li.before(sep);
    }
    li.classList.toggle('grouped', continuesGroup(prev, cur));
    prev = cur;
  }
}
